/**
 * Never a wrong success, for answers: an ASK the model answers counts only when the page supports
 * every value in it. Through the real server (session manager, queue, records) and a real
 * Chromium, against a double of the provider that answers in whatever form it is asked: the
 * grounded `{ answer, quotes }`, or the step's schema alone (as a server without grounding asks),
 * so these tests show what a server without the check returns to the same lies.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { StepStatus } from "@wf/core/protocol";
import type { StepReport } from "../../src/interpreter/index.js";
import { createModelInterpreter, createModelProvider, normalizeStepSchemaForTests } from "../model/_direct.js";
import { askReply, pageOf, type ModelDouble, type Quote, type RecordedRequest } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
const session = sessionSteps(() => fixture.server);
const { act, ask } = session;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/trust/", import.meta.url)));
  model = fixture.model;
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
  expect(await act(`go to "${fixture.pages.url}/invoice.html"`)).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
});

afterEach(() => session.close());

/** A model that always answers `answer` (with `quotes` when asked for them). */
function answers(answer: unknown, quotes: Quote[] = []) {
  return (request: RecordedRequest) => ({ content: askReply(request, answer, quotes) });
}

/** The last message of the second request: what the retry told the model. */
function retryMessage(): string {
  return model.requests[1]!.body.messages.at(-1)!.content;
}

function expectUncertain(status: StepStatus, fields: string[]) {
  expect(status).toMatchObject({ status: "FAILED", interpreter: "model", error: { code: "WF_ANSWER_UNCERTAIN", details: { kind: "unsupported", fields } } });
  expect(status.result ?? null).toBeNull();
  expect(status.usage).toMatchObject({ calls: 2 }); // asked once more, naming the field
}

describe("a value the page does not state", () => {
  it('{ "total": "99.99" } where the table says 42.00: asked again naming /total, then WF_ANSWER_UNCERTAIN', async () => {
    model.script = answers({ total: "99.99" });
    const status = await ask("the invoice total", z.object({ total: z.string() }));
    expectUncertain(status, ["/total"]);
    expect(status.error!.message).toContain('/total: "99.99" is not text of the page');
    expect(retryMessage()).toMatch(/the page does not support this value: \/total: "99\.99" is not text of the page/);
    expect(pageOf(model.requests[0]!)).toContain("| Total | 42.00 |");
  });

  it("the same as a number, and a quote that says 42.00 for it", async () => {
    model.script = answers({ total: 99.99 }, [{ path: "/total", quote: "Total | 42.00" }]);
    const status = await ask("the invoice total", z.object({ total: z.number() }));
    expectUncertain(status, ["/total"]);
    expect(status.error!.message).toContain('/total: 99.99 is not written in its quote "Total | 42.00"');
  });

  it("a quote the page does not have, for a value it has: the quote is refused", async () => {
    model.script = answers({ total: "42.00" }, [{ path: "/total", quote: "Grand total due: 42.00" }]);
    const status = await ask("the invoice total", z.object({ total: z.string() }));
    expectUncertain(status, ["/total"]);
    expect(status.error!.message).toContain('its quote "Grand total due: 42.00" is not text of the page');
  });

  it("a count the quotes do not add up to", async () => {
    const pending = [
      { path: "/pending", quote: "Anvil | 1 | pending" },
      { path: "/pending", quote: "Giant magnet | 1 | pending" },
    ];
    model.script = answers({ pending: 3 }, pending);
    expectUncertain(await ask("how many items are pending?", z.object({ pending: z.number() })), ["/pending"]);
    model.requests.length = 0;
    model.script = answers({ pending: 2 }, pending);
    expect(await ask("how many items are pending?", z.object({ pending: z.number() }))).toMatchObject({ status: "SUCCEEDED", result: { pending: 2 }, usage: { calls: 1 } });
  });

  it("a value in a list's item names the item: /1/amount", async () => {
    model.script = answers({ value: [{ item: "Anvil", amount: "$20.00" }, { item: "Rocket skates", amount: "$81.00" }] });
    expectUncertain(await ask("the items and their amounts", z.array(z.object({ item: z.string(), amount: z.string() }))), ["/1/amount"]);
  });

  it("a lie the model takes back when asked again: the second answer counts", async () => {
    model.script = (request, n) => ({ content: askReply(request, { total: n === 0 ? "99.99" : "42.00" }, n === 0 ? [] : [{ path: "/total", quote: "| Total | 42.00 |" }]) });
    const status = await ask("the invoice total", z.object({ total: z.string() }));
    expect(status).toMatchObject({ status: "SUCCEEDED", result: { total: "42.00" }, usage: { calls: 2 } });
  });
});

describe("a question without a schema", () => {
  it("answered with a sentence the page never states: WF_ANSWER_UNCERTAIN, not the sentence", async () => {
    model.script = answers({ value: "The invoice was paid in full on March 6 by bank transfer." });
    const status = await ask("what is the state of the invoice?");
    expectUncertain(status, ["(the answer)"]);
    expect(status.error!.message).toContain("is not text of the page");
  });

  it("answered with the page's own text: that text", async () => {
    model.script = answers({ value: "Due in 30 days" });
    expect(await ask("when is the invoice due?")).toMatchObject({ status: "SUCCEEDED", result: "Due in 30 days", usage: { calls: 1 } });
  });
});

describe("what the page states passes as the page writes it", () => {
  it("text with its case folded, numbers as written (42.00 as 42, $20.00 as 20, 1.234,50 € as 1234.5), a date as the page writes it, null for what it does not state", async () => {
    const Invoice = z.object({
      number: z.string(),
      total: z.number(),
      firstAmount: z.number(),
      balanceEur: z.number(),
      issued: z.string(),
      firstStatus: z.enum(["pending", "shipped"]),
      billTo: z.string(),
      poNumber: z.string().nullable(),
    });
    const answer = { number: "INV-2024-0042", total: 42, firstAmount: 20, balanceEur: 1234.5, issued: "2024-03-05", firstStatus: "pending", billTo: "ADA LOVELACE", poNumber: null };
    model.script = answers(answer, [
      { path: "/total", quote: "Total 42.00" },
      { path: "/firstAmount", quote: "| Anvil | 1 | pending | $20.00 |" },
      { path: "/firstStatus", quote: "Anvil | 1 | pending" },
    ]);
    const status = await ask("the invoice's number, total, first item's amount and status, balance in euros, issue date, who it is billed to and its PO number", Invoice);
    expect(status).toMatchObject({ status: "SUCCEEDED", result: answer, usage: { calls: 1 } });
  });

  it("keeps each value with the page text it rests on and where the view shows it, on the step's report (not on the wire)", async () => {
    const interpreter = createModelInterpreter({
      provider: createModelProvider({ model: "test-model", baseUrl: model.baseUrl, apiKey: "sk-test" }),
      perform: { uploadRoot: process.cwd(), findTimeoutMs: 1_000, allowFileUrls: false },
    });
    const context = await fixture.server.context.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${fixture.pages.url}/invoice.html`);
      model.script = answers({ total: "42.00", items: 3 }, [
        { path: "/total", quote: "Total | 42.00" },
        { path: "/items", quote: "Anvil" },
        { path: "/items", quote: "Rocket skates" },
        { path: "/items", quote: "Giant magnet" },
      ]);
      const report: StepReport = {};
      const schema = normalizeStepSchemaForTests(z.object({ total: z.string(), items: z.number() }));
      const answer = await interpreter.ask({ page, question: "the total and the number of items", schema, timeoutMs: 15_000, signal: new AbortController().signal, secrets: [], report });
      expect(answer).toEqual({ total: "42.00", items: 3 });
      const sent = pageOf(model.requests[0]!).split("\n");
      const lineOf = (text: string) => sent.find((l) => l.includes(text))!.trim();
      expect(report.grounding).toEqual([
        { path: "/total", value: "42.00", basis: "quoted", quotes: [{ text: "Total 42.00", line: expect.any(Number), lineText: lineOf("| Total | 42.00 |"), occurrences: 1 }] },
        {
          path: "/items",
          value: 3,
          basis: "count",
          quotes: ["Anvil", "Rocket skates", "Giant magnet"].map((text) => ({ text, line: expect.any(Number), lineText: lineOf(`| ${text} |`), occurrences: 1 })),
        },
      ]);
    } finally {
      await context.close();
    }
    // The wire's step status has no grounding.
    model.script = answers({ total: "42.00" });
    const status = await ask("the invoice total", z.object({ total: z.string() }));
    expect(status).toMatchObject({ status: "SUCCEEDED" });
    expect(JSON.stringify(status)).not.toContain("grounding");
  });
});
