/**
 * The look that finds an action's element reads the facts the check before the action judges
 * (role, disabled, read-only, kind of control, visible) in the same round trip, so the grammar
 * does not read them again: they must be the facts of the element the action goes through (the
 * control a label names, not the label), as a live read of that element gives them.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { locateTarget, type TargetPurpose } from "../../src/interpreter/locate/index.js";
import { elementFacts } from "../../src/interpreter/page/index.js";
import type { TargetSpec } from "../../src/interpreter/grammar/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { usePages } from "./_setup.js";

let server: StaticServer;
let page: Page;

usePages((test) => ({ server, page } = test));

const targets: Array<[string, TargetPurpose, Partial<ReturnType<typeof elementFacts>>]> = [
  ["Email", "fill", { role: "textbox", editable: true, disabled: false, visible: true }],
  ["Password", "fill", { editable: true, visible: true }],
  ["Country", "select", { nativeSelect: true }],
  ["Remember me", "check", { role: "checkbox", nativeCheckable: true }],
  ["Avatar", "upload", { fileInput: true }],
  ["Sign up", "click", { role: "button", editable: false }],
  ["Size", "click", { role: "combobox" }],
];

describe("the facts of a found element", () => {
  it.each(targets)("%s (%s): read by the look that found it, the same as a live read of the element acted on", async (text, purpose, expected) => {
    await page.goto(`${server.url}/form.html`);
    const found = await locateTarget(page, { text } as TargetSpec, purpose, 1_000);
    expect(found.facts).toMatchObject(expected);
    expect(found.facts).toEqual(await found.locator.evaluate(elementFacts));
  });

  it("a field the page has just disabled is read as disabled by the look that finds it", async () => {
    await page.goto(`${server.url}/form.html`);
    await page.locator("#email").evaluate((el) => ((el as HTMLInputElement).disabled = true));
    const found = await locateTarget(page, { text: "Email" } as TargetSpec, "fill", 1_000);
    expect(found.facts).toMatchObject({ disabled: true });
  });
});
