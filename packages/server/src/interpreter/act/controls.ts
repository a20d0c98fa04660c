/**
 * The elements a verb reaches from the one it found: the checkbox beside an item's text
 * (`check "Buy milk"`), the options a custom dropdown shows once open, a `<select>`'s option as a
 * person names it, and a tab of the page (role `tab`) when no browser tab has the name.
 */
import type { Page } from "playwright-core";
import { InterpreterError } from "../errors.js";
import type { FoundElement } from "../locate/index.js";
import { words } from "../_text.js";

/** The one visible tab of the page (role `tab`) named `name`, exactly then loosely; undefined when none or several. */
export async function pageTabNamed(page: Page, name: string): Promise<ReturnType<Page["getByRole"]> | undefined> {
  for (const exact of [true, false]) {
    const tabs = page.getByRole("tab", { name, exact }).filter({ visible: true });
    const count = await tabs.count();
    if (count === 1) return tabs;
    if (count > 1) return undefined;
  }
  return undefined;
}
/** Roles `check` and `uncheck` act on directly. */
export const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);

/**
 * `check "Buy milk"` found the text, not a checkbox: the one checkbox (radio, switch) of the
 * smallest element around it that has one — its list item, row, label or card.
 * @throws {@link InterpreterError} `WF_ELEMENT_NOT_FOUND` when there is none or several.
 */
export async function checkboxOfItem(el: FoundElement): Promise<FoundElement> {
  const box = el.locator
    .locator("xpath=ancestor-or-self::*[.//input[@type='checkbox' or @type='radio'] or .//*[@role='checkbox' or @role='switch' or @role='radio']][1]")
    .first()
    .locator("input[type=checkbox], input[type=radio], [role=checkbox], [role=switch], [role=radio]");
  const count = await box.count();
  if (count !== 1) {
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `${el.description} is not a checkbox, radio button or switch, and ${count ? `its item holds ${count} of them` : "none is beside it"}. Name the checkbox itself (\`check the "…" checkbox\`).`,
      { target: el.name, candidates: [{ role: el.role, name: el.name }] },
    );
  }
  const name = await box.evaluate((node) => (node as HTMLElement).getAttribute("aria-label") ?? "");
  return { locator: box, description: `checkbox beside ${el.description}`, href: "", role: "checkbox", name: name || el.name };
}

/** The accessible names of the visible elements with one of `roles` (a custom dropdown's options once open). */
export async function visibleOptions(page: Page, roles: string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const role of roles) {
    const loc = page.getByRole(role as Parameters<Page["getByRole"]>[0]);
    for (const text of await loc.evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetParent !== null || e.getClientRects().length > 0).map((e) => (e.textContent ?? "").replace(/\s+/g, " ").trim()))) {
      if (text) names.add(text);
    }
  }
  return [...names];
}
/** The option a person meant: exact label, exact value, then case/space-insensitive, then a unique substring. */
export function pickOption(options: Array<{ value: string; label: string }>, wanted: string): { value: string; label: string } | undefined {
  const norm = (s: string) => words(s).join(" ");
  const w = norm(wanted);
  return (
    options.find((o) => o.label === wanted) ??
    options.find((o) => o.value === wanted) ??
    options.find((o) => norm(o.label) === w || norm(o.value) === w) ??
    (() => {
      const subs = options.filter((o) => w && norm(o.label).includes(w));
      return subs.length === 1 ? subs[0] : undefined;
    })()
  );
}
