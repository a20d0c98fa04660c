/**
 * The page as the model sees it: one compact text of what a person sees, with references to the
 * interactive elements when the model is to act, kept under a prompt budget by keeping the parts relevant to the step.
 * Why this shape rather than Playwright's ai-mode aria snapshot: see docs/server/model-steps.md ("What the
 * model sees").
 */
import type { Frame, Page } from "playwright-core";
import { redactText } from "@wf/core";
import { selectorOfElement, snapshotPageView, VIEW_MARKS, type RawFrameView, type ViewElement, type ViewLine } from "./view-script.js";
import { DEFAULT_SETTLE_TIMEOUT_MS, settleBeforeRead, type SettleOutcome } from "./settle.js";
import type { QuietMark } from "../types.js";
import { DOCUMENT, joinSource, labelledLine, markupLine, parseViewLine, prefixLine, sliceLine, type SourceLine, type ViewSource } from "./view-source.js";

export type { ViewElement } from "./view-script.js";

/** What the model is asked to do with the page: read it (ASK) or act on it (ACT). */
export type ViewPurpose = "ask" | "act";

/** Options of {@link readPageView}. */
export interface PageViewOptions {
  purpose: ViewPurpose;
  /** The instruction or question: decides what is relevant when the page must be reduced. */
  query: string;
  /** Largest size of the page text, in estimated tokens ({@link estimateTokens}). */
  budgetTokens: number;
  /** Values that must not appear in the view; each is replaced by `[secret]`. */
  secrets: readonly string[];
  /**
   * Longest wait for the page to settle before it is read (`settle.ts`, `settleBeforeRead`: its
   * requests, then a quiet DOM), in ms; 0 reads it as it is. @default 3_000 (`DEFAULT_SETTLE_TIMEOUT_MS`)
   */
  quietMs?: number;
  /** The DOM as an earlier wait found it quiet: unchanged, it is read without waiting again (`settleBeforeRead`'s `since`). */
  settled?: QuietMark;
  /**
   * Write link targets (`→ /path`) after links. @default true for an ASK whose `query` speaks of
   * links, URLs or addresses ({@link wantsLinkTargets}); else false (noise to act, and to most questions).
   */
  linkTargets?: boolean;
}

/** Words of a question (or its schema) that ask for where links lead. */
const LINK_WORDS = /\b(?:links?|urls?|uris?|hrefs?|web ?address(?:es)?|targets?|destinations?|points? to|leads? to|goes to|format"?\s*:\s*"uri)\b/i;

/** Whether a question (with its schema's text) asks for where links lead, so an ASK's view shows link targets. */
export function wantsLinkTargets(text: string): boolean {
  return LINK_WORDS.test(text);
}

/** The whole page's lines and elements, frames stitched in: what {@link renderPageView} renders. */
export interface RawPageView {
  title: string;
  url: string;
  lines: ViewLine[];
  elements: ViewElement[];
}

/** The page, ready for a prompt. */
export interface PageView {
  /** The page text: `Page: title`, `URL: …`, then one line per block. */
  text: string;
  /** The elements the view refers to, each with its `ref` (`e12`, `f1e3`). */
  elements: ViewElement[];
  /** True when parts were left out to fit the budget. */
  reduced: boolean;
  /** Lines of the whole page and lines kept. */
  totalLines: number;
  keptLines: number;
  /**
   * The same text with each character known as page content or the view's own (header, roles,
   * quotes, states, borders, references): what a model's quotes are checked against (`view-source.ts`).
   */
  source: ViewSource;
  /** How {@link readPageView} waited for the page to settle first (absent from {@link renderPageView}). */
  settle?: SettleOutcome;
}

/** Characters per token assumed by {@link estimateTokens}: about right for English text with GPT-4-class tokenizers. */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text: its length in characters ÷ {@link CHARS_PER_TOKEN}, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Most frames read into one view (ads and trackers can bring dozens); later ones stay markers. */
const MAX_FRAMES = 20;
/** Longest a frame may take to be read, in ms: a cross-origin frame still loading is shown as a marker, not waited for. */
const FRAME_READ_MS = 1_500;
/**
 * Reads the page as the model sees it: waits (at most `quietMs`, and half the time left) until it has settled (loaded, its
 * own requests done, DOM unchanged for 100 ms since its last change, all measured by events:
 * `settleBeforeRead`), reads the
 * main frame and every iframe in it (same-origin and cross-origin, nested; at most 20), stitches
 * each frame's lines in where its iframe sits, and renders the whole under the budget.
 */
export async function readPageView(page: Page, options: PageViewOptions, timeLeftMs: () => number): Promise<PageView> {
  const settle = await settleBeforeRead(page, options.quietMs ?? DEFAULT_SETTLE_TIMEOUT_MS, { withinMs: timeLeftMs() / 2, ...(options.settled ? { since: options.settled } : {}) });
  const linkUrls = options.linkTargets ?? (options.purpose === "ask" && wantsLinkTargets(options.query));
  const read = () => readFrames(page, { linkUrls, refs: options.purpose === "act" }, () => Math.max(1, timeLeftMs()));
  // A page that navigates while it is read destroys the evaluation: read it again once.
  const raw = await read().catch(async () => {
    await page.waitForLoadState("domcontentloaded", { timeout: Math.max(1, timeLeftMs()) }).catch(() => undefined);
    return read();
  });
  return { ...renderPageView(raw, options), settle };
}

/** Reads the main frame, then each iframe marker's frame (depth first), into one list of lines and elements. */
async function readFrames(page: Page, how: { linkUrls: boolean; refs: boolean }, timeLeftMs: () => number): Promise<RawPageView> {
  const main = (await page.mainFrame().evaluate(snapshotPageView, { ...how, prefix: "" })) as RawFrameView;
  const elements = [...main.elements];
  let read = 0;
  const stitch = async (frame: Frame, view: RawFrameView, chain: string[]): Promise<ViewLine[]> => {
    if (view.frames.length === 0) return view.lines;
    const children = await childFramesBySelector(frame);
    const out: ViewLine[] = [];
    for (const line of view.lines) {
      out.push(line);
      if (line.fr === undefined) continue;
      const selector = view.frames[line.fr]!;
      const child = children.get(selector);
      const inner = child && read < MAX_FRAMES ? await readChildFrame(child, how, `f${++read}`, Math.min(FRAME_READ_MS, timeLeftMs())) : undefined;
      if (!inner) {
        out.push({ t: VIEW_MARKS.markup[0] + "(frame not read)" + VIEW_MARKS.markup[1], d: line.d + 1, h: 0, th: -1, dlg: line.dlg, refs: 0 });
        continue;
      }
      const innerChain = [...chain, selector];
      for (const element of inner.elements) elements.push({ ...element, frames: innerChain });
      const offset = out.length;
      for (const innerLine of await stitch(child!, inner, innerChain)) {
        out.push({ ...innerLine, d: innerLine.d + line.d + 1, dlg: innerLine.dlg || line.dlg, th: innerLine.th >= 0 ? innerLine.th + offset : -1 });
      }
    }
    return out;
  };
  const lines = await stitch(page.mainFrame(), main, []);
  return { title: main.title, url: main.url, lines, elements };
}

/** A frame's child frames by the selector of their iframe element in it. */
async function childFramesBySelector(frame: Frame): Promise<Map<string, Frame>> {
  const out = new Map<string, Frame>();
  for (const child of frame.childFrames()) {
    if (child.isDetached()) continue;
    const selector = await child
      .frameElement()
      .then((handle) => handle.evaluate(selectorOfElement).finally(() => handle.dispose()))
      .catch(() => undefined);
    if (selector) out.set(selector, child);
  }
  return out;
}

/** One child frame's view, or undefined when it cannot be read in `ms` (still loading, detached). */
async function readChildFrame(frame: Frame, how: { linkUrls: boolean; refs: boolean }, prefix: string, ms: number): Promise<RawFrameView | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  const evaluation = frame.evaluate(snapshotPageView, { ...how, prefix }).catch(() => undefined) as Promise<RawFrameView | undefined>;
  try {
    return await Promise.race([evaluation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Chunk {
  /** Indexes of the lines, in order. */
  lines: number[];
  tokens: number;
  score: number;
}

/** Words that carry no topic. */
const STOP_WORDS = new Set(
  "the a an of to in on at for and or is are was were be been what which who whom whose how many much does do did this that these those there their its it with from by as into onto page show shows shown list all every each me my you your please get find tell give return".split(" "),
);

function topicWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/**
 * Renders the page's lines into the view's text, whole when it fits `budgetTokens`, else reduced:
 * the page is cut into chunks (a heading and what follows it, long runs split), each chunk scored by
 * the step's words it contains (rarer words weigh more; dialogs, and for an ACT interactive
 * elements, weigh more too), and the best chunks are kept in page order until the budget is
 * spent. Omitted stretches are marked `… (N lines omitted)`; a table row cut from its table keeps
 * the table's header line.
 */
export function renderPageView(raw: RawPageView, options: Pick<PageViewOptions, "purpose" | "query" | "budgetTokens" | "secrets">): PageView {
  // Every encoding: a GET form puts a secret URL-encoded into the page's URL and links.
  const mask = (text: string) => redactText(text, options.secrets);
  let lines: Line[] = raw.lines.map((l, index) => {
    let src = parseViewLine(mask(l.t));
    // A secret the marks split (never seen, but a leak is a leak): the line masked, as the view's own text.
    if (mask(src.shown) !== src.shown) src = markupLine(mask(src.shown));
    return { ...l, t: src.shown, src, index };
  });
  const headSource = [labelledLine("Page: ", mask(raw.title), DOCUMENT), labelledLine("URL: ", mask(raw.url), DOCUMENT)];
  const head = headSource.map((h) => h.shown);
  const indent = (l: ViewLine) => "  ".repeat(Math.min(l.d, 6));
  const render = (l: ViewLine) => indent(l) + l.t;
  const rendered = (l: Line) => ({ line: prefixLine(indent(l), l.src), index: l.index });
  const own = (text: string) => ({ line: markupLine(text), index: -1 });
  const whole = [...head, ...lines.map(render)].join("\n");
  const base = { elements: raw.elements, totalLines: lines.length };
  if (estimateTokens(whole) <= options.budgetTokens) {
    const source = joinSource([...headSource.map((line) => ({ line, index: -1 })), ...lines.map(rendered)]);
    return { text: whole, reduced: false, keptLines: lines.length, source, ...base };
  }

  // Chunks: a heading starts one; none grows past an eighth of the budget. A line longer than that
  // (a paragraph of a flat page) is split at spaces into parts that are kept or left out as chunks.
  const maxChunkTokens = Math.max(50, Math.floor(options.budgetTokens / 8));
  lines = splitLongLines(lines, maxChunkTokens * CHARS_PER_TOKEN);
  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  lines.forEach((line, i) => {
    const tokens = estimateTokens(render(line)) + 1;
    if (!current || line.h > 0 || current.tokens + tokens > maxChunkTokens) {
      current = { lines: [], tokens: 0, score: 0 };
      chunks.push(current);
    }
    current.lines.push(i);
    current.tokens += tokens;
  });

  // Scores: the step's words in the chunk, each weighted by how rare it is on the page.
  const query = new Set(topicWords(options.query));
  const chunkWords = chunks.map((c) => new Set(c.lines.flatMap((i) => topicWords(lines[i]!.t))));
  const df = new Map<string, number>();
  for (const words of chunkWords) for (const w of words) if (query.has(w)) df.set(w, (df.get(w) ?? 0) + 1);
  chunks.forEach((chunk, k) => {
    let score = 0;
    for (const w of query) if (chunkWords[k]!.has(w)) score += Math.log(1 + chunks.length / (df.get(w) ?? 1));
    const refs = chunk.lines.reduce((n, i) => n + lines[i]!.refs, 0);
    if (chunk.lines.some((i) => lines[i]!.dlg)) score += 5;
    if (options.purpose === "act" && refs > 0) score += 0.5 + Math.min(1, refs / 10);
    chunk.score = score;
  });

  // Keep the best chunks that fit, then the page's start while room is left.
  const headTokens = estimateTokens(head.join("\n")) + 20;
  let room = options.budgetTokens - headTokens;
  const kept = new Set<number>();
  const order = chunks.map((_, k) => k).sort((a, b) => chunks[b]!.score - chunks[a]!.score || a - b);
  for (const k of order) {
    if (chunks[k]!.score <= 0) break;
    const cost = chunks[k]!.tokens + 12;
    if (cost <= room) {
      kept.add(k);
      room -= cost;
    }
  }
  for (let k = 0; k < chunks.length; k++) {
    if (kept.has(k)) continue;
    const cost = chunks[k]!.tokens + 12;
    if (cost > room) break;
    kept.add(k);
    room -= cost;
  }

  const out = [...headSource.map((line) => ({ line, index: -1 })), own(`(The page is longer than the ${options.budgetTokens}-token budget: only the parts most relevant to the step are shown; "…" marks what was left out.)`)];
  let omitted = 0;
  let keptLines = 0;
  const flushOmitted = () => {
    if (omitted > 0) out.push(own(`… (${omitted} line${omitted === 1 ? "" : "s"} omitted)`));
    omitted = 0;
  };
  chunks.forEach((chunk, k) => {
    if (!kept.has(k)) {
      omitted += chunk.lines.length;
      return;
    }
    flushOmitted();
    const first = lines[chunk.lines[0]!]!;
    if (first.th >= 0 && !chunk.lines.includes(first.th) && !kept.has(chunkOf(chunks, first.th))) out.push(rendered(lines[first.th]!));
    for (const i of chunk.lines) out.push(rendered(lines[i]!));
    keptLines += chunk.lines.length;
  });
  flushOmitted();
  return { text: out.map((o) => o.line.shown).join("\n"), reduced: true, keptLines, source: joinSource(out), ...base };
}

/** A line of the view being rendered: what it shows (`t`), its source, and its index among the page's lines. */
interface Line extends ViewLine {
  src: SourceLine;
  index: number;
}

/**
 * Splits each line over `maxChars` (not a heading or table row) at spaces into parts of at most
 * `maxChars`, the parts after the first marked `…`; table rows' header indexes follow the shift.
 */
function splitLongLines(lines: Line[], maxChars: number): Line[] {
  if (!lines.some((l) => l.t.length > maxChars)) return lines;
  const out: Line[] = [];
  const moved: number[] = [];
  lines.forEach((line, i) => {
    moved[i] = out.length;
    if (line.t.length <= maxChars || line.h > 0 || line.th >= 0) {
      out.push(line);
      return;
    }
    const t = line.t;
    let pos = 0;
    let first = true;
    for (;;) {
      while (pos < t.length && t[pos] === " ") pos++;
      if (pos >= t.length) break;
      const rest = t.length - pos;
      let cut = rest <= maxChars ? rest : t.lastIndexOf(" ", pos + maxChars) - pos;
      if (cut <= maxChars / 2) cut = Math.min(rest, maxChars);
      let end = pos + cut;
      while (end > pos && t[end - 1] === " ") end--;
      const part = sliceLine(line.src, pos, end);
      const src = first ? part : prefixLine("… ", part);
      const refs = (src.shown.match(/\[(?:f\d+)?e\d+\]/g) ?? []).length;
      out.push({ ...line, t: src.shown, src, refs });
      pos += cut;
      first = false;
    }
  });
  return out.map((l) => (l.th >= 0 ? { ...l, th: moved[l.th]! } : l));
}

function chunkOf(chunks: Chunk[], line: number): number {
  return chunks.findIndex((c) => c.lines.includes(line));
}
