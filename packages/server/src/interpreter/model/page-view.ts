/**
 * The page as the model sees it: one compact text of what a person sees, with references to the
 * interactive elements, kept under a prompt budget by keeping the parts relevant to the step.
 * Why this shape rather than Playwright's ai-mode aria snapshot: see the server README ("What the
 * model sees").
 */
import type { Page } from "playwright-core";
import { REDACTED } from "@wf/core";
import { snapshotPageView, type RawPageView, type ViewElement, type ViewLine } from "./_page-view-script.js";

export type { ViewElement } from "./_page-view-script.js";

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
  /** Longest wait for the page to be quiet before it is read, in ms. @default 2_000 */
  quietMs?: number;
}

/** The page, ready for a prompt. */
export interface PageView {
  /** The page text: `Page: title`, `URL: …`, then one line per block. */
  text: string;
  /** The elements `[eN]` refers to: `e1` is `elements[0]`. */
  elements: ViewElement[];
  /** True when parts were left out to fit the budget. */
  reduced: boolean;
  /** Lines of the whole page and lines kept. */
  totalLines: number;
  keptLines: number;
}

/** Characters per token assumed by {@link estimateTokens}: about right for English text with GPT-4-class tokenizers. */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text: its length in characters ÷ {@link CHARS_PER_TOKEN}, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Waits (at most `quietMs`) until the page has loaded, its network is idle and its DOM has not
 * changed for 300 ms, then reads it and renders it under the budget.
 */
export async function readPageView(page: Page, options: PageViewOptions, timeLeftMs: () => number): Promise<PageView> {
  await waitForQuiet(page, Math.min(options.quietMs ?? 2_000, timeLeftMs()));
  const read = () => page.evaluate(snapshotPageView, { linkUrls: options.purpose === "ask", maxLineChars: 1_200 }) as Promise<RawPageView>;
  // A page that navigates while it is read destroys the evaluation: read it again once.
  const raw = await read().catch(async () => {
    await page.waitForLoadState("domcontentloaded", { timeout: timeLeftMs() }).catch(() => undefined);
    return read();
  });
  return renderPageView(raw, options);
}

/** Waits for `load`, network idle and a DOM without mutations for 300 ms, all within `maxMs`; never throws. */
async function waitForQuiet(page: Page, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  const left = () => Math.max(1, deadline - Date.now());
  await page.waitForLoadState("load", { timeout: left() }).catch(() => undefined);
  await page.waitForLoadState("networkidle", { timeout: left() }).catch(() => undefined);
  await page
    .evaluate(
      new Function(
        "max",
        `return new Promise(function (resolve) {
          var timer = setTimeout(done, 300), stop = setTimeout(done, max);
          var observer = new MutationObserver(function () { clearTimeout(timer); timer = setTimeout(done, 300); });
          function done() { observer.disconnect(); clearTimeout(timer); clearTimeout(stop); resolve(); }
          observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
        });`,
      ) as (max: number) => Promise<void>,
      Math.max(0, left() - 50),
    )
    .catch(() => undefined);
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
  const secrets = [...options.secrets].filter(Boolean).sort((a, b) => b.length - a.length);
  const mask = (text: string) => secrets.reduce((t, s) => t.split(s).join(REDACTED), text);
  const lines = raw.lines.map((l) => ({ ...l, t: mask(l.t) }));
  const head = [`Page: ${mask(raw.title)}`, `URL: ${mask(raw.url)}`];
  const render = (l: ViewLine) => "  ".repeat(Math.min(l.d, 6)) + l.t;
  const whole = [...head, ...lines.map(render)].join("\n");
  const base = { elements: raw.elements, totalLines: lines.length };
  if (estimateTokens(whole) <= options.budgetTokens) return { text: whole, reduced: false, keptLines: lines.length, ...base };

  // Chunks: a heading starts one; none grows past an eighth of the budget.
  const maxChunkTokens = Math.max(50, Math.floor(options.budgetTokens / 8));
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

  const out = [...head, `(The page is longer than the ${options.budgetTokens}-token budget: only the parts most relevant to the step are shown; "…" marks what was left out.)`];
  let omitted = 0;
  let keptLines = 0;
  const flushOmitted = () => {
    if (omitted > 0) out.push(`… (${omitted} line${omitted === 1 ? "" : "s"} omitted)`);
    omitted = 0;
  };
  chunks.forEach((chunk, k) => {
    if (!kept.has(k)) {
      omitted += chunk.lines.length;
      return;
    }
    flushOmitted();
    const first = lines[chunk.lines[0]!]!;
    if (first.th >= 0 && !chunk.lines.includes(first.th) && !kept.has(chunkOf(chunks, first.th))) out.push(render(lines[first.th]!));
    for (const i of chunk.lines) out.push(render(lines[i]!));
    keptLines += chunk.lines.length;
  });
  flushOmitted();
  return { text: out.join("\n"), reduced: true, keptLines, ...base };
}

function chunkOf(chunks: Chunk[], line: number): number {
  return chunks.findIndex((c) => c.lines.includes(line));
}
