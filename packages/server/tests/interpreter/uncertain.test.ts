/**
 * The grammar's reader never guesses (issue 9): a question with a part it cannot apply fails with
 * WF_ANSWER_UNCERTAIN naming that part, and the true answers stay.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Browser, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, type InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { launchBrowser, rejection, serveFixtures } from "./_setup.js";

let browser: Browser;
let server: StaticServer;
let page: Page;
const interpreter = createDeterministicInterpreter();

async function ask<S extends z.ZodType>(question: string, schema?: S): Promise<unknown> {
  const base = { page, question, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} };
  if (!schema) return interpreter.ask(base);
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  return decodeAnswer(schema, await interpreter.ask({ ...base, schema: normalized }));
}

async function uncertain(question: string, schema?: z.ZodType): Promise<InterpreterError> {
  const error = await rejection(ask(question, schema));
  expect(error.code, error.message).toBe("WF_ANSWER_UNCERTAIN");
  expect(error.message).toContain("A model would answer it");
  return error;
}

const Result = z.object({ name: z.string(), context: z.string() });
const Param = z.object({ parameter: z.string(), type: z.string(), description: z.string() });
const Constant = z.object({ name: z.string(), description: z.string() });

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("WF_ANSWER_UNCERTAIN on a search results page", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/search-results.html`);
  });

  it("still reads the whole table and the whole list", async () => {
    const params = (await ask("the parameters", z.array(Param))) as z.infer<typeof Param>[];
    expect(params.map((p) => p.parameter)).toEqual(["init", "repr", "order", "kw_only"]);
    expect(await ask("the search results", z.array(Result))).toHaveLength(36);
  });

  it("a filter: which rows have a description that contains …", async () => {
    const error = await uncertain("which parameters have a description that contains 'raises'", z.array(Param));
    expect(error.details.kind).toBe("filter");
    expect(error.message).toContain("filters");
  });

  it("a first N: the first 5 search results", async () => {
    const error = await uncertain("the first 5 search results", z.array(Result));
    expect(error.details).toMatchObject({ kind: "first-n", part: "first 5" });
  });

  it("an ordinal: the second search result", async () => {
    const error = await uncertain("the second search result", Result);
    expect(error.details).toMatchObject({ kind: "ordinal", part: "second" });
  });

  it("a count: how many search results are there", async () => {
    const error = await uncertain("how many search results are there?", z.number());
    expect(error.details).toMatchObject({ kind: "count", part: "how many" });
  });

  it("a field it cannot place: the search summary is not the Search field's value", async () => {
    const error = await uncertain("the search summary");
    expect(error.details).toMatchObject({ kind: "unplaced", part: "summary" });
    await uncertain("the search summary", z.string());
  });

  it("a section it cannot resolve", async () => {
    const error = await uncertain('the parameters in the "Options" section', z.array(Param));
    expect(error.details).toMatchObject({ kind: "section", part: "Options" });
  });
});

describe("WF_ANSWER_UNCERTAIN on a docs page of constants in two sections", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/constants.html`);
  });

  it("several lists fit equally and the question picks none: every built-in constant", async () => {
    const error = await uncertain("List every built-in constant on this page", z.array(Constant));
    expect(error.details.kind).toBe("several-sources");
  });

  it("a section the page has: the constants added by the site module", async () => {
    const site = (await ask('the constants in the "Constants added by the site module" section', z.array(Constant))) as z.infer<typeof Constant>[];
    expect(site.map((c) => c.name)).toEqual(["quit", "copyright", "license"]);
  });

  it("a value under a section is not read per section", async () => {
    const error = await uncertain('the description in the "Constants added by the site module" section', z.string());
    expect(error.details.kind).toBe("section");
  });
});

describe("WF_ANSWER_UNCERTAIN keeps secrets out", () => {
  it("quotes the question's words as written and masks the step's secrets, also in details.part", async () => {
    await page.goto(`${server.url}/search-results.html`);
    const secret = "Tok-3F9A-Very-Secret";
    const error = await rejection(
      interpreter.ask({ page, question: `the search summary ${secret}`, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [secret], report: {} }),
    );
    expect(error.code).toBe("WF_ANSWER_UNCERTAIN");
    expect(error.details.part).toBe("summary [secret]");
    expect(error.message).not.toMatch(/3f9a/i);
  });
});
