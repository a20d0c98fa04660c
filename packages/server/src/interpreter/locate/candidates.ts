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
/**
 * Lists the elements a person could have meant: the accessible names of the page's interactive
 * elements (from Playwright's ARIA snapshot), the closest to `text` first.
 */
export async function closestCandidates(page: Page, text: string, limit = 5, roots: SearchRoot[] = [{ root: page, frames: [] }]): Promise<ElementCandidate[]> {
  const seen = new Set<string>();
  const all: Array<ElementCandidate & { score: number }> = [];
  for (const root of roots) {
    let snapshot = "";
    try {
      snapshot = await root.root.locator("body").ariaSnapshot({ timeout: 2_000 });
    } catch {
      continue;
    }
    const frame = framePhrase(root.frames);
    for (const candidate of snapshotCandidates(snapshot)) {
      const key = `${candidate.role}\u0000${candidate.name}\u0000${frame}`;
      if (seen.has(key)) continue;
      seen.add(key);
      all.push({ ...candidate, ...(frame ? { frame } : {}), score: similarity(text, candidate.name) });
    }
  }
  all.sort((a, b) => b.score - a.score);
  const close = all.filter((c) => c.score >= MIN_SIMILARITY);
  return (close.length ? close : all).slice(0, limit).map(({ score: _score, ...candidate }) => candidate);
}

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
