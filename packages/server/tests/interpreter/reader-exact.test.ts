/**
 * The reader answers only what it is sure of (issue 24): a count it can read off a counter, the
 * checked items of a to-do list, the rows under a table's section row, and fields sourced from the
 * element that holds them; otherwise WF_ANSWER_UNCERTAIN, never a wrong answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import fc from "fast-check";
import type { Browser, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, isInterpreterError } from "../../src/interpreter/index.js";
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
async function uncertain(question: string, schema?: z.ZodType) {
  const error = await rejection(ask(question, schema));
  expect(error.code, error.message).toBe("WF_ANSWER_UNCERTAIN");
  return error;
}

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a count and a completed-state in one question", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/todos.html`);
  });

  it("reads the counter text and the checked items", async () => {
    const Todos = z.object({ itemsLeft: z.number(), completed: z.array(z.string()) });
    expect(await ask("how many items are left, and which are marked as completed?", Todos)).toEqual({
      itemsLeft: 2,
      completed: ["Pay rent", "Call the plumber"],
    });
  });

  it("reads each alone: the count as a number, the completed (and the active) items as a list", async () => {
    expect(await ask("How many items are left?", z.number())).toBe(2);
    expect(await ask("Which to-dos are marked as completed?", z.array(z.string()))).toEqual(["Pay rent", "Call the plumber"]);
    expect(await ask("the active items", z.object({ active: z.array(z.string()) }))).toEqual({ active: ["Buy milk", "Walk the dog"] });
  });

  it("refuses a count the page shows no counter for", async () => {
    const error = await uncertain("how many items are overdue?", z.number());
    expect(error.details.kind).toBe("count");
  });
});

describe("a table divided by section rows", () => {
  const Code = z.object({ code: z.string(), name: z.string() });
  beforeAll(async () => {
    await page.goto(`${server.url}/error-codes.html`);
  });

  it("lists the rows under the section row the question names, not the whole table", async () => {
    const rows = (await ask("List every code and name under Class 08 — Connection Exception in this table", z.array(Code))) as z.infer<typeof Code>[];
    expect(rows.map((r) => r.code)).toEqual(["08000", "08003", "08006", "08001", "08004", "08007", "08P01"]);
    expect(rows[6]).toEqual({ code: "08P01", name: "protocol_violation" });
  });

  it("takes the section row by the start of its text, quoted, or as a section", async () => {
    expect(((await ask('the codes and names under "Class 01"', z.array(Code))) as unknown[]).length).toBe(4);
    expect(((await ask('the error codes in the "Class 02 — No Data" section', z.array(Code))) as unknown[]).length).toBe(2);
  });

  it("still reads the whole table when the question restricts nothing", async () => {
    expect(((await ask("the error codes and condition names", z.array(Code))) as unknown[]).length).toBe(17);
  });

  it("refuses a section row the table does not have, rather than answering with every row", async () => {
    const error = await uncertain("List every code and name under Class 42 — Syntax Error in this table", z.array(Code));
    expect(error.details.kind).toBe("section");
  });
});

describe("every field from the element that holds it", () => {
  const Op = z.object({ method: z.string(), path: z.string(), summary: z.string() });
  beforeAll(async () => {
    await page.goto(`${server.url}/openapi-ops.html`);
  });

  it("fills the summary from the summary's element, not the method's, in the tag's section only", async () => {
    expect(await ask("List the operations in the pet section: method, path and summary", z.array(Op))).toEqual([
      { method: "PUT", path: "/pet", summary: "Update an existing pet" },
      { method: "POST", path: "/pet", summary: "Add a new pet to the store" },
      { method: "GET", path: "/pet/findByStatus", summary: "Finds Pets by status" },
    ]);
  });

  it("refuses a field several elements of each item could hold equally", async () => {
    const error = await rejection(ask("List the operations in the store section", z.array(z.object({ method: z.string(), opblock: z.string() }))));
    expect(["WF_ANSWER_UNCERTAIN", "WF_ANSWER_NOT_FOUND"]).toContain(error.code);
  });
});

/** A random table: a header row, section rows (one cell spanning the table) and data rows under each. */
const arbTable = fc
  .uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 5 })
  .chain((classes) =>
    fc.record({
      sections: fc.tuple(
        ...classes.map((c) =>
          fc.record({
            title: fc.constantFrom("Warning", "Connection Exception", "Data Exception", "Syntax Error", "Invalid Grant", "Feature Not Supported").map((t) => `Class ${String(c).padStart(2, "0")} — ${t}`),
            rows: fc.integer({ min: 0, max: 4 }),
          }),
        ),
      ),
      leading: fc.integer({ min: 0, max: 2 }),
      tbodies: fc.boolean(),
      headerCell: fc.boolean(),
    }),
  );
type Table = { sections: Array<{ title: string; rows: number }>; leading: number; tbodies: boolean; headerCell: boolean };

function rowsOf(t: Table): { all: Array<{ code: string; name: string; section: string }> } {
  const all: Array<{ code: string; name: string; section: string }> = [];
  for (let i = 0; i < t.leading; i++) all.push({ code: `L${i}`, name: `lead_${i}`, section: "" });
  t.sections.forEach((s, si) => {
    for (let i = 0; i < s.rows; i++) all.push({ code: `${si}${i}000`.slice(0, 5), name: `cond_${si}_${i}`, section: s.title });
  });
  return { all };
}

function html(t: Table): string {
  const { all } = rowsOf(t);
  const row = (r: { code: string; name: string }) => `<tr><td><code>${r.code}</code></td><td>${r.name}</td></tr>`;
  const parts: string[] = [];
  parts.push(`<tbody>${all.filter((r) => r.section === "").map(row).join("")}`);
  for (const s of t.sections) {
    const head = t.headerCell ? `<tr><th colspan="2">${s.title}</th></tr>` : `<tr><td colspan="2"><b>${s.title}</b></td></tr>`;
    parts.push(`${t.tbodies ? "</tbody><tbody>" : ""}${head}${all.filter((r) => r.section === s.title).map(row).join("")}`);
  }
  return `<h1>Codes</h1><table><thead><tr><th>Error Code</th><th>Condition Name</th></tr></thead>${parts.join("")}</tbody></table>`;
}

const arbQuestion = (t: Table) =>
  fc.oneof(
    fc.constantFrom(...t.sections.map((s) => ({ kind: "under", section: s.title, text: `List every code and name under ${s.title} in this table` }))),
    fc.constantFrom(...t.sections.map((s) => ({ kind: "under", section: s.title, text: `the codes and names under "${s.title.split(" — ")[0]}"` }))),
    fc.constantFrom(...t.sections.map((s) => ({ kind: "under", section: s.title, text: `the error codes in the "${s.title}" section` }))),
    fc.constant({ kind: "missing", section: "", text: "List every code and name under Class 100 — Nowhere in this table" }),
    fc.integer({ min: 1, max: 5 }).map((n) => ({ kind: "first-n", section: "", text: `the first ${n} error codes and names` })),
    fc.constant({ kind: "filter", section: "", text: 'the codes whose name contains "cond_1"' }),
    fc.constant({ kind: "all", section: "", text: "every error code and condition name" }),
  );

describe("property: random tables with section rows, random restricting questions", () => {
  it("the reader gives the exact subset or refuses", async () => {
    const Code = z.object({ code: z.string(), name: z.string() });
    await fc.assert(
      fc.asyncProperty(
        arbTable.chain((t) => fc.tuple(fc.constant(t as Table), arbQuestion(t as Table))),
        async ([t, q]) => {
          await page.setContent(html(t));
          const { all } = rowsOf(t);
          // The same title twice (two classes drew the same words): every row under a section row of that title.
          const byTitle = t.sections.filter((s) => s.title === q.section);
          const sameStart = t.sections.filter((s) => s.title.split(" — ")[0] === q.section.split(" — ")[0]);
          const expected =
            q.kind === "all" ? all : q.kind === "under" && byTitle.length >= 1 && sameStart.length === 1 ? all.filter((r) => r.section === q.section) : undefined;
          let answer: unknown;
          try {
            answer = await ask(q.text, z.array(Code));
          } catch (error) {
            if (!isInterpreterError(error)) throw error;
            // Refusing is always allowed (an empty section reads as not found); a missing section, a first N and a filter must be refused.
            expect(["WF_ANSWER_UNCERTAIN", "WF_ANSWER_NOT_FOUND"], `${q.text}: ${error.message}`).toContain(error.code);
            return;
          }
          expect(expected, `${q.text} answered ${JSON.stringify(answer)}`).toBeDefined();
          expect(answer).toEqual(expected!.map(({ code, name }) => ({ code, name })));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
