/**
 * The page view as text to check a model's quotes against: what the view shows, with each
 * character known as the page's own text or the view's own markup (the `Page:`/`URL:` header,
 * role words, quotes around names, states, table borders, references). The page script marks the
 * markup where it writes it ({@link VIEW_MARKS}); {@link parseViewLine} reads the marks, and
 * `view.ts` joins the lines of a rendered view into a {@link ViewSource}.
 *
 * Matching ({@link findText}) folds both sides the same way ({@link foldText}): case, runs of
 * whitespace, Unicode compatibility forms (NFKC: full-width digits, ligatures), curly quotes and
 * dashes to plain ones, `…` to `...`; a match starts and ends at word boundaries (`Order` is not
 * found in `Orders`). Nothing else is loosened: punctuation, digits and accents must be as the
 * page writes them.
 */
import { parseNumber } from "../_text.js";
import { VIEW_MARKS } from "./view-script.js";

/** The view's own text: headers, role words, quotes, states, borders, notes. Never page content. */
export const MARKUP = 0;
/** Text of the page that the view shows. */
export const TEXT = 1;
/** Text of the page the view does not show as is (a long name clipped, or one shown with escapes). */
export const HIDDEN = 2;
/** The document's title and URL (in the view's `Page:` and `URL:` header lines). */
export const DOCUMENT = 3;
/** A link's target as the page writes it (`→ /path`). */
export const LINK = 4;

export type SourceKind = typeof MARKUP | typeof TEXT | typeof HIDDEN | typeof DOCUMENT | typeof LINK;

/** Kinds that are page content: what a check's evidence may rest on. */
export const PAGE_TEXT: readonly SourceKind[] = [TEXT, HIDDEN, LINK];
/** Page content and the document's title and URL: what an answer's value may rest on. */
export const PAGE_DATA: readonly SourceKind[] = [TEXT, HIDDEN, LINK, DOCUMENT];

/** An element's rendering within a line or view: its reference and where it starts and ends. */
export interface SourceElement {
  ref: string;
  start: number;
  end: number;
}

/** One line of the view, read from its marks. */
export interface SourceLine {
  /** The line as the model is shown it (marks and hidden text removed). */
  shown: string;
  /** The line's text: what is shown, plus hidden page text, marks removed. */
  text: string;
  /** The kind of each character of `text`. */
  kinds: Uint8Array;
  /** Index in `text` of each character of `shown` (and `text.length` at `shown.length`). */
  shownAt: Int32Array;
  /** Elements rendered on the line. */
  elements: SourceElement[];
}

/** A view's text, with the kind of each character: what quotes are checked against. */
export interface ViewSource {
  /** The view's lines joined by `\n` (markup): what the model was shown, plus hidden page text. */
  text: string;
  /** The kind of each character of `text`. */
  kinds: Uint8Array;
  /**
   * Each line of the view, in order: where it is in `text`, and its index among the whole page's
   * lines (frames stitched in; the same line keeps its index in a reduced view), or -1 for the
   * view's own lines (header, notes, `…` markers).
   */
  lines: Array<{ start: number; end: number; index: number }>;
  /** Elements rendered in the view, with their place in `text`. */
  elements: SourceElement[];
  /** Folded indexes, built when first searched, by the mask of kinds they keep (-1: all; see {@link findText}). */
  folded: Map<number, Folded>;
}

/** A text folded for matching, with each folded character's index in the source text. */
interface Folded {
  text: string;
  at: Int32Array;
}

const [MO, MC] = VIEW_MARKS.markup;
const [HO, HC] = VIEW_MARKS.hidden;
const [EO, EC] = VIEW_MARKS.element;
const [LO, LC] = VIEW_MARKS.link;

/**
 * Reads a line's marks: what the model is shown, the line's text with the kind of each character,
 * and the elements rendered on it. A line without marks is page text throughout. Unbalanced marks
 * (a line cut in two) are read as far as they go.
 */
export function parseViewLine(marked: string): SourceLine {
  let text = "";
  let shown = "";
  const kinds: number[] = [];
  const shownAt: number[] = [];
  const elements: SourceElement[] = [];
  const open: Array<{ ref: string; start: number }> = [];
  let kind: SourceKind = TEXT;
  for (let i = 0; i < marked.length; i++) {
    const c = marked[i]!;
    if (c === MO) kind = MARKUP;
    else if (c === HO) kind = HIDDEN;
    else if (c === LO) kind = LINK;
    else if (c === MC || c === HC || c === LC) kind = TEXT;
    else if (c === EO) {
      const close = marked.indexOf(EC, i + 1);
      const ref = marked.slice(i + 1, close < 0 ? marked.length : close);
      i = close < 0 ? marked.length : close;
      if (ref) open.push({ ref, start: text.length });
      else {
        const element = open.pop();
        if (element) elements.push({ ...element, end: text.length });
      }
    } else if (c === EC) {
      // a stray close: nothing to do
    } else {
      if (kind !== HIDDEN) {
        shownAt.push(text.length);
        shown += c;
      }
      text += c;
      kinds.push(kind);
    }
  }
  for (const element of open) elements.push({ ...element, end: text.length });
  shownAt.push(text.length);
  return { shown, text, kinds: Uint8Array.from(kinds), shownAt: Int32Array.from(shownAt), elements };
}

/** A line that is the view's own throughout (a header's prefix, a note, an indentation). */
export function markupLine(text: string): SourceLine {
  const shownAt = new Int32Array(text.length + 1);
  for (let i = 0; i <= text.length; i++) shownAt[i] = i;
  return { shown: text, text, kinds: new Uint8Array(text.length), shownAt, elements: [] };
}

/** `markup` then `value` of `kind` (`Page: ` and the title). */
export function labelledLine(markup: string, value: string, kind: SourceKind): SourceLine {
  const line = markupLine(markup + value);
  line.kinds.fill(kind, markup.length);
  return line;
}

/**
 * The part of a line between two positions of what it shows (`shown.slice(from, to)`), with the
 * hidden text and elements inside it.
 */
export function sliceLine(line: SourceLine, from: number, to: number): SourceLine {
  const start = from === 0 ? 0 : line.shownAt[from]!;
  const end = to >= line.shown.length ? line.text.length : line.shownAt[to]!;
  const shownAt = new Int32Array(to - from + 1);
  for (let i = from; i <= to; i++) shownAt[i - from] = (i >= line.shown.length ? line.text.length : line.shownAt[i]!) - start;
  return {
    shown: line.shown.slice(from, to),
    text: line.text.slice(start, end),
    kinds: line.kinds.slice(start, end),
    shownAt,
    elements: line.elements.filter((e) => e.end > start && e.start < end).map((e) => ({ ref: e.ref, start: Math.max(0, e.start - start), end: Math.min(end, e.end) - start })),
  };
}

/** `prefix` (the view's own, e.g. indentation) then `line`. */
export function prefixLine(prefix: string, line: SourceLine): SourceLine {
  if (!prefix) return line;
  const n = prefix.length;
  const kinds = new Uint8Array(n + line.kinds.length);
  kinds.set(line.kinds, n);
  const shownAt = new Int32Array(n + line.shownAt.length);
  for (let i = 0; i < n; i++) shownAt[i] = i;
  for (let i = 0; i < line.shownAt.length; i++) shownAt[n + i] = line.shownAt[i]! + n;
  return { shown: prefix + line.shown, text: prefix + line.text, kinds, shownAt, elements: line.elements.map((e) => ({ ref: e.ref, start: e.start + n, end: e.end + n })) };
}

/** Joins a rendered view's lines (each with its index among the page's lines, or -1) into one {@link ViewSource}. */
export function joinSource(lines: ReadonlyArray<{ line: SourceLine; index: number }>): ViewSource {
  const length = lines.reduce((n, l) => n + l.line.text.length + 1, 0);
  const kinds = new Uint8Array(Math.max(0, length - 1));
  const out: ViewSource = { text: "", kinds, lines: [], elements: [], folded: new Map() };
  const parts: string[] = [];
  let at = 0;
  for (const { line, index } of lines) {
    kinds.set(line.kinds, at);
    parts.push(line.text);
    out.lines.push({ start: at, end: at + line.text.length, index });
    for (const e of line.elements) out.elements.push({ ref: e.ref, start: e.start + at, end: e.end + at });
    at += line.text.length + 1;
  }
  out.text = parts.join("\n");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

const WORD_CHAR = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

/** One character folded for matching (see the module's comment); `" "` for whitespace. */
function foldChar(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 128) {
    if (code <= 32) return " ";
    return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
  }
  if (SPACE.test(c)) return " ";
  switch (c) {
    case "\u2018":
    case "\u2019":
    case "\u201a":
    case "\u201b":
    case "\u2032":
      return "'";
    case "\u201c":
    case "\u201d":
    case "\u201e":
    case "\u2033":
      return '"';
    case "\u2010":
    case "\u2011":
    case "\u2012":
    case "\u2013":
    case "\u2014":
    case "\u2015":
    case "\u2212":
      return "-";
    case "\u2026":
      return "...";
  }
  return c.normalize("NFKC").toLowerCase();
}

/**
 * Folds `text` for matching: case, whitespace runs to one space (trimmed), NFKC, curly quotes and
 * dashes to plain ones, `…` to `...`.
 */
export function foldText(text: string): string {
  // Printable ASCII folds to itself lowercased, whitespace runs to one space.
  if (/^[\x20-\x7e\t\n\r]*$/.test(text)) return text.toLowerCase().replace(/\s+/g, " ").trim();
  return foldIndexed(text).text.trim();
}

/**
 * Folds `text`, keeping for each folded character the index of the character it came from;
 * with `kinds` and `keep` (a bit mask of kinds), characters of other kinds read as whitespace.
 */
function foldIndexed(text: string, kinds?: Uint8Array, keep = 0): Folded {
  const out: string[] = [];
  const at = new Int32Array(text.length * 2 + 4);
  let n = 0;
  let space = true;
  const add = (f: string, i: number) => {
    if (f === " ") {
      if (space) return;
      space = true;
    } else space = false;
    if (n >= at.length) return;
    out.push(f);
    at[n++] = i;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (kinds && !(keep & (1 << kinds[i]!))) {
      add(" ", i);
      continue;
    }
    if (code < 128) {
      add(code <= 32 ? " " : code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : text[i]!, i);
      continue;
    }
    let c = text[i]!;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) c += text[i + 1]!;
    for (const f of foldChar(c)) add(f, i);
    if (c.length === 2) i++;
  }
  return { text: out.join(""), at: at.subarray(0, n) };
}

/** A bit mask of kinds (`1 << kind` each). */
function maskOf(kinds: readonly SourceKind[]): number {
  return kinds.reduce<number>((m, k) => m | (1 << k), 0);
}

/** A place in a {@link ViewSource}'s text: `text.slice(start, end)`. */
export interface TextRange {
  start: number;
  end: number;
}

/**
 * How a text is looked for:
 * - `view`: as the view shows it, markup included (a quote copied from the view with its
 *   `| … |` borders, role words or `Page:` header); the match may hold markup.
 * - `content`: in the page text of `kinds` alone, every other character read as a space (a quote
 *   of two table cells without the border between them).
 */
export type FindMode = { in: "view" } | { in: "content"; kinds: readonly SourceKind[] };

function foldedIndex(source: ViewSource, mode: FindMode): Folded {
  const mask = mode.in === "view" ? -1 : maskOf(mode.kinds);
  let folded = source.folded.get(mask);
  if (!folded) {
    folded = mode.in === "content" ? foldIndexed(source.text, source.kinds, mask) : foldIndexed(source.text);
    source.folded.set(mask, folded);
  }
  return folded;
}

/**
 * Every place `needle` is found in the view, folded (see the module's comment), starting and ending
 * at word boundaries; within `within` when given.
 */
export function findText(source: ViewSource, needle: string, mode: FindMode, within?: TextRange): TextRange[] {
  const want = foldText(needle);
  if (!want) return [];
  const index = foldedIndex(source, mode);
  const out: TextRange[] = [];
  const wordStart = WORD_CHAR.test(want[0]!);
  const wordEnd = WORD_CHAR.test(want[want.length - 1]!);
  // Within a range: search from its first folded character, and stop past its end.
  let from = 0;
  if (within) {
    let hi = index.at.length;
    while (from < hi) {
      const mid = (from + hi) >> 1;
      if (index.at[mid]! < within.start) from = mid + 1;
      else hi = mid;
    }
  }
  for (let i = index.text.indexOf(want, from); i >= 0; i = index.text.indexOf(want, i + 1)) {
    if (within && index.at[i]! >= within.end) break;
    const last = i + want.length - 1;
    if (wordStart && i > 0 && WORD_CHAR.test(index.text[i - 1]!)) continue;
    if (wordEnd && last + 1 < index.text.length && WORD_CHAR.test(index.text[last + 1]!)) continue;
    const range = { start: index.at[i]!, end: index.at[last]! + 1 };
    // A character folded into several (… to ...) is matched whole or not at all.
    if (within && (range.start < within.start || range.end > within.end)) continue;
    out.push(range);
  }
  return out;
}

/** The text of `kinds` in `range`, other characters read as spaces, whitespace folded (not case). */
export function contentIn(source: ViewSource, range: TextRange, kinds: readonly SourceKind[]): string {
  const keep = maskOf(kinds);
  let out = "";
  let from = range.start;
  // Runs of kept characters copied at once; the others read as a space.
  for (let i = range.start; i <= range.end; i++) {
    if (i < range.end && keep & (1 << source.kinds[i]!)) continue;
    if (i > from) out += source.text.slice(from, i);
    if (i < range.end) out += " ";
    from = i + 1;
  }
  return out.replace(/\s+/g, " ").trim();
}

/**
 * The runs of page text of `kinds` that `range` touches (each a run of such characters within a
 * line, its surrounding whitespace left out), and whether `range` covers each whole.
 */
export function segmentsTouched(source: ViewSource, range: TextRange, kinds: readonly SourceKind[]): Array<TextRange & { whole: boolean }> {
  const keep = new Set<number>(kinds);
  const isContent = (i: number) => i >= 0 && i < source.text.length && keep.has(source.kinds[i]!) && source.text[i] !== "\n";
  const out: Array<TextRange & { whole: boolean }> = [];
  for (let i = range.start; i < range.end; i++) {
    if (!isContent(i) || SPACE.test(source.text[i]!)) continue;
    let start = i;
    while (isContent(start - 1)) start--;
    let end = i;
    while (isContent(end)) end++;
    while (start < end && SPACE.test(source.text[start]!)) start++;
    while (end > start && SPACE.test(source.text[end - 1]!)) end--;
    out.push({ start, end, whole: range.start <= start && range.end >= end });
    i = Math.max(i, end);
  }
  return out;
}

/** The view line a place in the text is on: its position in the view and its index among the page's lines (-1: the view's own). */
export function lineAt(source: ViewSource, offset: number): { start: number; end: number; index: number } | undefined {
  let lo = 0;
  let hi = source.lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const line = source.lines[mid]!;
    if (offset < line.start) hi = mid - 1;
    else if (offset > line.end) lo = mid + 1;
    else return line;
  }
  return undefined;
}

/** The innermost element whose rendering holds `range`. */
export function elementAt(source: ViewSource, range: TextRange): SourceElement | undefined {
  let best: SourceElement | undefined;
  for (const e of source.elements) {
    if (e.start <= range.start && e.end >= range.end && (!best || e.end - e.start < best.end - best.start)) best = e;
  }
  return best;
}

/** What the view shows of `range` (markup included), whitespace folded. */
export function shownIn(source: ViewSource, range: TextRange): string {
  let out = "";
  for (let i = range.start; i < range.end; i++) if (source.kinds[i] !== HIDDEN) out += source.text[i];
  return out.replace(/\s+/g, " ").trim();
}

/**
 * The numbers written in `text` (`42`, `42.00`, `$1,234.50`, `1.234,5`, `-3`, `12%`), each read as
 * the reader reads page numbers (`parseNumber` of `_text.ts`: `1,234` is 1234, `1.234` is 1.234,
 * `1.234,5` is 1234.5). A minus sign counts only before a number that no letter or digit precedes
 * (`2024-05` holds 2024 and 5).
 */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/\d(?:[\d.,']*\d)?/g)) {
    const before = text[m.index - 1];
    const minus = (before === "-" || before === "\u2212") && (m.index < 2 || !WORD_CHAR.test(text[m.index - 2]!));
    const n = parseNumber(`${minus ? "-" : ""}${m[0]}`);
    if (n !== undefined) out.push(n);
  }
  return out;
}
