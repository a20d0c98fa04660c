/**
 * Answers grounded in the page: a model's ASK answer counts only when every value in it is text of
 * the page view the model was sent. The model answers `{ answer, quotes }`
 * ({@link groundedResponseSchema}): `answer` in the step's own structure, `quotes` the page text
 * each value comes from (`{ path, quote }`, `path` a JSON Pointer into `answer`). The server checks
 * each quote against the view's page content (never its own lines: the `Page:`/`URL:` prefixes,
 * role words, states, references; `../page/view-source.ts`) and each value against its quotes
 * ({@link groundAnswer}):
 *
 * - a text value is found in a quote of its path (or of an item holding it, `/items/0` for
 *   `/items/0/price`), or, with none, anywhere in the page's text; an enum value the same way (its
 *   `_` and `-` read as spaces); an ISO date as the page writes a date (`2024-03-05`, `March 5,
 *   2024`, `5 Mar 2024`, `05.03.2024`); an absolute URL also as a link target the page writes
 *   relative to its own URL;
 * - a number is written in a quote (any of `42`, `42.00`, `1,234`, `1.234,5`, `$42`, read as the
 *   model-free reader reads page numbers), or is the count of its path's own quotes (each at a
 *   different place of the view), or their sum (each quote holding one number);
 * - a yes/no has at least one quote, of its path or of an item holding it;
 * - `null` needs nothing: it is the answer for what the page does not state.
 *
 * What passes is kept as data ({@link GroundedValue}: each value, its basis, its quotes and where
 * the view shows them) on the step's report, for a later read recipe.
 */
import { WRAPPER_KEY } from "@wf/core";
import {
  PAGE_DATA,
  contentIn,
  elementAt,
  findText,
  foldText,
  lineAt,
  numbersIn,
  shownIn,
  LINK,
  type TextRange,
  type ViewSource,
} from "../page/index.js";
import type { GroundedValue, GroundingQuote } from "../types.js";

type Json = Record<string, unknown>;

/** The property of the grounded answer that holds the step's answer. */
export const ANSWER_KEY = "answer";
/** The property of the grounded answer that holds the quotes. */
export const QUOTES_KEY = "quotes";

/** One quote of a grounded answer, as the model writes it. */
export interface AnswerQuote {
  /** Where the value is in `answer`: a JSON Pointer (`/items/0/price`); `items[0].price` is read too. */
  path: string;
  /** Text copied from the page. */
  quote: string;
}

const QUOTES_SCHEMA = {
  type: "array",
  description:
    "For each value of the answer, the page text it comes from: `path` is the value's place in `answer` as a JSON Pointer (/total, /items/0/price), or an item's (/items/0) for all its fields; `quote` is text copied character for character from the page. A count, sum or yes/no gets the quotes it was read from (one per item counted).",
  items: {
    type: "object",
    properties: {
      path: { type: "string", description: "JSON Pointer of the value (or of the item) in `answer`, e.g. /items/0/price." },
      quote: { type: "string", description: "Text copied exactly from the page that states the value." },
    },
    required: ["path", "quote"],
    additionalProperties: false,
  },
} as const;

const envelopes = new WeakMap<object, { name: string; schema: Json }>();

/**
 * The response format of a grounded answer: `{ answer: <the step's schema>, quotes: [{ path,
 * quote }] }`, strict like the step's own. The step's `$defs` move to the root; a step schema
 * that refers to its own root (`$ref: "#"`) moves into `$defs` and is referred to from `answer`.
 * The name is the step's.
 */
export function groundedResponseSchema(step: { name: string; schema: Json }): { name: string; schema: Json } {
  const known = envelopes.get(step.schema);
  if (known && known.name === step.name) return known;
  const { $defs, ...rest } = step.schema as Json & { $defs?: Json };
  const defs: Json = { ...($defs ?? {}) };
  let answer: Json = rest;
  if (refersToRoot(rest)) {
    let name = "wf_answer";
    while (name in defs) name = `_${name}`;
    defs[name] = rewriteRootRefs(rest, `#/$defs/${name}`);
    for (const key of Object.keys(defs)) if (key !== name) defs[key] = rewriteRootRefs(defs[key], `#/$defs/${name}`);
    answer = { $ref: `#/$defs/${name}` };
  }
  const schema: Json = {
    type: "object",
    properties: { [ANSWER_KEY]: answer, [QUOTES_KEY]: QUOTES_SCHEMA },
    required: [ANSWER_KEY, QUOTES_KEY],
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
  const envelope = { name: step.name, schema };
  envelopes.set(step.schema, envelope);
  return envelope;
}

function refersToRoot(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersToRoot);
  if (!node || typeof node !== "object") return false;
  return Object.entries(node).some(([k, v]) => (k === "$ref" && v === "#") || refersToRoot(v));
}

function rewriteRootRefs(node: unknown, to: string): Json {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== "object") return n;
    return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, k === "$ref" && v === "#" ? to : walk(v)]));
  };
  return walk(node) as Json;
}

/**
 * The answer and quotes of a grounded answer, or what is wrong with its shape (checked here too:
 * a step schema zod cannot read leaves the envelope unchecked).
 */
export function splitGroundedAnswer(json: unknown): { answer: unknown; quotes: AnswerQuote[] } | { problem: string } {
  const o = json as { answer?: unknown; quotes?: unknown } | null;
  const quotes = o && typeof o === "object" ? o.quotes : undefined;
  if (!o || typeof o !== "object" || !(ANSWER_KEY in o) || !Array.isArray(quotes)) return { problem: `it needs \`${ANSWER_KEY}\` (the answer in the question's structure) and \`${QUOTES_KEY}\` (a list of { path, quote }).` };
  if (!quotes.every((q) => q && typeof q === "object" && typeof (q as AnswerQuote).path === "string" && typeof (q as AnswerQuote).quote === "string")) {
    return { problem: `each of \`${QUOTES_KEY}\` needs \`path\` and \`quote\` (strings).` };
  }
  return { answer: o.answer, quotes: quotes as AnswerQuote[] };
}

/** A value the page does not support, and why. */
export interface UngroundedValue {
  /** JSON Pointer of the value (or of the quote) in `answer`. */
  path: string;
  /** Why, one clause: `"99.99" is not in its quote "Total 42.00"`. */
  reason: string;
}

/** What {@link groundAnswer} found: each supported value, and each value or quote that is not. */
export interface AnswerGrounding {
  values: GroundedValue[];
  problems: UngroundedValue[];
}

/** A quote of the answer found in the view: its places, each with its page text. */
interface FoundQuote {
  path: string;
  quote: string;
  places: Array<TextRange & { content: string }>;
}

/**
 * Checks every value of `answer` against `quotes` and the page view `source` (see the module's
 * comment); `schema` is the step's JSON Schema (enums, formats), `pageUrl` the page's URL (link
 * targets are resolved against it).
 */
export function groundAnswer(answer: unknown, quotes: readonly AnswerQuote[], schema: Json, source: ViewSource, pageUrl: string): AnswerGrounding {
  const problems: UngroundedValue[] = [];
  const found: FoundQuote[] = [];
  for (const q of quotes) {
    const path = pointer(q.path);
    if (path === undefined) {
      problems.push({ path: q.path, reason: `the quote's path ${JSON.stringify(q.path)} is not a JSON Pointer into the answer (write /total, /items/0/price)` });
      continue;
    }
    const places = placesOf(source, q.quote);
    if (places.length === 0) {
      problems.push({ path, reason: `its quote ${JSON.stringify(clip(q.quote))} is ${whyNotFound(source, q.quote)}` });
      continue;
    }
    found.push({ path, quote: q.quote, places });
  }
  const byPath = new Map<string, FoundQuote[]>();
  for (const q of found) {
    const list = byPath.get(q.path);
    if (list) list.push(q);
    else byPath.set(q.path, [q]);
  }
  const values: GroundedValue[] = [];
  for (const leaf of leaves(answer, schema, schema, "")) {
    const own = byPath.get(leaf.path) ?? [];
    // The quotes of the value's path and of every item holding it (`/items/0`, `/items`, ``).
    const applicable = [...own];
    for (let at = leaf.path.lastIndexOf("/"); at >= 0; at = leaf.path.lastIndexOf("/", at - 1)) {
      applicable.push(...(byPath.get(leaf.path.slice(0, at)) ?? []));
      if (at === 0) break;
    }
    const result = groundLeaf(leaf, own, applicable, source, pageUrl);
    if ("reason" in result) problems.push({ path: leaf.path, reason: result.reason });
    else values.push(result);
  }
  return { values, problems };
}

/** Where a quote is in the view, as shown (markup included) or as page text alone; places holding page text only. */
function placesOf(source: ViewSource, quote: string): Array<TextRange & { content: string }> {
  const seen = new Set<string>();
  const out: Array<TextRange & { content: string }> = [];
  for (const range of [...findText(source, quote, { in: "content", kinds: PAGE_DATA }), ...findText(source, quote, { in: "view" })]) {
    const key = `${range.start}:${range.end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const content = contentIn(source, range, PAGE_DATA);
    if (/[\p{L}\p{N}]/u.test(content)) out.push({ ...range, content });
  }
  return out.sort((a, b) => a.start - b.start);
}

function whyNotFound(source: ViewSource, quote: string): string {
  if (!foldText(quote)) return "empty";
  if (findText(source, quote, { in: "view" }).length > 0) return "the view's own text (its header, role words or states), not the page's";
  return "not text of the page";
}

interface Leaf {
  path: string;
  value: string | number | boolean;
  node: Json;
}

/** The answer's values that are not containers or null, each with its schema node. */
function* leaves(value: unknown, node: unknown, root: Json, path: string): Generator<Leaf> {
  const n = resolve(node, value, root);
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* leaves(value[i], n.items, root, `${path}/${i}`);
    return;
  }
  if (typeof value === "object") {
    const props = (n.properties ?? {}) as Json;
    for (const [key, v] of Object.entries(value)) yield* leaves(v, props[key], root, `${path}/${escapePointer(key)}`);
    return;
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") yield { path, value, node: n };
}

/** The schema node `value` is an instance of: `$ref`s followed, the `anyOf` branch that takes it. */
function resolve(node: unknown, value: unknown, root: Json, depth = 0): Json {
  if (!node || typeof node !== "object" || depth > 20) return {};
  let n = node as Json;
  if (typeof n.$ref === "string") {
    const ref = n.$ref;
    const target = ref === "#" ? root : ref.startsWith("#/$defs/") ? ((root.$defs ?? {}) as Json)[ref.slice(8)] : undefined;
    return resolve(target, value, root, depth + 1);
  }
  if (Array.isArray(n.anyOf)) {
    const branches = (n.anyOf as unknown[]).map((b) => resolve(b, value, root, depth + 1));
    n = branches.find((b) => takes(b, value)) ?? branches[0] ?? {};
  }
  return n;
}

function takes(node: Json, value: unknown): boolean {
  if (Array.isArray(node.enum)) return node.enum.includes(value);
  const types = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === "string" ? [node.type] : [];
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  return types.length === 0 || types.includes(type) || (type === "integer" && types.includes("number"));
}

/** Checks one value; its grounding, or why not. */
function groundLeaf(leaf: Leaf, own: FoundQuote[], applicable: FoundQuote[], source: ViewSource, pageUrl: string): GroundedValue | { reason: string } {
  const { value, path } = leaf;
  const quotesOf = (list: FoundQuote[]) => list.map((q) => quoteRecord(source, q.places[0]!, q.places.length));
  if (typeof value === "boolean") {
    if (applicable.length === 0) return { reason: `${value} is a yes/no with no quote: give the page text it was read from` };
    return { path, value, basis: "judged", quotes: quotesOf(applicable) };
  }
  const scopes: Array<TextRange & { content: string }> = applicable.flatMap((q) => q.places);
  const anywhere = applicable.length === 0;
  if (typeof value === "number") {
    if (anywhere) {
      if (wholePage(source).numbers.some((n) => sameNumber(n, value))) {
        const place = numberPlace(source, value);
        if (place) return { path, value, basis: "quoted", quotes: [quoteRecord(source, place, 1)] };
      }
    } else {
      const inScope = scopes.find((s) => numbersIn(s.content).some((n) => sameNumber(n, value)));
      if (inScope) return { path, value, basis: "quoted", quotes: [quoteRecord(source, inScope, 1)] };
    }
    const distinct = distinctPlaces(own);
    if (own.length > 0 && distinct.length === value) return { path, value, basis: "count", quotes: distinct.map((p) => quoteRecord(source, p, 1)) };
    if (own.length > 1) {
      const each = own.map((q) => numbersIn(q.places[0]!.content));
      if (each.every((n) => n.length === 1) && sameNumber(each.reduce((sum, n) => sum + n[0]!, 0), value)) return { path, value, basis: "sum", quotes: quotesOf(own) };
    }
    if (anywhere) return { reason: `${value} is not written on the page; a count or a sum needs the quotes it was made from` };
    return { reason: `${value} is not written in its quote${applicable.length === 1 ? "" : "s"} ${quotesList(applicable)}${own.length > 0 ? `, nor is it their count (${distinct.length}) or sum` : ""}` };
  }
  // A text.
  if (!value.trim()) return { reason: "an empty text is not on the page; answer null where the page does not state a value" };
  for (const candidate of textForms(value, leaf.node)) {
    if (anywhere) {
      const places = findText(source, candidate, { in: "content", kinds: PAGE_DATA });
      if (places.length > 0) return { path, value, basis: "quoted", quotes: [quoteRecord(source, places[0]!, places.length)] };
    } else {
      for (const scope of scopes) {
        const inside = findText(source, candidate, { in: "content", kinds: PAGE_DATA }, scope);
        if (inside.length > 0) return { path, value, basis: "quoted", quotes: [quoteRecord(source, scope, 1)] };
      }
    }
  }
  const date = isoDate(value);
  if (date) {
    const place = (anywhere ? source.lines.map((l) => ({ ...l, content: contentIn(source, l, PAGE_DATA) })) : scopes).find((s) => datesIn(s.content).includes(date));
    if (place) return { path, value, basis: "quoted", quotes: [quoteRecord(source, place, 1)] };
  }
  const link = linkPlace(source, value, pageUrl, anywhere ? undefined : scopes);
  if (link) return { path, value, basis: "quoted", quotes: [quoteRecord(source, link, 1)] };
  if (anywhere) return { reason: `${JSON.stringify(clip(value))} is not text of the page` };
  return { reason: `${JSON.stringify(clip(value))} is not in its quote${applicable.length === 1 ? "" : "s"} ${quotesList(applicable)}` };
}

/** The forms a text value may take on the page: as answered, without closing punctuation, an enum value's `_`/`-` as spaces. */
function textForms(value: string, node: Json): string[] {
  const forms = [value.trim()];
  const bare = value.trim().replace(/[.,;:!?]+$/, "");
  if (bare && bare !== forms[0]) forms.push(bare);
  if (Array.isArray(node.enum) && /[_-]/.test(value)) forms.push(value.replace(/[_-]+/g, " ").trim());
  return forms;
}

/** The first line of the view whose page text writes `value` as a number. */
function numberPlace(source: ViewSource, value: number): TextRange | undefined {
  const { lineNumbers } = wholePage(source);
  const at = lineNumbers.findIndex((numbers) => numbers.some((n) => sameNumber(n, value)));
  return at < 0 ? undefined : source.lines[at];
}

const wholePages = new WeakMap<ViewSource, { numbers: number[]; lineNumbers: number[][] }>();

/** The numbers the page's text writes, each line's and all of them, read once a view. */
function wholePage(source: ViewSource): { numbers: number[]; lineNumbers: number[][] } {
  let page = wholePages.get(source);
  if (!page) {
    const lineNumbers = source.lines.map((line) => numbersIn(contentIn(source, line, PAGE_DATA)));
    page = { numbers: lineNumbers.flat(), lineNumbers };
    wholePages.set(source, page);
  }
  return page;
}

/** The quotes' places, one each, at different places of the view (a quote given twice counts once). */
function distinctPlaces(quotes: FoundQuote[]): TextRange[] {
  const used: TextRange[] = [];
  for (const q of quotes) {
    const free = q.places.find((p) => !used.some((u) => u.start < p.end && p.start < u.end));
    if (free) used.push(free);
  }
  return used;
}

function quoteRecord(source: ViewSource, range: TextRange, occurrences: number): GroundingQuote {
  const line = lineAt(source, range.start);
  const element = elementAt(source, range);
  return {
    text: contentIn(source, range, PAGE_DATA),
    line: line?.index ?? -1,
    lineText: line ? shownIn(source, line) : "",
    ...(element ? { ref: element.ref } : {}),
    occurrences,
  };
}

/** An absolute URL the page writes as a link target relative to its own URL: the target's place. */
function linkPlace(source: ViewSource, value: string, pageUrl: string, scopes?: TextRange[]): TextRange | undefined {
  let want: string;
  try {
    want = new URL(value).href;
  } catch {
    return undefined;
  }
  for (let i = 0; i < source.text.length; i++) {
    if (source.kinds[i] !== LINK) continue;
    let end = i;
    while (end < source.text.length && source.kinds[end] === LINK) end++;
    const range = { start: i, end };
    i = end;
    if (scopes && !scopes.some((s) => s.start <= range.start && s.end >= range.end)) continue;
    try {
      if (new URL(source.text.slice(range.start, range.end), pageUrl).href === want) return range;
    } catch {
      // not a URL
    }
  }
  return undefined;
}

function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** The calendar date of an ISO date or date-time at midnight (`2024-03-05`, `2024-03-05T00:00:00Z`), else undefined. */
function isoDate(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?$/.exec(value.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/**
 * The dates a text writes, as `YYYY-MM-DD`: ISO, `March 5, 2024`, `5 March 2024`, `Mar 5 2024`,
 * `05.03.2024` (day first), `2024/03/05`, and `03/05/2024` only where the day is over 12 (else
 * it could be either).
 */
function datesIn(text: string): string[] {
  const out: string[] = [];
  const iso = (y: string | number, m: number, d: number) => (m >= 1 && m <= 12 && d >= 1 && d <= 31 ? `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}` : undefined);
  const month = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
  const push = (date: string | undefined) => date && out.push(date);
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) push(iso(m[1]!, Number(m[2]), Number(m[3])));
  for (const m of text.matchAll(/\b(\d{4})\/(\d{1,2})\/(\d{1,2})\b/g)) push(iso(m[1]!, Number(m[2]), Number(m[3])));
  for (const m of text.matchAll(/\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/g)) push(iso(m[3]!, Number(m[2]), Number(m[1])));
  for (const m of text.matchAll(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g)) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    if (a > 12) push(iso(m[3]!, b, a));
    else if (b > 12) push(iso(m[3]!, a, b));
  }
  const name = "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
  for (const m of text.matchAll(new RegExp(`\\b${name}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "gi"))) push(iso(m[3]!, month(m[1]!), Number(m[2])));
  for (const m of text.matchAll(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\.?\\s+(?:of\\s+)?${name},?\\s+(\\d{4})\\b`, "gi"))) push(iso(m[3]!, month(m[2]!), Number(m[1])));
  return out;
}

/**
 * A quote's path as a JSON Pointer into the answer (`/items/0/price`), from a pointer or the
 * forms models write (`items[0].price`, `items.0.price`, `$.answer.items[0]`); `""` is the whole
 * answer. Undefined when it cannot be read.
 */
export function pointer(path: string): string | undefined {
  let p = path.trim();
  if (p === "" || p === "/" || p === "$" || p === "#") return "";
  if (p.startsWith("#")) p = p.slice(1);
  if (p.startsWith("/")) {
    const parts = p.slice(1).split("/");
    if (parts[0] === ANSWER_KEY) parts.shift();
    return parts.length === 0 ? "" : `/${parts.join("/")}`;
  }
  p = p.replace(/^\$\.?/, "");
  const parts: string[] = [];
  for (const m of p.matchAll(/([^.[\]]+)|\[(\d+|"[^"]*"|'[^']*')\]/g)) {
    const part = m[1] ?? m[2]!.replace(/^["']|["']$/g, "");
    parts.push(escapePointer(part));
  }
  if (parts.length === 0) return undefined;
  if (parts[0] === ANSWER_KEY) parts.shift();
  return parts.length === 0 ? "" : `/${parts.join("/")}`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function quotesList(quotes: FoundQuote[]): string {
  const shown = quotes.slice(0, 3).map((q) => JSON.stringify(clip(q.quote, 80)));
  return shown.join(", ") + (quotes.length > 3 ? ` (and ${quotes.length - 3} more)` : "");
}

function clip(text: string, max = 120): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The user's path of a value: the answer's JSON Pointer without the wrapper of a non-object
 * schema (`/value/0/price` → `/0/price`; `/value` → `(the answer)`).
 */
export function userPath(path: string, wrapped: boolean): string {
  if (!wrapped) return path || "(the answer)";
  if (path === `/${WRAPPER_KEY}` || path === "") return "(the answer)";
  return path.startsWith(`/${WRAPPER_KEY}/`) ? path.slice(WRAPPER_KEY.length + 1) : path;
}
