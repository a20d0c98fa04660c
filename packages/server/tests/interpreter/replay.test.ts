/**
 * Replay of a recorded ACT (a lock entry), on a real Chromium: the grammar finds each element, and
 * only exactly the recorded one (same role and accessible name) is acted on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { replayActions, replayOptions } from "../../src/interpreter/lock/index.js";
import type { StepReport } from "../../src/interpreter/index.js";
import { launchBrowser, rejection } from "./_setup.js";

const PAGE = `<!doctype html><title>Replay</title>
<label>Email <input name="email"></label>
<button type="button" onclick="document.title = 'clicked ' + this.textContent">Sign in</button>
<button type="button" onclick="document.title = 'clicked ' + this.textContent">Sign up</button>`;

describe("replayActions", { timeout: 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const options = { ...replayOptions({ uploadRoot: process.cwd(), allowFileUrls: false }), findTimeoutMs: 500 };
  const context = (report: StepReport) => ({ page, instruction: "sign in as ada", timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report });

  it("runs each recorded instruction on the recorded element and reports the replay", async () => {
    await page.setContent(PAGE);
    const report: StepReport = {};
    const result = await replayActions(
      context(report),
      [
        { instruction: 'type "ada@example.com" into the "Email" field', element: { role: "textbox", name: "Email" } },
        { instruction: 'click the "Sign in" button', element: { role: "button", name: "Sign in" } },
      ],
      options,
    );
    expect(await page.inputValue("input[name=email]")).toBe("ada@example.com");
    expect(await page.title()).toBe("clicked Sign in");
    expect(report).toEqual({ interpreter: "grammar", replayed: true, resolved: 'type "ada@example.com" into the "Email" field; click the "Sign in" button' });
    expect(result.actions).toEqual([
      { instruction: 'type "ada@example.com" into the "Email" field', element: { role: "textbox", name: "Email" } },
      { instruction: 'click the "Sign in" button', element: { role: "button", name: "Sign in" } },
    ]);
  });

  it("refuses an element whose accessible name differs from the recorded one, and does not act on it", async () => {
    await page.setContent(PAGE);
    const error = await rejection(replayActions(context({}), [{ instruction: 'click the "Sign in" button', element: { role: "button", name: "Log in" } }], options));
    expect(error.code).toBe("WF_REPLAY_MISMATCH");
    expect(error.details).toMatchObject({ recorded: { role: "button", name: "Log in" }, found: { role: "button", name: "Sign in" }, actionIndex: 0 });
    expect(error.message).toContain('the lock recorded button "Log in", the page has button "Sign in"');
    expect(await page.title()).toBe("Replay");
  });

  it("fails WF_REPLAY_MISMATCH naming the recorded element when the page no longer has it", async () => {
    await page.setContent(PAGE.replace(">Sign in<", ">Continue<"));
    const error = await rejection(replayActions(context({}), [{ instruction: 'click the "Sign in" button', element: { role: "button", name: "Sign in" } }], options));
    expect(error.code).toBe("WF_REPLAY_MISMATCH");
    expect(error.details).toMatchObject({ recorded: { role: "button", name: "Sign in" }, found: null });
    expect(await page.title()).toBe("Replay");
  });

  it("reports how far a multi-action replay got", async () => {
    await page.setContent(PAGE.replace(">Sign in<", ">Continue<"));
    const error = await rejection(
      replayActions(
        context({}),
        [
          { instruction: 'type "x" into the "Email" field', element: { role: "textbox", name: "Email" } },
          { instruction: 'click the "Sign in" button', element: { role: "button", name: "Sign in" } },
        ],
        options,
      ),
    );
    expect(error.code).toBe("WF_REPLAY_MISMATCH");
    expect(error.details.actionIndex).toBe(1);
  });

  it("replays an entry recorded before names followed Playwright (decision 0058): an upper-cased button, a field's asterisk", async () => {
    // MUI as rendered: the button's text upper-cased by CSS, the required field's label holding an aria-hidden " *".
    await page.setContent(`<title>Replay</title><style>.MuiButton-root{text-transform:uppercase}</style>
      <div class="MuiFormControl-root"><label class="MuiFormLabel-root MuiInputLabel-root Mui-required" for="email" id="email-label">Email<span aria-hidden="true" class="MuiFormLabel-asterisk MuiInputLabel-asterisk"> *</span></label>
      <div class="MuiInputBase-root MuiOutlinedInput-root"><input aria-invalid="false" id="email" required type="text" class="MuiInputBase-input MuiOutlinedInput-input" value=""></div></div>
      <button class="MuiButtonBase-root MuiButton-root MuiButton-contained" tabindex="0" type="button" onclick="document.title = 'clicked ' + this.textContent">Login</button>`);
    // As the lock files of that time hold them: names as innerText read them.
    const recorded = [
      { instruction: 'type "ada@example.com" into the "Email *" field', element: { role: "textbox", name: "Email *" } },
      { instruction: 'click the "LOGIN" button', element: { role: "button", name: "LOGIN" } },
    ];
    const report: StepReport = {};
    await replayActions(context(report), recorded, options);
    expect(await page.inputValue("#email")).toBe("ada@example.com");
    expect(await page.title()).toBe("clicked Login");
    expect(report).toMatchObject({ interpreter: "grammar", replayed: true });
    // Another name is still another element: the case and a trailing asterisk are all that is forgiven.
    await page.setContent(PAGE);
    const other = await rejection(replayActions(context({}), [{ instruction: 'click the "Sign in" button', element: { role: "button", name: "SIGN UP" } }], options));
    expect(other.code).toBe("WF_REPLAY_MISMATCH");
  });

  describe("with refind (--lock heal)", () => {
    const healing = { ...options, refind: true };

    it("finds the recorded element again by its role and exact name when the instruction now finds another one, and acts on it", async () => {
      // Recorded when the page had only the link; now a button of the same name comes first.
      await page.setContent(`<title>Replay</title><button type="button" onclick="document.title = 'clicked button'">Sign in</button>
        <a href="#signed-in" onclick="document.title = 'clicked link'">Sign in</a>`);
      const recorded = [{ instruction: 'click "Sign in"', element: { role: "link", name: "Sign in" } }];
      const plain = await rejection(replayActions(context({}), recorded, options));
      expect(plain.code).toBe("WF_REPLAY_MISMATCH");
      expect(await page.title()).toBe("Replay");

      const report: StepReport = {};
      const result = await replayActions(context(report), recorded, healing);
      expect(await page.title()).toBe("clicked link");
      expect(result.actions).toEqual([{ instruction: 'click the "Sign in" link', element: { role: "link", name: "Sign in", locator: expect.stringContaining("getByRole('link'") }, refound: true }]);
      expect(report.resolved).toBe('click the "Sign in" link');
      expect(result.message).toContain("found again by their recorded identity");
    });

    it("finds it by its recorded locator when its name changed, and reports the instruction that names it now", async () => {
      await page.setContent(`<title>Replay</title><label>Work e-mail <input data-testid="email"></label><label>Other <input></label>`);
      const recorded = [{ instruction: 'type "ada@example.com" into the "Email" field', element: { role: "textbox", name: "Email", locator: "getByTestId('email')" } }];
      const result = await replayActions(context({}), recorded, healing);
      expect(await page.getByTestId("email").inputValue()).toBe("ada@example.com");
      expect(result.actions).toEqual([
        { instruction: 'type "ada@example.com" into the "Work e-mail" field', element: { role: "textbox", name: "Work e-mail", locator: "getByTestId('email')" }, refound: true },
      ]);
    });

    it("acts on nothing when the recorded locator now names an element of another role, or several", async () => {
      await page.setContent(`<title>Replay</title><a href="#x" data-testid="go" onclick="document.title = 'clicked'">Go</a><button data-testid="twin">Twin</button><button data-testid="twin">Twin</button>`);
      const wrongRole = await rejection(replayActions(context({}), [{ instruction: 'click the "Start" button', element: { role: "button", name: "Start", locator: "getByTestId('go')" } }], healing));
      expect(wrongRole.code).toBe("WF_REPLAY_MISMATCH");
      expect(wrongRole.message).toContain("not found again by its role and name or its recorded locator");
      const twins = await rejection(replayActions(context({}), [{ instruction: 'click the "Begin" button', element: { role: "button", name: "Begin", locator: "getByTestId('twin')" } }], healing));
      expect(twins.code).toBe("WF_REPLAY_MISMATCH");
      expect(await page.title()).toBe("Replay");
    });
  });
});
