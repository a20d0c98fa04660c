import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { launchBrowser, serveFixtures } from "./_setup.js";

const PG_PAGE = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";

let browser: Browser;
let server: StaticServer;
let context: BrowserContext;
let page: Page;
const interpreter = createDeterministicInterpreter();

/** Asks like the runtime does: the zod schema goes through the response format, the answer back through decodeAnswer. */
async function ask<S extends z.ZodType>(question: string, schema: S): Promise<z.infer<S>> {
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  const raw = await interpreter.ask({ page, question, schema: normalized, timeoutMs: 10_000, signal: new AbortController().signal });
  return decodeAnswer(schema, raw) as z.infer<S>;
}

async function askFailure(question: string, schema: z.ZodType): Promise<InterpreterError> {
  const error = await ask(question, schema).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InterpreterError);
  return error as InterpreterError;
}

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("ASK on a real page nobody on the project wrote", () => {
  const pgTest = existsSync(PG_PAGE) ? it : it.skip;
  const pgTitle = existsSync(PG_PAGE)
    ? "reads Table 8.2 of the PostgreSQL docs"
    : `reads Table 8.2 of the PostgreSQL docs — SKIPPED: ${PG_PAGE} is absent (apt-get install postgresql-doc-15)`;
  pgTest(pgTitle, async () => {
    await page.goto(`file://${PG_PAGE}`);
    const rows = await ask(
      "the table of numeric types",
      z.array(z.object({ name: z.string(), storageSize: z.string(), description: z.string(), range: z.string() })),
    );
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ name: "smallint", storageSize: "2 bytes", description: "small-range integer", range: "-32768 to +32767" });
    expect(rows.map((r) => r.name)).toEqual(["smallint", "integer", "bigint", "decimal", "numeric", "real", "double precision", "smallserial", "serial", "bigserial"]);
  });
});
