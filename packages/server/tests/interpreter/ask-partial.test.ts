/**
 * ASK reads part of the page first (the repeated items' fields and the main text left out) and
 * answers from that only when what was left out cannot change the answer (issue 26). On every
 * fixture page, for questions built from what the page shows (each table by its caption and
 * headers, each list by its context and keys, labelled values, the title), an answer given from the
 * partial read is the answer the full read gives; where it cannot be sure, it asks for the full read.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { answerFromPage, answerTextFromPage } from "../../src/interpreter/read/index.js";
import { NeedsFullRead, readPage } from "../../src/interpreter/read/index.js";
import type { PageData } from "../../src/interpreter/page/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { FIXTURES, launchBrowser, serveFixtures } from "./_setup.js";

const PG_PAGE = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";

let browser: Browser;
let server: StaticServer;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A field name from what the page shows: "Storage Size" → storageSize. */
function fieldName(text: string): string {
  const w = text.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim().split(" ").filter(Boolean).slice(0, 4);
  return w.map((x, i) => (i ? x[0]!.toUpperCase() + x.slice(1) : x)).join("") || "value";
}

const str = { type: "string" };
const records = (fields: string[], nullable: boolean) => ({
  type: "object",
  additionalProperties: false,
  required: ["value"],
  properties: {
    value: {
      type: "array",
      items: { type: "object", additionalProperties: false, required: fields, properties: Object.fromEntries(fields.map((f) => [f, nullable ? { type: ["string", "null"] } : str])) },
    },
  },
});
const scalars = { type: "object", additionalProperties: false, required: ["value"], properties: { value: { type: "array", items: str } } };
const oneString = { type: "object", additionalProperties: false, required: ["value"], properties: { value: str } };

/** Questions and schemas a workflow might ask of this page, built from its full read. */
function questionsFor(data: PageData): Array<{ question: string; schema?: Record<string, unknown> }> {
  const out: Array<{ question: string; schema?: Record<string, unknown> }> = [];
  for (const table of data.tables) {
    const fields = [...new Set(table.headers.filter(Boolean).map(fieldName))].slice(0, 5);
    const about = table.caption || table.context || "table";
    if (fields.length) {
      out.push({ question: `the ${about}`, schema: records(fields, false) });
      out.push({ question: "the rows", schema: records(fields.slice(0, 2), true) });
      out.push({ question: `the ${table.headers[0]} column`, schema: scalars });
    }
  }
  for (const group of data.groups.slice(0, 12)) {
    const keys = [...new Set(group.items[0]?.fields.flatMap((f) => f.keys) ?? [])].filter((k) => k.length < 30).map(fieldName);
    if (keys.length) out.push({ question: `the ${group.context || "items"}`, schema: records([...new Set(keys)].slice(0, 2), false) });
    out.push({ question: `the ${group.context || "items"}`, schema: scalars });
  }
  for (const pair of data.pairs.slice(0, 8)) out.push({ question: `the ${pair.key}`, schema: oneString }, { question: `the ${pair.key}` });
  out.push({ question: "the page title" }, { question: "what does the page say" }, { question: "the headings", schema: scalars });
  out.push({ question: "the first 3 rows", schema: records(["name"], false) }, { question: "how many items are there", schema: oneString });
  return out;
}

type Outcome = { value: unknown } | { error: string };
function outcome(data: PageData, question: string, schema?: Record<string, unknown>): Outcome {
  try {
    return { value: schema ? answerFromPage(structuredClone(data), question, schema) : answerTextFromPage(structuredClone(data), question) };
  } catch (error) {
    if (error instanceof NeedsFullRead) throw error;
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

describe("the partial read of a page", () => {
  // redirect.html leaves itself 150 ms after load: its navigation, when it fires while the next
  // page is asked for, aborts that request, so it has nothing to read that stays.
  const pages = readdirSync(FIXTURES).filter((f) => f.endsWith(".html") && f !== "redirect.html");

  it("gives, on every fixture page, only answers the full read gives", async () => {
    let settled = 0;
    let asked = 0;
    const urls = [...pages.map((p) => `${server.url}/${p}`), ...(existsSync(PG_PAGE) ? [`file://${PG_PAGE}`] : [])];
    for (const url of urls) {
      await page.goto(url);
      const full = await readPage(page);
      const part = await readPage(page, { partial: true });
      expect(full.partial, url).toBeUndefined();
      expect(part.partial, url).toBe(true);
      for (const { question, schema } of questionsFor(full)) {
        asked += 1;
        const expected = outcome(full, question, schema);
        let got: Outcome;
        try {
          got = outcome(part, question, schema);
        } catch (error) {
          expect(error, `${url}: ${question}`).toBeInstanceOf(NeedsFullRead);
          continue;
        }
        // The interpreter answers a failure again from the full read; a success must be the full read's.
        if ("error" in got) continue;
        expect(got, `${url}: ${JSON.stringify(question)} ${JSON.stringify(schema ?? null)}`).toEqual(expected);
        settled += 1;
      }
    }
    console.log(`partial read: ${settled} of ${asked} questions settled`);
    // The partial read settles many questions (else it only adds a read).
    expect(asked).toBeGreaterThan(200);
    expect(settled / asked).toBeGreaterThan(0.3);
  });

  it("settles the main example's table, leaving the repeated items' fields and the main text out", async () => {
    if (!existsSync(PG_PAGE)) return;
    await page.goto(`file://${PG_PAGE}`);
    const part = await readPage(page, { partial: true });
    expect(part.mainText).toBe("");
    // A definition list's items are read as term and definition alike (no walk of their elements).
    expect(part.groups.filter((g) => g.tag !== "dl").every((g) => g.items.every((it) => it.fields.length === 0))).toBe(true);
    const schema = records(["name", "storageSize", "description", "range"], false);
    const answer = answerFromPage(part, "the table of numeric types", schema) as { value: Array<Record<string, string>> };
    expect(answer).toEqual(answerFromPage(await readPage(page), "the table of numeric types", schema));
    expect(answer.value.map((r) => r.name)).toEqual(["smallint", "integer", "bigint", "decimal", "numeric", "real", "double precision", "smallserial", "serial", "bigserial"]);
  });

  it("asks for the full read where a list may fit as well as the table, or the answer is the main text", async () => {
    await page.goto(`${server.url}/data.html`);
    const part = await readPage(page, { partial: true });
    expect(() => answerTextFromPage(part, "what does the page say")).toThrow(NeedsFullRead);
    // A question with a part that may be a condition: whether a label excuses it needs every label.
    expect(() => answerFromPage(part, "the first 3 rows", records(["name"], false))).toThrow(NeedsFullRead);
  });

  const NamePrice = {
    type: "object",
    additionalProperties: false,
    required: ["value"],
    properties: { value: { type: "array", items: { type: "object", additionalProperties: false, required: ["name", "price"], properties: { name: str, price: { type: "number" } } } } },
  };
  const interpreter = createDeterministicInterpreter();
  const ask = (question: string) =>
    interpreter.ask({ page, question, schema: { name: "answer", schema: NamePrice }, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });

  it("reads the list of cards the question names, not the table the partial read alone would pick", async () => {
    await page.goto(`${server.url}/table-and-cards.html`);
    const part = await readPage(page, { partial: true });
    expect(() => answerFromPage(part, "the offers", NamePrice)).toThrow(/a list may fit as well as the best table/);
    const offers = { value: [{ name: "Spring deal", price: 3 }, { name: "Summer deal", price: 4 }, { name: "Autumn deal", price: 6 }] };
    expect(await ask("the offers")).toEqual(offers);
    // The table the question names is settled by the partial read, and is the full read's answer.
    expect(answerFromPage(part, "the rates", NamePrice)).toEqual({ value: [{ name: "Backup", price: 2 }, { name: "Support", price: 9 }] });
    expect(await ask("the rates")).toEqual({ value: [{ name: "Backup", price: 2 }, { name: "Support", price: 9 }] });
  });

  it("reads the list that repeats a table's rows and adds one, as the full read does", async () => {
    await page.goto(`${server.url}/table-repeated.html`);
    const part = await readPage(page, { partial: true });
    expect(() => answerFromPage(part, "the rates", NamePrice)).toThrow(/a list repeats a fitting table's rows/);
    expect(await ask("the rates")).toEqual({ value: [{ name: "Backup", price: 2 }, { name: "Support", price: 9 }, { name: "Domain", price: 1 }] });
  });
});
