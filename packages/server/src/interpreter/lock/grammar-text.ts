/**
 * Grammar instructions written back from actions: what the model interpreter and a healed replay
 * report as `resolved` and record in the action lock, e.g. `click the "Sign in" button`. Every text
 * written here parses back through `parseInstructions` to the same action.
 */
import type { ParsedAction, ScopeSpec, TargetSpec } from "../grammar/index.js";
import { recordedFrames } from "./recorded-locator.js";
import type { ElementIdentity, TabSelector } from "../types.js";

/** The grammar's word for a role, as written in a resolved instruction. */
export const ROLE_WORDS: Record<string, string> = {
  button: "button",
  link: "link",
  checkbox: "checkbox",
  radio: "radio button",
  switch: "switch",
  textbox: "field",
  searchbox: "field",
  spinbutton: "field",
  combobox: "dropdown",
  listbox: "dropdown",
  tab: "tab",
  menuitem: "menu item",
  menuitemcheckbox: "menu item",
  menuitemradio: "menu item",
  option: "option",
  heading: "heading",
  img: "image",
};

/**
 * Writes an action as the grammar instruction that does the same: `click the "Sign in" button`.
 * An element inside an iframe gets the frame scope, from the target's frame scopes or else from the
 * frames its identity's locator goes through: `click the "Pay" button in the "Payment" frame`.
 */
export function grammarText(action: ParsedAction, identity?: ElementIdentity): string {
  const target = (t: TargetSpec) => {
    const ordinal = t.ordinal === undefined ? "" : `${t.ordinal === -1 ? "last" : (["", "first", "second", "third", "fourth", "fifth"][t.ordinal] ?? `${t.ordinal}th`)} `;
    const word = t.roleWord ?? (identity ? ROLE_WORDS[identity.role] : undefined);
    const where = scopeText((t.scopes ?? []).filter((sc) => sc.kind !== "frame")) + frameScope(t, identity);
    if (!t.text) return `the ${ordinal}${word ?? "element"}${where}`;
    return `the ${ordinal}${quote(t.text)}${word ? ` ${word}` : ""}${where}`;
  };
  switch (action.verb) {
    case "goto":
      return `go to ${quote(action.url)}`;
    case "back":
    case "forward":
      return `go ${action.verb}`;
    case "reload":
      return "reload";
    case "click":
      return `click ${target(action.target)}`;
    case "dblclick":
      return `double-click ${target(action.target)}`;
    case "rightclick":
      return `right-click ${target(action.target)}`;
    case "hover":
      return `hover over ${target(action.target)}`;
    case "fill":
      return `type ${quote(action.text)} into ${target(action.target)}`;
    case "clear":
      return `clear ${target(action.target)}`;
    case "select":
      return `select ${quote(action.option)} in ${target(action.target)}`;
    case "check":
    case "uncheck":
      return `${action.verb} ${target(action.target)}`;
    case "press":
      return action.target ? `press ${quote(action.key)} in ${target(action.target)}` : `press ${quote(action.key)}`;
    case "scroll-to":
      return `scroll to ${target(action.target)}`;
    case "upload":
      return `upload ${quote(action.path)} to ${target(action.target)}`;
    case "switch-tab":
      return `switch to ${tabText(action.tab)}`;
    case "close-tab":
      return `close ${tabText(action.tab)}`;
    default:
      return action.verb;
  }
}

/** The grammar's word for a place (a `card` scope is written `item`, which the grammar reads as one). */
const SCOPE_WORDS: Record<ScopeSpec["kind"], string> = {
  section: "section",
  dialog: "dialog",
  row: "row",
  list: "list",
  table: "table",
  form: "form",
  card: "item",
  region: "region",
  frame: "frame",
};

/** ` in the "Pay rent" item in the "Tasks" section` (with a space before): places innermost first, as the grammar reads them. */
export function scopeText(scopes: readonly ScopeSpec[]): string {
  return scopes.map((sc) => ` in the ${sc.text ? `${quote(sc.text)} ` : ""}${SCOPE_WORDS[sc.kind]}`).join("");
}

/** ` in the "Promo" frame of the "Checkout" frame` (innermost first), or "" for an element of the main frame. */
function frameScope(t: TargetSpec, identity?: ElementIdentity): string {
  const written = t.scopes?.filter((sc) => sc.kind === "frame").map((sc) => sc.text);
  const names = written?.length ? written : identity?.locator ? recordedFrames(identity.locator).reverse() : [];
  return names.map((name, i) => ` ${i === 0 ? "in" : "of"} the ${name ? `${quote(name)} ` : ""}frame`).join("");
}

/** A tab as the grammar names it: `this tab`, `the "Invoice" tab`, `the second tab`, `the last tab`, `the 12th tab`. */
function tabText(tab: TabSelector): string {
  if ("current" in tab) return "this tab";
  if ("text" in tab) return `the ${quote(tab.text)} tab`;
  if (tab.index === -1) return "the last tab";
  const words = ["", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  const n = tab.index;
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return `the ${words[n] ?? `${n}${suffix}`} tab`;
}

/** Quotes a text for an instruction, with a quote character it does not contain. */
function quote(text: string): string {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return `“${text}”`;
}
