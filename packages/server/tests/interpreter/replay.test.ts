/**
 * Replay of a recorded ACT (a lock entry), on a real Chromium: the grammar finds each element, and
 * only exactly the recorded one (same role and accessible name) is acted on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { replayActions, replayOptions } from "../../src/interpreter/replay.js";
import type { StepReport } from "../../src/interpreter/types.js";
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
});
