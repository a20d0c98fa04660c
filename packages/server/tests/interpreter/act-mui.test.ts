/**
 * A Material UI app as it renders (issue 32): names as the accessibility tree has them (CSS
 * `text-transform` and `aria-hidden` text left out, a dialog named through `aria-labelledby`), an
 * open autocomplete's suggestions as options to pick, and a field whose only text is its helper line
 * (`aria-describedby`). The page view is checked against Playwright's own name computation: every
 * element it refers to is found by `getByRole(role, { name, exact: true })`.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { readPageView } from "../../src/interpreter/page/index.js";
import { step, usePages } from "./_setup.js";

let page: Page;
const interpreter = createDeterministicInterpreter({ findTimeoutMs: 5_000 });

function act(instruction: string) {
  return interpreter.act(step(page, instruction, 20_000));
}
const log = async () => (await page.locator("#log").textContent()) ?? "";

usePages((test) => ({ page } = test), "mui-app.html");

/** The model's ACT view of the page as it is now. */
async function view() {
  return readPageView(page, { purpose: "act", query: "", budgetTokens: 20_000, secrets: [] }, () => 10_000);
}

/** Each element of the view that Playwright's `getByRole(role, { name, exact: true })` does not find (it must find all). */
async function notPlaywrightsNames(elements: Awaited<ReturnType<typeof view>>["elements"]): Promise<string[]> {
  const wrong: string[] = [];
  for (const element of elements) {
    const byRole = page.getByRole(element.role as Parameters<Page["getByRole"]>[0], { name: element.name, exact: true });
    const same = await byRole.evaluateAll((els, target) => els.includes(target!), await page.locator(element.selector).elementHandle());
    if (!same) wrong.push(`${element.role} ${JSON.stringify(element.name)}`);
  }
  return wrong;
}

describe("names as the accessibility tree has them", () => {
  it("writes buttons and tabs by their accessible names, with the uppercased text they show beside", async () => {
    const shown = await view();
    expect(shown.text).toMatch(/\[e\d+\] button "Login" \(shows "LOGIN"\)/);
    expect(shown.text).toMatch(/\[e\d+\] tab "Readme" \(shows "README"\) \(selected\) \[e\d+\] tab "Dependencies" \(shows "DEPENDENCIES"\)/);
    // The focus trap's empty sentinels and the aria-hidden outline are not elements.
    expect(shown.text).not.toMatch(/\] button$/m);
    expect(shown.text).not.toContain('"LOGIN" (');
    expect(await notPlaywrightsNames(shown.elements)).toEqual([]);
    expect((await act('click "Dependencies"')).target).toBe('tab "Dependencies"');
    expect((await act('click the "Login" button')).target).toBe('button "Login"');
    expect(await log()).toBe("tab Dependencies;");
  });

  it("names a dialog through aria-labelledby and a required field without its aria-hidden asterisk", async () => {
    await act('click the "Login" button');
    const shown = await view();
    // Chromium's name: its aria-labelledby title holds only the close button.
    expect(shown.text).toMatch(/^\s*dialog "Close":$/m);
    expect(shown.text).toMatch(/\[e\d+\] textbox "Email" = \(empty\)/);
    expect(shown.text).toMatch(/\[e\d+\] textbox "Password" = \(hidden\)|\[e\d+\] textbox "Password" = \(empty\)/);
    expect(shown.text).not.toContain("Email *");
    // MUI hides the rest of the page while its modal is open: the app bar's "Login" is not shown.
    expect(shown.elements.filter((e) => e.name === "Login")).toHaveLength(1);
    expect(await notPlaywrightsNames(shown.elements)).toEqual([]);

    expect((await act('type "ada@example.com" into the "Email" field')).target).toBe('textbox "Email"');
    // Scoped by the title it shows, or by its accessible name.
    expect((await act('type "hunter2" into "Password" in the "Sign in to npm explorer" dialog')).target).toBe('textbox "Password" in the "Sign in to npm explorer" dialog');
    expect((await act('click the "Login" button in the "Close" dialog')).target).toBe('button "Login" in the "Close" dialog');
    expect(await log()).toBe("login ada@example.com;");
  });
});

describe("an open autocomplete", () => {
  it("lists its suggestions as options of their own, each one to click", async () => {
    await act('type "react" into "Search packages"');
    const shown = await view();
    // The popper MUI renders at the end of <body>: the list, then each suggestion on its own line.
    expect(shown.text).toMatch(/^\[e\d+\] listbox:\n  \[e\d+\] option "react React/m);
    const options = shown.elements.filter((e) => e.role === "option").map((e) => e.name);
    expect(options).toEqual([
      "react React is a JavaScript library for building user interfaces. 18.3.1",
      "react-dom React package for working with the DOM. 18.3.1",
      "react-router Declarative routing for React 6.26.2",
    ]);
    for (const name of options) expect(shown.text).toContain(`option ${JSON.stringify(name)}`);
    expect(await notPlaywrightsNames(shown.elements)).toEqual([]);
  });

  it("picks a suggestion by the name it leads with: `select … from the suggestions`, `click the … option`", async () => {
    await act('type "react" into "Search packages"');
    const picked = await act('select "react-dom" from the suggestions');
    expect(picked.target).toBe('option "react-dom React package for working with the DOM. 18.3.1"');
    expect(await log()).toBe("picked react-dom;");
    await page.locator("#search-box").fill("");
    await act('type "react" into "Search packages"');
    await act('click the "react-router" option');
    expect(await log()).toBe("picked react-dom;picked react-router;");
    expect(await page.locator("#search-box").inputValue()).toBe("react-router");
  });
});

describe("a field named only by its helper text", () => {
  it("is found by the aria-describedby line under it", async () => {
    const typed = await act('type "body" into the filter packages field');
    expect(typed.target).toBe('textbox "filter packages"');
    expect(await log()).toBe("filter body;");
    expect((await view()).text).toMatch(/\[e\d+\] textbox = "body" description "Filter packages by name or keyword"$/m);
  });
});
