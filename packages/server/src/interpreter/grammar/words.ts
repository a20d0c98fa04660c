/**
 * The ACT grammar, reading values: key names (`ctrl+a` → `Control+a`), URLs, durations and the
 * words that name a tab. Pure: no browser here.
 */
import type { TabSelector } from "../types.js";
import { ORDINALS } from "./target.js";

/**
 * What names a tab: `"Invoice"` (a text of its title or URL), `second`, `2nd`, `last`, `new`
 * (the last opened), `first`, `previous`… Undefined for anything else.
 */
export function tabSelector(phrase: string, quotes: string[]): TabSelector | undefined {
  const p = phrase.trim();
  const quoted = /^«(\d+)»$/.exec(p);
  if (quoted) return { text: quotes[Number(quoted[1])] ?? "" };
  const ord = /^(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|new|newest|latest|(\d+)(?:st|nd|rd|th))$/i.exec(p);
  if (!ord) return undefined;
  if (ord[2]) return { index: Number(ord[2]) };
  const word = ord[1]!.toLowerCase();
  return { index: ["last", "new", "newest", "latest"].includes(word) ? -1 : ORDINALS[word]! };
}

/** Named keys as people write them, and Playwright's names. */
const KEY_ALIASES: Record<string, string> = {
  enter: "Enter", return: "Enter", tab: "Tab", escape: "Escape", esc: "Escape", backspace: "Backspace", delete: "Delete", del: "Delete",
  space: "Space", spacebar: "Space", up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight",
  arrowup: "ArrowUp", arrowdown: "ArrowDown", arrowleft: "ArrowLeft", arrowright: "ArrowRight",
  "arrow up": "ArrowUp", "arrow down": "ArrowDown", "arrow left": "ArrowLeft", "arrow right": "ArrowRight",
  "up arrow": "ArrowUp", "down arrow": "ArrowDown", "left arrow": "ArrowLeft", "right arrow": "ArrowRight",
  home: "Home", end: "End", pageup: "PageUp", pagedown: "PageDown", "page up": "PageUp", "page down": "PageDown", insert: "Insert",
  ctrl: "Control", control: "Control", cmd: "Meta", command: "Meta", meta: "Meta", win: "Meta", shift: "Shift", alt: "Alt", option: "Alt",
  controlormeta: "ControlOrMeta",
};

/**
 * Turns a key as written (`enter`, `ctrl+a`, `Arrow Down`) into Playwright's key name, or
 * undefined when it is not a key (then `press "Submit"` is a click).
 */
export function normalizeKey(raw: string): string | undefined {
  const parts = raw.trim().split(/\s*\+\s*/);
  const out: string[] = [];
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (KEY_ALIASES[lower]) out.push(KEY_ALIASES[lower]);
    else if (/^f(?:[1-9]|1[0-2])$/i.test(part)) out.push(part.toUpperCase());
    else if (part.length === 1) out.push(part);
    else return undefined;
  }
  return out.length > 0 ? out.join("+") : undefined;
}

/** Milliseconds in one `unit` as written (`ms`, `s`, `seconds`, `min`…); seconds when absent. */
export function unitMs(unit: string | undefined): number {
  if (!unit) return 1000;
  const u = unit.toLowerCase();
  if (u.startsWith("ms") || u.startsWith("milli")) return 1;
  if (u.startsWith("m")) return 60_000;
  return 1000;
}

/** True for what reads as a URL: a scheme, a path, `localhost`, an IP or a dotted host. */
export function looksLikeUrl(raw: string): boolean {
  if (/\s/.test(raw) || raw.length === 0) return false;
  return (
    /^[a-z][a-z0-9+.-]*:/i.test(raw) ||
    raw.startsWith("/") ||
    raw.startsWith("./") ||
    raw.startsWith("?") ||
    raw.startsWith("#") ||
    /^(?:localhost|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#]|$)/i.test(raw) ||
    /^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#]|$)/i.test(raw)
  );
}
