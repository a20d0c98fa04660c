import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACT_GRAMMAR, normalizeKey, parseInstruction, parseInstructions, parseTarget, extractQuotes } from "./index.js";
import { InterpreterError } from "../errors.js";

describe("ACT_GRAMMAR", () => {
  const readme = readFileSync(new URL("../../../README-interpreter.md", import.meta.url), "utf8");
  const examples = ACT_GRAMMAR.flatMap((rule) => rule.examples.map((example) => ({ rule, example })));

  it.each(examples)("parses its own example `$example`, and the README documents it", ({ rule, example }) => {
    const action = parseInstruction(example);
    expect(action.verb.replace(/-.*/, "")).toBe(rule.verb); // scroll-to → scroll, wait-text → wait, type-focused → type
    expect(readme).toContain(`\`${example}\``);
  });
});

describe("parseInstruction", () => {
  it.each([
    ['go to "https://example.com/a"', { verb: "goto", url: "https://example.com/a" }],
    ["Open localhost:8080/login", { verb: "goto", url: "localhost:8080/login" }],
    ['Open "localhost:8080/login".', { verb: "goto", url: "localhost:8080/login" }],
    ["please go back", { verb: "back" }],
    ["Refresh", { verb: "reload" }],
    ['click the "Save" button', { verb: "click", target: { text: "Save", quoted: true, roles: ["button"], roleWord: "button" } }],
    ['Click link "Docs"', { verb: "click", target: { text: "Docs", quoted: true, roles: ["link"], roleWord: "link" } }],
    ["tap on the last link", { verb: "click", target: { text: "", quoted: false, ordinal: -1, roles: ["link"], roleWord: "link" } }],
    ["click Sign in button", { verb: "click", target: { text: "Sign in", quoted: false, roles: ["button"], roleWord: "button" } }],
    ['go to "Settings"', { verb: "click", target: { text: "Settings", quoted: true } }],
    ['press "Submit"', { verb: "click", target: { text: "Submit", quoted: true } }],
    ["click 'Don't save'", { verb: "click", target: { text: "Don't save", quoted: true } }],
    ["click “Weiter”", { verb: "click", target: { text: "Weiter", quoted: true } }],
    ['type "a b" into the "Full name" field', { verb: "fill", text: "a b", typed: true, target: { text: "Full name", quoted: true, roles: ["textbox", "searchbox", "combobox", "spinbutton"], roleWord: "field" } }],
    ['press "ctrl+a" in "Notes"', { verb: "press", key: "Control+a", target: { text: "Notes", quoted: true } }],
    ["hit escape", { verb: "press", key: "Escape" }],
    ['select "1.5" in "Version"', { verb: "select", option: "1.5", target: { text: "Version", quoted: true } }],
    ['choose "docs/a.pdf" for "Attachment"', { verb: "upload", path: "docs/a.pdf", target: { text: "Attachment", quoted: true } }],
    ['switch to the "Invoice" tab', { verb: "switch-tab", tab: { text: "Invoice" } }],
    ["Switch back to the first tab.", { verb: "switch-tab", tab: { index: 1 } }],
    ["switch to the new window", { verb: "switch-tab", tab: { index: -1 } }],
    ["switch to tab 3", { verb: "switch-tab", tab: { index: 3 } }],
    ["close the current tab", { verb: "close-tab", tab: { current: true } }],
    ["close the 2nd tab", { verb: "close-tab", tab: { index: 2 } }],
    // A tab of the page, not of the browser: clicked.
    ['go to the "Invoice" tab', { verb: "click", target: { text: "Invoice", quoted: true, roles: ["tab"], roleWord: "tab" } }],
    ['click the "Invoice" tab', { verb: "click", target: { text: "Invoice", quoted: true, roles: ["tab"], roleWord: "tab" } }],
    ['tick the 2nd "Agree" box', { verb: "check", target: { text: "Agree", quoted: true, ordinal: 2, roles: ["checkbox", "textbox", "searchbox", "combobox"], roleWord: "box" } }],
    ["scroll", { verb: "scroll", direction: "down" }],
    ["scroll page up by 120 px", { verb: "scroll", direction: "up", pixels: 120 }],
    ["scroll all the way down to the bottom", { verb: "scroll-edge", edge: "bottom" }],
    ["wait 1.5 s", { verb: "wait-time", ms: 1500 }],
    ["wait for the text 'Welcome back' to appear", { verb: "wait-text", text: "Welcome back" }],
  ] as const)("%s", (instruction, expected) => {
    expect(parseInstruction(instruction)).toEqual(expected);
  });

  it("throws WF_INSTRUCTION_NOT_UNDERSTOOD listing verbs with examples", () => {
    let error: unknown;
    try {
      parseInstruction("make it pop");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InterpreterError);
    expect((error as InterpreterError).code).toBe("WF_INSTRUCTION_NOT_UNDERSTOOD");
    expect((error as InterpreterError).message).toMatch(/^Instruction not understood: "make it pop"\. The deterministic interpreter understands: goto \(`go to "https:\/\/example.com"`/);
  });
});

describe("parseInstructions", () => {
  it("splits chained actions before a verb, outside quotes", () => {
    expect(parseInstructions('type "pg" into "Search" and press Enter').map((a) => a.verb)).toEqual(["fill", "press"]);
    expect(parseInstructions('click "Menu", then click "Log out"; wait 1 second').map((a) => a.verb)).toEqual(["click", "click", "wait-time"]);
    expect(parseInstructions('click "Open invoice" and switch to the first tab, then close this tab').map((a) => a.verb)).toEqual(["click", "switch-tab", "close-tab"]);
    expect(parseInstructions('click "Save and click here"')).toHaveLength(1);
    expect(parseInstructions("click Terms and Conditions")).toEqual([{ verb: "click", target: { text: "Terms and Conditions", quoted: false } }]);
  });

  it("never drops words silently: what is neither a role nor filler is not understood", () => {
    expect(() => parseInstructions('click "Menu" and then frobnicate')).toThrow(/\(did not understand "and then frobnicate"\)/);
    expect(() => parseInstructions('click "Menu" and then check "Agree" twice')).toThrow(/\(the part "check \\"Agree\\" twice": did not understand "twice"\)/);
    expect(parseInstructions('click the "Save" button below to continue')).toEqual([
      { verb: "click", target: { text: "Save", quoted: true, roles: ["button"], roleWord: "button" } },
    ]);
  });
});

describe("issue 9 forms", () => {
  it("reads scopes after the target, quoted or not, nested innermost first", () => {
    expect(parseInstruction('click "Edit" in the "Billing" section')).toEqual({ verb: "click", target: { text: "Edit", quoted: true, scopes: [{ kind: "section", text: "Billing" }] } });
    expect(parseInstruction("click Edit under the Billing section")).toMatchObject({ target: { text: "Edit", scopes: [{ kind: "section", text: "Billing" }] } });
    expect(parseInstruction('click the "OK" button inside the dialog')).toMatchObject({ target: { text: "OK", roles: ["button"], scopes: [{ kind: "dialog", text: "" }] } });
    expect(parseInstruction('click the "[...]" expander in the "status" row of the "Order" schema')).toMatchObject({
      target: { text: "[...]", roles: ["button"], scopes: [{ kind: "row", text: "status" }, { kind: "section", text: "Order" }] },
    });
    expect(parseInstruction('type "x" into "Email" within the "Signup" form')).toMatchObject({ target: { text: "Email", scopes: [{ kind: "form", text: "Signup" }] } });
  });

  it("reads a frame scope: an iframe by its title, name, aria-label or id, nested frames innermost first, any frame", () => {
    expect(parseInstruction('click "Pay" in the "Payment" frame')).toEqual({ verb: "click", target: { text: "Pay", quoted: true, scopes: [{ kind: "frame", text: "Payment" }] } });
    expect(parseInstruction('type "x" into "Email" inside the "checkout" iframe')).toMatchObject({ target: { text: "Email", scopes: [{ kind: "frame", text: "checkout" }] } });
    expect(parseInstruction('click the "Apply" button in the "Promo" frame of the "checkout" frame')).toMatchObject({
      target: { text: "Apply", roles: ["button"], scopes: [{ kind: "frame", text: "Promo" }, { kind: "frame", text: "checkout" }] },
    });
    expect(parseInstruction('click "Save" in the "Billing" section of the frame')).toMatchObject({ target: { scopes: [{ kind: "section", text: "Billing" }, { kind: "frame", text: "" }] } });
    expect(parseInstruction('click "OK" in the frame')).toMatchObject({ target: { text: "OK", scopes: [{ kind: "frame", text: "" }] } });
  });

  it("reads the sentences people write", () => {
    expect(parseInstruction("Go to the library index at http://127.0.0.1:8080/lib/")).toEqual({ verb: "goto", url: "http://127.0.0.1:8080/lib/" });
    expect(parseInstruction("open the Settings page")).toMatchObject({ verb: "click" });
    expect(parseInstruction("Search for 'dataclass'")).toEqual({ verb: "search", text: "dataclass" });
    expect(parseInstruction("fill the search box with dataclass")).toMatchObject({ verb: "fill", text: "dataclass", target: { text: "search" } });
    expect(parseInstruction("Wait for the search results to finish loading")).toEqual({ verb: "wait-settled" });
    expect(parseInstruction("wait until the page has loaded")).toEqual({ verb: "wait-settled" });
    expect(parseInstruction('wait for "Saved"')).toEqual({ verb: "wait-text", text: "Saved" });
  });

  it("fails fast on a wait that names nothing checkable", () => {
    expect(() => parseInstruction("wait until the spinner disappears")).toThrow(/names nothing the grammar can check/);
    expect(() => parseInstruction("wait for the confirmation to appear")).toThrow(/names nothing the grammar can check/);
  });
});

describe("the grammar never guesses (issue 31)", () => {
  it("splits a compound instruction before every verb, so `… and then submit the form` is never part of a value", () => {
    expect(() => parseInstructions("fill in the name field with Ada and then submit the form")).toThrow(/the part "submit the form"/);
    expect(() => parseInstructions("fill in the name field with Ada and submit")).toThrow(/Instruction not understood/);
    expect(parseInstructions('fill "Name" with "Ada" and then click "Save"').map((a) => a.verb)).toEqual(["fill", "click"]);
    expect(parseInstructions('type "pg" into "Search", then press Enter').map((a) => a.verb)).toEqual(["fill", "press"]);
  });

  it("refuses an unquoted value that says `then`, saying how to quote it; a quoted one is one text", () => {
    expect(() => parseInstruction("fill the name field with Ada, then Grace")).toThrow(/reads as several actions\. Quote the value/);
    expect(() => parseInstruction("search for pg then docs")).toThrow(/reads as several actions/);
    expect(parseInstruction('fill the notes with "Ada, then Grace"')).toMatchObject({ verb: "fill", text: "Ada, then Grace" });
  });

  it("`submit` names an element only when quoted: `submit the form` is no guess at its button", () => {
    expect(() => parseInstruction("submit the form")).toThrow(/Instruction not understood/);
    expect(parseInstruction('submit "Send"')).toMatchObject({ verb: "click", target: { text: "Send" } });
  });

  it("opens an unquoted URL exactly as written, and refuses one whose last character may end the sentence", () => {
    expect(parseInstruction("go to https://example.com/wiki/Foo_(bar)")).toEqual({ verb: "goto", url: "https://example.com/wiki/Foo_(bar)" });
    expect(parseInstruction("go to https://example.com/?q=a!b")).toEqual({ verb: "goto", url: "https://example.com/?q=a!b" });
    for (const end of ["!", ".", "?", ",", ";", ":", ")"]) {
      expect(() => parseInstruction(`go to https://example.com/?pw=abc${end}`), end).toThrow(/which may end the sentence or belong to the URL.*Quote the URL/);
    }
    expect(() => parseInstructions("Open localhost:8080/login.")).toThrow(/go to "localhost:8080\/login\."/);
    expect(parseInstruction('go to "https://example.com/?pw=abc!"')).toEqual({ verb: "goto", url: "https://example.com/?pw=abc!" });
    expect(parseInstruction('click "Save".')).toMatchObject({ verb: "click", target: { text: "Save" } });
  });

  it("marks the `set … to` form, which may fill a text field; `select … in` picks an option only", () => {
    expect(parseInstruction('set "Name" to "Ada"')).toMatchObject({ verb: "select", option: "Ada", set: true });
    expect(parseInstruction('select "Ada" in "Name"')).not.toHaveProperty("set");
  });
});

describe("pieces", () => {
  it("cuts quotes out without taking apostrophes for quotes", () => {
    expect(extractQuotes(`type "it's" into 'Notes'`)).toEqual({ text: "type «0» into «1»", quotes: ["it's", "Notes"] });
  });
  it("reads ordinals and role words on either side of the text", () => {
    expect(parseTarget("the third «0» tab", ["Billing"])).toEqual({ text: "Billing", quoted: true, ordinal: 3, roles: ["tab"], roleWord: "tab" });
    expect(parseTarget("button «0»", ["OK"])).toMatchObject({ text: "OK", roles: ["button"] });
  });
  it("names keys as Playwright does", () => {
    expect(normalizeKey("Arrow Down")).toBe("ArrowDown");
    expect(normalizeKey("cmd+shift+k")).toBe("Meta+Shift+k");
    expect(normalizeKey("f5")).toBe("F5");
    expect(normalizeKey("Submit")).toBeUndefined();
  });
});

describe("the forms of issue 24 parse (and so `wf plan` / `wf check` read them as grammar)", () => {
  it.each([
    ['click "Archive done"', { verb: "click", target: { text: "Archive done", quoted: true } }],
    ['click the "Save" button inside the dialog', { verb: "click", target: { text: "Save", quoted: true, roles: ["button"], roleWord: "button", scopes: [{ kind: "dialog", text: "" }] } }],
    ['click "Cancel" in the "Display settings" dialog', { verb: "click", target: { text: "Cancel", quoted: true, scopes: [{ kind: "dialog", text: "Display settings" }] } }],
    ['select "updated" from "sort"', { verb: "select", option: "updated", target: { text: "sort", quoted: true } }],
    [
      'click the "[...]" expander in the "status" row of the Order schema',
      { verb: "click", target: { text: "[...]", quoted: true, roles: ["button"], roleWord: "expander", scopes: [{ kind: "row", text: "status" }, { kind: "section", text: "Order" }] } },
    ],
  ] as const)("%s", (instruction, expected) => {
    expect(parseInstruction(instruction)).toEqual(expected);
  });
});
