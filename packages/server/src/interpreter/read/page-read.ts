/**
 * ASK, reading the page: what the page and its shown iframes show, as {@link PageData}, in one
 * `evaluate` per document ({@link extractPageJson}: the data crosses to Node as one JSON text).
 * A read may be partial (the repeated items' fields and the main text left out, about half the
 * cost on a page of documentation); a reader that finds it needs them throws {@link NeedsFullRead}.
 */
import type { Page } from "playwright-core";
import { childRoots, framePhrase } from "../locate/index.js";
import { extractPageJson, type ExtractOptions, type PageData } from "../page/index.js";

/**
 * Thrown by a reader given a partial read ({@link PageData.partial}) when what was left out could
 * change its answer: the caller reads the whole page and answers from that instead.
 */
export class NeedsFullRead extends Error {
  constructor(why: string) {
    super(`The partial read of the page cannot settle this answer: ${why}.`);
    this.name = "NeedsFullRead";
  }
}

/** Throws {@link NeedsFullRead} (`why`) when `data` is a partial read. */
export function needFull(data: PageData, why: string): void {
  if (data.partial) throw new NeedsFullRead(why);
}

/** Reads one document: its data, parsed from the JSON text the page returns (or as returned, when the page's JSON cannot be trusted). */
async function readDocument(target: Pick<Page, "evaluate">, options: ExtractOptions): Promise<PageData> {
  const read = await target.evaluate(extractPageJson, options);
  return typeof read === "string" ? (JSON.parse(read) as PageData) : read;
}

/**
 * What the page shows, for an ASK: its main frame's data, then each shown iframe's (same-origin
 * and cross-origin, nested ones too) appended after it, frames in document order. A table or list
 * without a caption or heading of its own takes its frame's name as its context. A frame that
 * cannot be read (navigating, detached) is left out.
 * @param options - `partial: true` for a partial read of every frame ({@link ExtractOptions}).
 * @throws what `page.evaluate` throws for the main frame (a navigation race among them).
 */
export async function readPage(page: Page, options: ExtractOptions = {}): Promise<PageData> {
  const data = await readDocument(page, options);
  const roots = await childRoots(page).catch(() => []);
  for (const root of roots) {
    const inner = await readDocument(root.frame!, options).catch(() => undefined);
    if (!inner) continue;
    const where = root.frames[0]!.label || framePhrase(root.frames);
    data.headings.push(...inner.headings);
    data.pairs.push(...inner.pairs);
    data.tables.push(...inner.tables.map((t) => ({ ...t, context: t.context || where })));
    data.groups.push(...inner.groups.map((g) => ({ ...g, context: g.context || where })));
    data.counters = [...(data.counters ?? []), ...(inner.counters ?? [])];
    data.checklists = [...(data.checklists ?? []), ...(inner.checklists ?? []).map((c) => ({ ...c, context: c.context || where }))];
    if (inner.sections) data.sections = [...(data.sections ?? []), ...inner.sections];
    if (inner.dialogs) data.dialogs = [...(data.dialogs ?? []), ...inner.dialogs];
    if (inner.code) data.code = [...(data.code ?? []), ...inner.code];
    if (inner.regions) data.regions = [...(data.regions ?? []), ...inner.regions];
    if (inner.mainText) data.mainText = `${data.mainText}\n${inner.mainText}`.slice(0, 20_000);
  }
  return data;
}
