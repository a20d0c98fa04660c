/**
 * What a not-found error lists: the interactive elements a person could have meant, closest to the
 * text first (from Playwright's ARIA snapshot, in every searched frame), and the custom elements
 * whose content no one can reach (closed shadow roots).
 */
import type { Page } from "playwright-core";
import type { ElementCandidate } from "../errors.js";
import { framePhrase, type SearchRoot } from "./frames.js";
import { INTERACTIVE } from "./strategies.js";
import { similarity } from "../_text.js";

/** Roles listed as candidates when nothing matches (not `option`: a select's options are noise there). */
const CANDIDATE_ROLES = new Set<string>([...INTERACTIVE.filter((r) => r !== "option"), "heading", "img"]);
/** Candidates at least this {@link similarity} are "close"; when none is, the first few on the page are listed instead. */
export const MIN_SIMILARITY = 0.35;
/** What {@link closestCandidates} found, and whether it looked at the whole page. */
export interface CandidateSearch {
  candidates: ElementCandidate[];
  /** False when the page was too large to read whole within the budget: other elements may exist. */
  complete: boolean;
}

/** Most elements the quick in-page scan names (a huge page's first ones). */
const SCAN_LIMIT = 5_000;

/**
 * Lists the elements a person could have meant: the accessible names of the page's interactive
 * elements (from Playwright's ARIA snapshot), the closest to `text` first. On a page too large to
 * snapshot within `budgetMs`, a quick scan of its interactive elements (their labels and text, the
 * first {@link SCAN_LIMIT}, within what is left of the budget) stands in, and the search says it
 * is not complete.
 */
export async function closestCandidates(
  page: Page,
  text: string,
  limit = 5,
  roots: SearchRoot[] = [{ root: page, frames: [] }],
  budgetMs = 3_000,
): Promise<CandidateSearch> {
  const deadline = Date.now() + budgetMs;
  const seen = new Set<string>();
  const all: Array<ElementCandidate & { score: number }> = [];
  let complete = true;
  for (const root of roots) {
    const left = deadline - Date.now();
    if (left <= 0) {
      complete = false;
      break;
    }
    let found: ElementCandidate[];
    try {
      found = snapshotCandidates(await root.root.locator("body").ariaSnapshot({ timeout: Math.max(1, Math.min(2_000, left)) }));
    } catch {
      const scanned = await root.root
        .locator("body")
        .evaluate(scanInteractive, [SCAN_LIMIT, Math.max(200, deadline - Date.now())] as [number, number], { timeout: Math.max(1_000, deadline - Date.now() + 1_000) })
        .catch(() => ({ found: [] as ElementCandidate[], complete: false }));
      found = scanned.found.filter((c) => CANDIDATE_ROLES.has(c.role));
      if (!scanned.complete) complete = false;
    }
    const frame = framePhrase(root.frames);
    for (const candidate of found) {
      const key = `${candidate.role}\u0000${candidate.name}\u0000${frame}`;
      if (seen.has(key)) continue;
      seen.add(key);
      all.push({ ...candidate, ...(frame ? { frame } : {}), score: similarity(text, candidate.name) });
    }
  }
  all.sort((a, b) => b.score - a.score);
  const close = all.filter((c) => c.score >= MIN_SIMILARITY);
  return { candidates: (close.length ? close : all).slice(0, limit).map(({ score: _score, ...candidate }) => candidate), complete };
}

/**
 * In-page: the interactive elements of `body` as role and name (aria-label, else their text, value,
 * placeholder, title or alt), the first `limit`, stopping after `budgetMs`. `complete` is false
 * when it stopped early.
 */
const scanInteractive = new Function(
  "body",
  "args",
  String.raw`var limit = args[0], until = performance.now() + args[1];
  var all = body.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=tab], [role=menuitem], [role=checkbox], [role=radio], [role=switch], [role=combobox], [role=textbox], h1, h2, h3, h4, h5, h6, img[alt]");
  var out = [], complete = true;
  for (var i = 0; i < all.length; i++) {
    if (out.length >= limit || (i % 200 === 0 && performance.now() > until)) { complete = false; break; }
    var el = all[i], tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    var role = el.getAttribute("role") || (tag === "a" ? "link" : tag === "button" || tag === "summary" ? "button" : tag === "select" ? "combobox" : tag === "textarea" ? "textbox" :
      tag === "img" ? "img" : /^h[1-6]$/.test(tag) ? "heading" : tag === "input" ? (type === "checkbox" ? "checkbox" : type === "radio" ? "radio" : type === "submit" || type === "button" || type === "reset" ? "button" : "textbox") : "");
    var name = (el.getAttribute("aria-label") || el.textContent || el.value || el.getAttribute("placeholder") || el.getAttribute("title") || el.getAttribute("alt") || "").replace(/\s+/g, " ").trim().slice(0, 200);
    if (role && name) out.push({ role: role, name: name });
  }
  return { found: out, complete: complete };`,
) as (body: Element, args: [number, number]) => { found: ElementCandidate[]; complete: boolean };

/** The interactive elements an ARIA snapshot lists, as role and name. */
function snapshotCandidates(snapshot: string): ElementCandidate[] {
  const out: ElementCandidate[] = [];
  for (const line of snapshot.split("\n")) {
    const m = line.match(/^\s*-\s+['"]?([a-z]+)\s+"((?:[^"\\]|\\.)*)"/);
    if (!m || !CANDIDATE_ROLES.has(m[1]!)) continue;
    let name = m[2]!;
    try {
      name = JSON.parse(`"${name}"`) as string;
    } catch {
      // keep the raw text
    }
    if (name) out.push({ role: m[1]!, name });
  }
  return out;
}

/**
 * In-page: tag names of custom elements that render something but have no open shadow root and no
 * children of their own: their content is in a closed shadow root, out of everyone's reach.
 */
export const closedComponents = new Function(
  String.raw`return function () {
    var out = [];
    var all = document.body ? document.body.querySelectorAll("*") : [];
    for (var i = 0; i < all.length && out.length < 5; i++) {
      var el = all[i];
      if (el.tagName.indexOf("-") < 0 || el.shadowRoot || el.childElementCount > 0) continue;
      var r = el.getBoundingClientRect();
      var tag = el.tagName.toLowerCase();
      if (r.width > 0 && r.height > 0 && out.indexOf(tag) < 0) out.push(tag);
    }
    return out;
  }`,
)() as () => string[];
