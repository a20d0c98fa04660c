/**
 * What a model's check may rest on. A check the model decides holds only on evidence that is:
 *
 * 1. **page content**: text of the page view the model was sent, found as it stands there (folded
 *    as in `../page/view-source.ts`: case, whitespace, curly quotes and dashes), and made of the
 *    page's own text: never the view's own lines or words (the `Page:`/`URL:` header, role words,
 *    quotes around names, states such as `(checked)`, references). A quote that includes view
 *    markup counts only by the page text in it;
 * 2. **long enough to say something**: at least {@link MIN_WORDS} words of page text, or whole
 *    pieces of page text (a table cell, a line, an element's name or value, each covered from its
 *    first to its last character) with at least two letters or digits. `Order` out of
 *    `Order #1042 placed` is neither;
 * 3. **bearing on the statement** (for a check that holds): the evidence names every name the
 *    statement names (its capitalised words, its numbers, its quoted text; `Grace's order has
 *    shipped` needs `Grace`) and shares at least one other word with it. Words are compared
 *    case-folded, with plural endings dropped.
 *
 * Anything else is no evidence: the check is uncertain, and never passes on it.
 */
import { PAGE_TEXT, contentIn, findText, foldText, segmentsTouched, type TextRange, type ViewSource } from "../page/index.js";
import { STOP, stem } from "../_text.js";

/** Words of page text that make evidence long enough on their own, whole pieces of text or not. */
export const MIN_WORDS = 3;

/** Words a statement says that name nothing on the page. */
const FILLER = new Set([
  ...STOP,
  ...["shows", "shown", "showing", "displays", "displayed", "display", "says", "say", "said", "contains", "contain", "visible", "still", "now", "there", "has", "have", "had"],
  ...["be", "been", "being", "was", "were", "it", "its", "not", "no", "any", "some", "as", "at", "into", "than", "then", "only", "just", "also", "currently", "listed", "appears", "appear"],
  ...["i", "we", "you", "he", "she", "they", "do", "does", "did", "can", "will", "should", "must", "would", "could", "should", "here", "where", "when", "who", "how"],
]);

/** The outcome of {@link weighEvidence}: the page text the evidence is, or why it is no evidence. */
export type EvidenceWeight = { ok: true; text: string } | { ok: false; why: string };

/**
 * Weighs a model's evidence for `statement` against the page view `source` (see the module's
 * comment); `holds`: the model says the statement holds (then the evidence must also bear on it).
 */
export function weighEvidence(evidence: string, statement: string, holds: boolean, source: ViewSource): EvidenceWeight {
  if (!foldText(evidence)) return { ok: false, why: "is empty" };
  const places = placesOf(source, evidence);
  if (places.length === 0) {
    return { ok: false, why: findText(source, evidence, { in: "view" }).length > 0 ? "is the view's own text (its page title and URL header, role words, states or references), not page content" : "is not text of the page" };
  }
  let why = "";
  for (const place of places) {
    const short = tooShort(source, place);
    if (short) {
      why ||= short;
      continue;
    }
    const off = holds ? offTopic(place.content, statement) : undefined;
    if (off) {
      why = off;
      continue;
    }
    return { ok: true, text: place.content };
  }
  return { ok: false, why };
}

/** The places the evidence is found holding page text, each with that text. */
function placesOf(source: ViewSource, evidence: string): Array<TextRange & { content: string }> {
  const seen = new Set<string>();
  const out: Array<TextRange & { content: string }> = [];
  for (const range of [...findText(source, evidence, { in: "content", kinds: PAGE_TEXT }), ...findText(source, evidence, { in: "view" })]) {
    const key = `${range.start}:${range.end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const content = contentIn(source, range, PAGE_TEXT);
    if (/[\p{L}\p{N}]/u.test(content)) out.push({ ...range, content });
  }
  return out;
}

/** Why the page text at `place` is too short to say anything, or undefined when it is long enough. */
function tooShort(source: ViewSource, place: TextRange & { content: string }): string | undefined {
  if (tokens(place.content).length >= MIN_WORDS) return undefined;
  const pieces = segmentsTouched(source, place, PAGE_TEXT);
  const letters = (place.content.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (pieces.length > 0 && pieces.every((p) => p.whole) && letters >= 2) return undefined;
  const partOf = pieces.find((p) => !p.whole);
  if (partOf) {
    return `is only part of the page text ${JSON.stringify(clip(contentIn(source, partOf, PAGE_TEXT)))}: quote an element's whole text, or at least ${MIN_WORDS} words`;
  }
  return `is too short to say anything: quote an element's whole text, or at least ${MIN_WORDS} words`;
}

/** Why `text` does not bear on `statement`, or undefined when it does. */
function offTopic(text: string, statement: string): string | undefined {
  const have = new Set(tokens(text).map(stem));
  const missing = names(statement).filter((name) => !name.words.every((w) => have.has(w)));
  if (missing.length > 0) return `does not name ${missing.map((n) => JSON.stringify(n.text)).join(", ")}, which the statement is about`;
  const shared = tokens(statement)
    .map(stem)
    .filter((w) => !FILLER.has(w) && have.has(w));
  if (shared.length === 0) return "shares no word with the statement: it does not bear on it";
  return undefined;
}

/**
 * The names a statement names, each as written and as its folded, stemmed words: capitalised
 * words (not filler such as a sentence's first `The`), words with digits, and each quoted text.
 */
function names(statement: string): Array<{ text: string; words: string[] }> {
  const out: Array<{ text: string; words: string[] }> = [];
  const quoted = /(?:^|[\s(])["“'‘]([^"”'’]+)["”'’]/g;
  for (const m of statement.matchAll(quoted)) {
    const words = tokens(m[1]!).map(stem).filter((w) => !FILLER.has(w));
    if (words.length > 0) out.push({ text: m[1]!, words });
  }
  for (const m of statement.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0];
    if (!/^\p{Lu}/u.test(word) && !/\p{N}/u.test(word)) continue;
    const folded = stem(foldText(word));
    if (FILLER.has(folded) || out.some((n) => n.words.length === 1 && n.words[0] === folded)) continue;
    out.push({ text: word, words: [folded] });
  }
  return out;
}

/** A text's words: runs of letters and digits, folded. */
function tokens(text: string): string[] {
  return foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
