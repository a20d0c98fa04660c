import { describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { createDeterministicInterpreter, InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { FIXTURES, rejection, step, usePages } from "./_setup.js";

let server: StaticServer;
let context: BrowserContext;
let page: Page;
const interpreter = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 300 });

async function act(instruction: string, timeoutMs?: number) {
  return interpreter.act(step(page, instruction, timeoutMs));
}

async function failure(instruction: string): Promise<InterpreterError> {
  return rejection(act(instruction));
}


usePages((test) => ({ server, context, page } = test), "form.html");

describe("navigation", () => {
  it("goes to a URL, follows a link, goes back and forward, reloads", async () => {
    const opened = await act(`go to "${server.url}/nav-a.html"`);
    expect(opened).toMatchObject({ action: "goto", url: `${server.url}/nav-a.html` });
    await expect(page.title()).resolves.toBe("Page A");

    // A section number before the name and an arrow after it need not be written.
    await act('click "numeric types"');
    expect(page.url()).toBe(`${server.url}/nav-b.html#numeric`);
    await act("go back");
    await act('click the "Next" link');
    expect(page.url()).toBe(`${server.url}/nav-b.html#next`);
    await act("go back");

    await act('click "Go to page B"');
    expect(page.url()).toBe(`${server.url}/nav-b.html`);

    expect((await act("go back")).url).toBe(`${server.url}/nav-a.html`);
    expect((await act("Go forward.")).url).toBe(`${server.url}/nav-b.html`);
    await act("navigate to /nav-a.html");
    const loads = async () => Number((await page.locator("#loads").textContent())?.match(/\d+/)?.[0]);
    const before = await loads();
    expect((await act("refresh the page")).action).toBe("reload");
    expect(await loads()).toBe(before + 1);
  });

  it("waits for the target across a navigation the page starts by itself", async () => {
    const patient = createDeterministicInterpreter({ findTimeoutMs: 10_000 });
    await page.goto(`${server.url}/redirect.html`);
    const result = await patient.act(step(page, 'click the "Back to A" link', 20_000));
    expect(result).toMatchObject({ action: "click", target: 'link "Back to A"', url: `${server.url}/nav-a.html` });
  });

  it("fails with WF_NAVIGATION_FAILED on an unreachable URL and on back without history", async () => {
    expect((await act(`go to "${server.url}/missing.html"`)).message).toBe(`Opened ${server.url}/missing.html (HTTP 404)`);
    const unreachable = await failure('open "http://127.0.0.1:1/nowhere"');
    expect(unreachable.code).toBe("WF_NAVIGATION_FAILED");
    expect(unreachable.message).toContain("http://127.0.0.1:1/nowhere");

    page = await context.newPage();
    const noHistory = await failure("go back");
    expect(noHistory.code).toBe("WF_NAVIGATION_FAILED");
    expect(noHistory.message).toMatch(/no previous page/);
  });
});

describe("clicks and pointer actions", () => {
  it("clicks by role and accessible name, with a role hint and an ordinal", async () => {
    const result = await act('click the "Save" button');
    expect(result).toMatchObject({ action: "click", target: 'button "Save"' });
    await act('wait for "All changes saved" to appear');
    expect(await page.locator("#saved").textContent()).toBe("All changes saved");

    await act('click the second "Edit" button');
    expect(await page.locator("#edited").textContent()).toBe("edit 2");
    await act('click link "Edit"');
    expect(await page.locator("#edited").textContent()).toBe("edit link");
    expect(page.url()).toMatch(/#edit3$/);
    await act('click the first "Edit" button');
    expect(await page.locator("#edited").textContent()).toBe("edit 1");
  });

  it("finds elements by alt text and by title, and prefers visible over hidden", async () => {
    await act('click "Company logo"');
    expect(await page.locator("#status").textContent()).toBe("logo clicked");
    await act('click "Close dialog"');
    expect(await page.locator("#status").textContent()).toBe("closed");
    // "Delete account" is hidden; the visible "Delete" wins the substring tier, and exact beats substring anyway.
    await act("click Delete");
    expect(await page.locator("#status").textContent()).toBe("visible delete");
  });

  it("double-clicks, right-clicks and hovers", async () => {
    await act('double-click "Row 1"');
    expect(await page.locator("#dbl").textContent()).toBe("double-clicked");
    expect((await act('right-click on "File"')).action).toBe("rightclick");
    expect(await page.locator("#ctx").textContent()).toBe("context menu opened");
    expect(await page.locator(".tip").isVisible()).toBe(false);
    await act('hover over "Help"');
    expect(await page.locator(".tip").isVisible()).toBe(true);
  });
});

describe("fields", () => {
  it("types and fills by label, wrapped label, placeholder and title; clears", async () => {
    await act('type "ada@example.com" into "Email"');
    expect(await page.locator("#email").inputValue()).toBe("ada@example.com");
    await act("fill 's3cret' in the 'Password' field");
    expect(await page.locator("#password").inputValue()).toBe("s3cret");
    await act('enter "keyboards" in "Search products"');
    expect(await page.locator("#search").inputValue()).toBe("keyboards");
    await act('fill "Nickname" with "ada"');
    expect(await page.locator("#nickname").inputValue()).toBe("ada");
    await act('set "Bio" to "Mathematician"');
    expect(await page.locator("#bio").inputValue()).toBe("Mathematician");
    expect((await act('clear the "Bio" field')).action).toBe("clear");
    expect(await page.locator("#bio").inputValue()).toBe("");
  });

  it("finds a field by its name attribute, types into the focused element, and takes unquoted targets", async () => {
    await act('type "ada" into "nickname"');
    expect(await page.locator("#nickname").inputValue()).toBe("ada");
    await act("click Email");
    await act('type "typed@example.com"');
    expect(await page.locator("#email").inputValue()).toBe("typed@example.com");
    await act("click Sign up button");
    expect(await page.locator("#status").textContent()).toBe("Submitted typed@example.com");
  });

  it("matches a field case-insensitively when the case differs", async () => {
    await act('type "x@y.z" into "email"');
    expect(await page.locator("#email").inputValue()).toBe("x@y.z");
  });

  it("presses keys, on the page and in a field, and submits with Enter", async () => {
    await act('press "a" in "Key log"');
    await act('type "mouse" into "Search"'); // a field named by the start of its placeholder
    await act('press End in "Search"');
    await act("press Tab");
    await act('press "Shift+Tab"');
    await act('press "Arrow Down" in "Key log"');
    expect(await page.locator("#keylog").textContent()).toContain("a ");
    expect(await page.locator("#keylog").textContent()).toContain("ArrowDown");
    await act('type "ada@example.com" into "Email"');
    await act('press Enter in "Email"');
    expect(await page.locator("#status").textContent()).toBe("Submitted ada@example.com");
    // A chained instruction runs its actions in order and reports each.
    const chained = await act('clear "Email", then type "grace@example.com" into "Email" and press Enter');
    expect(chained.action).toBe("press");
    expect(chained.message).toBe('Cleared textbox "Email"; Filled textbox "Email" with "grace@example.com"; Pressed Enter');
    expect(await page.locator("#status").textContent()).toBe("Submitted grace@example.com");
  });

  it("selects an option by label, by value and loosely", async () => {
    await act('select "Germany" in "Country"');
    expect(await page.locator("#country").inputValue()).toBe("de");
    await act('choose "fr" from the "Country" dropdown');
    expect(await page.locator("#country").inputValue()).toBe("fr");
    await act('select "united states" from "Country"');
    expect(await page.locator("#country").inputValue()).toBe("us");
    await act('select "Large" from the "Size" dropdown'); // a custom ARIA combobox: opened, then the option clicked
    expect(await page.locator("#size").textContent()).toBe("Large");
    const missing = await failure('select "Spain" in "Country"');
    expect(missing.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(missing.message).toContain('"France"');
  });

  it("checks and unchecks boxes and radios", async () => {
    await act('check the "Remember me" checkbox');
    expect(await page.locator("#remember").isChecked()).toBe(true);
    await act('uncheck "Newsletter"');
    expect(await page.locator("#newsletter").isChecked()).toBe(false);
    await act('check "Pro"');
    expect(await page.locator("input[value=pro]").isChecked()).toBe(true);
    expect(await page.locator("input[value=free]").isChecked()).toBe(false);
  });

  it("uploads a file under the upload root and refuses anything outside it", async () => {
    const done = await act('upload "upload.txt" to "Attachment"');
    expect(done.action).toBe("upload");
    expect(await page.locator("#attachment").evaluate((el) => (el as HTMLInputElement).files?.[0]?.name)).toBe("upload.txt");

    await act('attach "upload.txt" to "Avatar"'); // a hidden file input behind its label
    expect(await page.locator("#avatar").evaluate((el) => (el as HTMLInputElement).files?.[0]?.name)).toBe("upload.txt");

    const outside = await failure('upload "../../../package.json" to "Attachment"');
    expect(outside.code).toBe("WF_UPLOAD_REFUSED");
    expect(outside.message).toMatch(/outside the upload root/);
    const absolute = await failure('upload "/etc/passwd" to "Attachment"');
    expect(absolute.code).toBe("WF_UPLOAD_REFUSED");
    const missing = await failure('upload "nope.txt" to "Attachment"');
    expect(missing.code).toBe("WF_UPLOAD_REFUSED");
  });
});

describe("scrolling and waiting", () => {
  it("scrolls down and up by pixels, to the bottom and top, and to an element", async () => {
    const scrollY = () => page.evaluate(() => window.scrollY);
    await act("scroll down by 300 pixels");
    expect(await scrollY()).toBe(300);
    await act("scroll up 100px");
    expect(await scrollY()).toBe(200);
    await act("scroll down");
    expect(await scrollY()).toBeGreaterThan(200);
    await act("scroll to bottom");
    const max = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
    expect(await scrollY()).toBe(max);
    await act("scroll to the top of the page");
    expect(await scrollY()).toBe(0);
    await act('scroll to "Pricing"');
    const inView = await page.locator("#pricing").evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);
  });

  it("scrolls the app's scrolling pane when the page itself cannot scroll", async () => {
    await page.goto(`${server.url}/scroll-pane.html`);
    const result = await act("scroll down by 250 pixels");
    expect(result.message).toBe("Scrolled the element #pane down by 250 px");
    expect(await page.locator("#pane").evaluate((el) => el.scrollTop)).toBe(250);
    await act("scroll to bottom");
    expect(await page.locator("#pane").evaluate((el) => el.scrollTop + el.clientHeight === el.scrollHeight)).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  });

  it("waits for text to disappear", async () => {
    await act('click "Save"');
    await act('wait until "Saving…" disappears');
    expect(await page.locator("#saving").isHidden()).toBe(true);
    expect(await page.locator("#saved").textContent()).toBe("All changes saved");
  });

  it("waits a number of seconds within the step timeout, and refuses longer waits", async () => {
    expect(await act("wait 0.1 seconds")).toMatchObject({ action: "wait", message: "Waited 100 ms" });
    const tooLong = await failure("wait 60 seconds");
    expect(tooLong.code).toBe("WF_STEP_TIMEOUT");
  });

  it("fails with WF_STEP_TIMEOUT when waited-for text never shows", async () => {
    const error = await rejection(interpreter.act(step(page, 'wait for "Never shown"', 300)));
    expect(error.code).toBe("WF_STEP_TIMEOUT");
  });

  it("stops with WF_STEP_TIMEOUT when the signal aborts", async () => {
    const controller = new AbortController();
    const pending = interpreter.act({ page, instruction: "wait 5 seconds", timeoutMs: 10_000, signal: controller.signal, secrets: [], report: {} });
    controller.abort(new Error("session closed"));
    const error = await rejection(pending);
    expect(error.code).toBe("WF_STEP_TIMEOUT");
    expect(error.message).toContain("session closed");
  });
});

describe("errors that help", () => {
  it("lists the closest candidates when nothing matches", async () => {
    const error = await failure('click "Sign in"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toMatch(/^no element matches "Sign in"\. Closest: /);
    expect(error.message).toContain('"Sign in with SSO" (link)');
    expect(error.message).toContain('"Sign up" (button)');
    expect(error.details.candidates?.slice(0, 2)).toEqual(
      expect.arrayContaining([
        { role: "link", name: "Sign in with SSO" },
        { role: "button", name: "Sign up" },
      ]),
    );
  });

  it("fails as ambiguous with the equal matches unless a role or an ordinal picks one", async () => {
    const error = await failure('click "Edit"');
    expect(error.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(error.message).toContain('3 elements match "Edit"');
    expect(error.details.candidates).toEqual([
      { role: "button", name: "Edit" },
      { role: "button", name: "Edit" },
      { role: "link", name: "Edit" },
    ]);
    const beyond = await failure('click the fourth "Edit" button');
    expect(beyond.code).toBe("WF_ELEMENT_NOT_FOUND");
  });

  it("does not act on an element that stays hidden, and says it is hidden", async () => {
    const error = await failure('click "Delete account"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toBe(
      'no visible element matches "Delete account"; only hidden ones do: "Delete account" (button). Do first what shows it (open the menu, expand the section), or wait for it (`wait for "…"`).',
    );
  });

  it("says so when nothing on the page comes close", async () => {
    const error = await failure('click "Quarterly revenue export"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toMatch(/Nothing on the page comes close; it shows .+, among others\./);
  });

  it("takes the first of several links with the same name and address (a header and a footer link)", async () => {
    const result = await act('click "Next page"');
    expect(result.target).toBe('link "Next page"');
    expect(page.url()).toMatch(/#next$/);
  });

  it("says which verbs it understands", async () => {
    const error = await failure("frobnicate the widget");
    expect(error.code).toBe("WF_INSTRUCTION_NOT_UNDERSTOOD");
    expect(error.message).toContain('click (`click "Sign in"`');
    expect(error.message).toContain("type (");
  });
});

describe("a find that may not wait", () => {
  // A lock's recorded instruction and a check's element are looked up with no wait (findTimeoutMs
  // 0): the one look still tries every way to find the element, here its title, the last but one.
  const noWait = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 0 });

  it("still looks every way once: a field named only by its title is filled", async () => {
    await noWait.act(step(page, 'fill "Nickname" with "Ada"'));
    await expect(page.locator("#nickname").inputValue()).resolves.toBe("Ada");
    await noWait.act(step(page, 'fill "Search products" with "anvil"'));
    await expect(page.locator("#search").inputValue()).resolves.toBe("anvil");
  });
});
