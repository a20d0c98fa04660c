/**
 * Running a read recipe (`ReadRecipe` of `@wf/core/protocol`): an ASK's answer produced from the
 * page with no model, by the reader's own page read (`readPage` of `read/`: labelled values,
 * tables, lists). Each part of the recipe names where one value of the answer comes from: a label,
 * a table's columns by header (its rows selected by conditions on cell text), a list's items.
 *
 * The data is read as the page shows it now (a changed price, an added row are read as they are);
 * the structure the recipe names must still be there. When it is not (no table with those headers,
 * no value with that label, a cell that is no longer a number), the recipe is stale: it throws
 * {@link RecipeStale}, which says what it looked for and what the page has instead. It never
 * returns an answer it did not read.
 */
import type { Page } from "playwright-core";
import type { ReadRecipe, RecipeColumn, RecipeCondition, RecipeElement, RecipePart, RecipeTable, RecipeTransform } from "@wf/core/protocol";
import { StepClock } from "../_clock.js";
import { InterpreterError } from "../errors.js";
import { normalizeText, parseNumber } from "../_text.js";
import type { PageData } from "../page/index.js";
import { answerErrors, normalizePage, readPage } from "../read/index.js";
import type { AskContext } from "../types.js";

/** The structure a recipe names is not on the page (see the file comment). */
export class RecipeStale extends Error {
  constructor(
    readonly lookedFor: string,
    readonly seen: string,
  ) {
    super(`it looked for ${lookedFor}; the page has ${seen}`);
    this.name = "RecipeStale";
  }
}

type Table = PageData["tables"][number];

/** How many labels or tables a stale recipe's message lists of what the page has. */
const SHOWN = 6;

/**
 * Produces the answer a recipe reads from page data (normalised or not).
 * @returns the answer: an object holding each part's value at its path (or the value of a part at `""`).
 * @throws {@link RecipeStale} when a part's label, table, columns or list are not on the page, a
 *   label holds several different values, a selection that must be one row is not, or a cell read
 *   as a number is not one.
 */
export function runRecipe(raw: PageData, recipe: ReadRecipe): unknown {
  const data = normalizePage(raw);
  let root: unknown = {};
  for (const part of recipe.parts) {
    const value = readPart(data, part);
    if (part.path === "") root = value;
    else setAt(root as Record<string, unknown>, part.path, value);
  }
  return root;
}

/**
 * Replays a recorded read on the ASK's page: the whole page read once, the recipe run on it, the
 * answer checked against the step's schema. Marks the report `replayed` (no model is called).
 * @throws {@link InterpreterError} `WF_LOCK_STALE` (details `lookedFor`, `seen`) when the recipe no
 *   longer applies or its answer does not fit the schema.
 */
export async function replayRead(context: AskContext, recipe: ReadRecipe): Promise<unknown> {
  context.report.interpreter = "grammar";
  context.report.replayed = true;
  const clock = new StepClock(context.timeoutMs, context.signal);
  return clock.guard(async () => {
    const data = await readPage(context.page);
    let answer: unknown;
    try {
      answer = runRecipe(data, recipe);
    } catch (error) {
      if (error instanceof RecipeStale) throw stale(context.question, error.lookedFor, error.seen);
      throw error;
    }
    if (context.schema) {
      const errors = answerErrors(answer, context.schema.schema);
      if (errors.length > 0) {
        const shown = errors.slice(0, 3).map((e) => `${e.path || "(the answer)"} ${e.message}`).join("; ");
        throw stale(context.question, "an answer that fits the step's schema", `an answer where ${shown}`);
      }
    } else if (typeof answer !== "string" || answer === "") {
      // A text ASK (no schema) answers one text.
      throw stale(context.question, "a text answer (the ASK has no schema)", `an answer ${JSON.stringify(answer)?.slice(0, 120)}`);
    }
    return answer;
  });
}

function stale(question: string, lookedFor: string, seen: string): InterpreterError {
  return new InterpreterError(
    "WF_LOCK_STALE",
    `The recorded read of ${JSON.stringify(question)} no longer applies to this page: it looked for ${lookedFor}; the page has ${seen}. No answer was returned from the recording. Record the step again (wf run <file> --lock write), or let a model read it (--lock heal).`,
    { lookedFor, seen },
  );
}

function readPart(data: PageData, part: RecipePart): unknown {
  if (part.label !== undefined) return readLabel(data, part.label, part.as ?? "text", part.split);
  if (part.table) return readTable(data, part);
  if (part.list) return readList(data, part.list.context, part.as ?? "text");
  if (part.element) return transform(elementText(data, part.element), part.as ?? "text", describeElement(part.element));
  if (part.section !== undefined) return transform(sectionText(data, part.section), part.as ?? "text", `the section under ${JSON.stringify(part.section)}`);
  throw new RecipeStale(`a part at ${part.path || "(the answer)"} that names a label, a table, a list, an element or a section`, "a recipe part that names none (the lock entry was edited?)");
}

/** The elements of the page an {@link RecipeElement} may name, as `{ name, text }` (a heading's name is its text). */
export function elementsFor(data: PageData, element: Pick<RecipeElement, "role" | "level">): Array<{ name: string; text: string }> {
  if (element.role === "heading") return data.headings.filter((h) => h.level === (element.level ?? 1)).map((h) => ({ name: h.text, text: h.text }));
  return (data.dialogs ?? []).filter((d) => d.kind === element.role).map((d) => ({ name: d.label, text: d.text }));
}

function describeElement(element: RecipeElement): string {
  if (element.role === "heading") return `the one heading of level ${element.level ?? 1}`;
  return `the ${element.name ? `${element.role} ${JSON.stringify(element.name)}` : `one ${element.role}`}`;
}

/** The text of the one element `element` names; {@link RecipeStale} when there is none or several. */
function elementText(data: PageData, element: RecipeElement): string {
  const all = elementsFor(data, element);
  const found = element.role === "heading" || element.name === undefined ? all : all.filter((e) => labelKey(e.name) === labelKey(element.name!));
  if (found.length === 1) return found[0]!.text;
  const shown = all.map((e) => JSON.stringify(e.name || e.text.slice(0, 60)));
  throw new RecipeStale(describeElement(element), found.length > 1 ? `${found.length} such elements (${listed(shown)})` : shown.length ? `only ${listed(shown)}` : `no ${element.role}${element.role === "heading" ? ` of level ${element.level ?? 1}` : ""}`);
}

/** The text of the one section under `heading`; {@link RecipeStale} when there is none or several. */
function sectionText(data: PageData, heading: string): string {
  const all = data.sections ?? [];
  const found = all.filter((s) => labelKey(s.heading) === labelKey(heading));
  if (found.length === 1) return found[0]!.text;
  throw new RecipeStale(`the section under the heading ${JSON.stringify(heading)}`, found.length > 1 ? `${found.length} such headings` : all.length ? `the headings ${listed(all.map((s) => JSON.stringify(s.heading)))}` : "no headings");
}

/** A label as compared: case and a final colon aside. */
export function labelKey(text: string): string {
  return normalizeText(text).replace(/\s*:$/, "").toLowerCase();
}

function readLabel(data: PageData, label: string, as: RecipeTransform, split: string | undefined): unknown {
  const key = labelKey(label);
  const values = [...new Set(data.pairs.filter((p) => labelKey(p.key) === key).map((p) => p.value))];
  if (values.length === 0) {
    const labels = [...new Set(data.pairs.map((p) => JSON.stringify(p.key)))];
    throw new RecipeStale(`the value labelled ${JSON.stringify(label)}`, labels.length ? `the labels ${listed(labels)}` : "no labelled values");
  }
  if (values.length > 1) throw new RecipeStale(`one value labelled ${JSON.stringify(label)}`, `${values.length} different ones (${listed(values.map((v) => JSON.stringify(v)))})`);
  return transform(values[0]!, as, `the value labelled ${JSON.stringify(label)}`, split);
}

/** The column index of `header` in a table (case aside); -1 when it has none. */
export function columnOf(table: Pick<Table, "headers">, header: string): number {
  const key = labelKey(header);
  return table.headers.findIndex((h) => labelKey(h) === key);
}

/** The name a table goes by in messages and in a recipe's `caption`: its caption, else its heading. */
export function captionOf(table: Pick<Table, "caption" | "context">): string {
  return table.caption || table.context;
}

/** The headers a table part needs: its columns', its column's and its conditions'. */
function neededHeaders(part: RecipePart): string[] {
  const own = [...Object.values(part.columns ?? {}).map((c) => c.header), ...(part.column ? [part.column.header] : []), ...(part.where ?? []).map((w) => w.header)];
  return [...new Set([...(part.table?.headers ?? []), ...own])];
}

/** The tables of the page that have every header of `ref` (and its caption, when it names one). */
export function tablesFor(data: PageData, ref: RecipeTable, extra: string[] = []): Table[] {
  const headers = [...new Set([...ref.headers, ...extra])];
  return data.tables.filter((t) => headers.every((h) => columnOf(t, h) >= 0) && (ref.caption === undefined || labelKey(captionOf(t)) === labelKey(ref.caption)));
}

function describeTable(ref: RecipeTable, headers: string[]): string {
  return `a table with the headers ${listed(headers.map((h) => JSON.stringify(h)))}${ref.caption !== undefined ? ` under ${JSON.stringify(ref.caption)}` : ""}`;
}

/** The rows of `table` that meet every condition (page order). */
export function selectRows(table: Table, where: readonly RecipeCondition[]): string[][] {
  return table.rows.filter((row) => where.every((c) => meets(row[columnOf(table, c.header)] ?? "", c)));
}

/**
 * Whether a cell's text meets every test of a condition: `equals`/`in` on its folded text, `contains`
 * on it with case aside, `gt`/`gte`/`lt`/`lte` on the number it reads as (a cell that is no number
 * meets none of these).
 */
export function meets(text: string, c: RecipeCondition): boolean {
  const cell = normalizeText(text);
  if (c.equals !== undefined && cell !== normalizeText(c.equals)) return false;
  if (c.in !== undefined && !c.in.map(normalizeText).includes(cell)) return false;
  if (c.contains !== undefined && !cell.toLowerCase().includes(normalizeText(c.contains).toLowerCase())) return false;
  if (c.gt === undefined && c.gte === undefined && c.lt === undefined && c.lte === undefined) return true;
  const n = parseNumber(cell);
  if (n === undefined) return false;
  return (c.gt === undefined || n > c.gt) && (c.gte === undefined || n >= c.gte) && (c.lt === undefined || n < c.lt) && (c.lte === undefined || n <= c.lte);
}

function readTable(data: PageData, part: RecipePart): unknown {
  const ref = part.table!;
  const headers = neededHeaders(part);
  const found = tablesFor(data, ref, headers);
  if (found.length !== 1) {
    const tables = data.tables.map((t) => `${t.headers.length ? `[${t.headers.map((h) => JSON.stringify(h)).join(", ")}]` : "[no headers]"}${captionOf(t) ? ` under ${JSON.stringify(captionOf(t))}` : ""}`);
    const seen = found.length > 1 ? `${found.length} such tables` : tables.length ? `the tables ${listed(tables)}` : "no tables";
    throw new RecipeStale(describeTable(ref, headers), seen);
  }
  const table = found[0]!;
  const rows = selectRows(table, part.where ?? []);
  const cell = (row: string[], column: RecipeColumn, i: number) => transform(row[columnOf(table, column.header)] ?? "", column.as, `the ${JSON.stringify(column.header)} cell of row ${i + 1}`, column.split);
  const one = (row: string[], i: number): unknown => {
    if (part.column) return cell(row, part.column, i);
    return Object.fromEntries(Object.entries(part.columns ?? {}).map(([key, column]) => [key, cell(row, column, i)]));
  };
  if (part.single) {
    if (rows.length !== 1) throw new RecipeStale(`one row of ${describeTable(ref, headers)}${conditions(part.where)}`, `${rows.length} such rows`);
    return one(rows[0]!, 0);
  }
  return rows.map(one);
}

function conditions(where: readonly RecipeCondition[] | undefined): string {
  if (!where?.length) return "";
  return ` where ${where.map((c) => `${JSON.stringify(c.header)} ${describeCondition(c)}`).join(" and ")}`;
}

/** A condition's tests as a message says them: `is "Pending"`, `contains "on a"`, `is over 10`. */
export function describeCondition(c: RecipeCondition): string {
  const tests = [
    ...(c.equals !== undefined ? [`is ${JSON.stringify(c.equals)}`] : []),
    ...(c.in !== undefined ? [`is one of ${listed(c.in.map((v) => JSON.stringify(v)))}`] : []),
    ...(c.contains !== undefined ? [`contains ${JSON.stringify(c.contains)}`] : []),
    ...(c.gt !== undefined ? [`is over ${c.gt}`] : []),
    ...(c.gte !== undefined ? [`is at least ${c.gte}`] : []),
    ...(c.lt !== undefined ? [`is under ${c.lt}`] : []),
    ...(c.lte !== undefined ? [`is at most ${c.lte}`] : []),
  ];
  return tests.join(" and ") || "is anything";
}

/** The lists (repeated items) of the page that lie under `context`. */
export function listsFor(data: PageData, context: string): PageData["groups"] {
  return data.groups.filter((g) => labelKey(g.context) === labelKey(context));
}

function readList(data: PageData, context: string, as: RecipeTransform): unknown {
  const found = listsFor(data, context);
  if (found.length !== 1) {
    const lists = data.groups.map((g) => JSON.stringify(g.context || "(no heading)"));
    throw new RecipeStale(`one list under ${JSON.stringify(context || "(no heading)")}`, found.length > 1 ? `${found.length} such lists` : lists.length ? `the lists ${listed(lists)}` : "no lists");
  }
  return found[0]!.items.map((item, i) => transform(item.text, as, `item ${i + 1} of the list`));
}

/**
 * A page text as a recipe's value: folded text, or the number the page writes; with `split`, the
 * array of its pieces (see {@link splitText}), each read so.
 */
export function transform(text: string, as: RecipeTransform, where: string, split?: string): string | number | Array<string | number> {
  if (split !== undefined) return splitText(text, split).map((piece, i) => scalar(piece, as, `piece ${i + 1} of ${where}`));
  return scalar(text, as, where);
}

function scalar(text: string, as: RecipeTransform, where: string): string | number {
  const folded = normalizeText(text);
  if (as === "text") return folded;
  const n = parseNumber(folded);
  if (n === undefined) throw new RecipeStale(`a number in ${where}`, JSON.stringify(folded));
  return n;
}

/** The pieces of a text that holds several values: split at `separator`, each whitespace folded and trimmed, empty ones left out. */
export function splitText(text: string, separator: string): string[] {
  return normalizeText(text)
    .split(separator.trim() || separator)
    .map(normalizeText)
    .filter(Boolean);
}

/** Sets `value` at a JSON Pointer inside `root`, making the objects on the way. */
function setAt(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  let at = root;
  for (const key of keys.slice(0, -1)) {
    if (typeof at[key] !== "object" || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]!] = value;
}

function listed(items: string[]): string {
  return items.length > SHOWN ? `${items.slice(0, SHOWN).join(", ")} and ${items.length - SHOWN} more` : items.join(", ");
}
