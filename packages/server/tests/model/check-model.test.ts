/**
 * Checks the grammar has no form for go to the model, in a real Chromium against a double of the
 * provider: the model answers `{ holds, reason, evidence }` in a strict structured output, and only
 * an answer whose evidence is text of the page can pass; an unquotable one is
 * `WF_ANSWER_UNCERTAIN`, never a pass. A statement in a grammar form never reaches the model.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { InterpreterError, type StepInterpreter, type StepReport } from "../../src/interpreter/index.js";
import { createDeterministicInterpreter, createGrammarThenModelInterpreter, createModelInterpreter, createModelProvider } from "./_direct.js";
import type { StaticServer } from "../helpers/static-server.js";
import { startDirectPage, type DirectPage } from "../helpers/direct-page.js";
import { pageOf, type ModelDouble } from "../helpers/model-double.js";

let fixture: DirectPage;
let model: ModelDouble;
let pages: StaticServer;
let browser: Browser;
let page: Page;
let interpreter: StepInterpreter;

beforeAll(async () => {
  fixture = await startDirectPage(fileURLToPath(new URL("../fixtures/check/", import.meta.url)));
  ({ model, pages, browser, page } = fixture);
  const perform = { uploadRoot: process.cwd(), findTimeoutMs: 2_000, allowFileUrls: false };
  interpreter = createGrammarThenModelInterpreter(
    createDeterministicInterpreter(),
    createModelInterpreter({ provider: createModelProvider({ model: "test-model", baseUrl: model.baseUrl, apiKey: "sk-test" }), perform }),
  );
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  model.requests.length = 0;
  await page.goto(`${pages.url}/orders.html`);
});

function check(statement: string, options: { checkTimeoutMs?: number; allowModel?: boolean; secrets?: string[] } = {}) {
  const report: StepReport = {};
  const run = interpreter.check!({
    page,
    statement,
    checkTimeoutMs: options.checkTimeoutMs ?? 0,
    timeoutMs: 15_000,
    signal: new AbortController().signal,
    secrets: options.secrets ?? [],
    report,
    ...(options.allowModel === false ? { allowModel: false } : {}),
  });
  return { run, report };
}

async function failure(promise: Promise<unknown>): Promise<InterpreterError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(InterpreterError);
  return error as InterpreterError;
}

describe("a check the grammar has no form for", () => {
  it("passes on the model's answer when its evidence is quoted from the page, asked in a strict structured output", async () => {
    model.script = () => ({ content: { holds: true, reason: "Ada's order is listed as pending.", evidence: "Ada Pending" } });
    const { run, report } = check("Ada's order is still waiting to ship");
    const result = await run;
    expect(result).toEqual({ holds: true, reason: "the model: Ada's order is listed as pending.", evidence: '"Ada Pending"', interpreter: "model", attempts: 1 });
    expect(report).toMatchObject({ interpreter: "model", usage: { calls: 1 } });
    const sent = model.requests[0]!;
    expect(sent.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "wf_check", strict: true } });
    expect(sent.body.response_format!.json_schema!.schema).toMatchObject({ required: ["holds", "reason", "evidence"], additionalProperties: false });
    expect(pageOf(sent)).toContain("Statement: Ada's order is still waiting to ship");
    expect(pageOf(sent)).toContain("| Ada | Pending |");
  });

  it("is WF_ANSWER_UNCERTAIN, never a pass, when the model's evidence is not text of the page", async () => {
    model.script = () => ({ content: { holds: true, reason: "The order shipped.", evidence: "Ada's order shipped on Monday" } });
    const error = await failure(check("Ada's order has shipped").run);
    expect(error.code).toBe("WF_ANSWER_UNCERTAIN");
    expect(error.message).toContain('"Ada\'s order shipped on Monday" is not text of the page');
    expect(error.details.evidence).toBe("Ada's order shipped on Monday");
  });

  it("is WF_ANSWER_UNCERTAIN when the model quotes nothing", async () => {
    model.script = () => ({ content: { holds: true, reason: "Looks fine.", evidence: "" } });
    expect((await failure(check("the order list looks fine").run)).code).toBe("WF_ANSWER_UNCERTAIN");
  });

  it("fails WF_CHECK_FAILED with the model's reason and its quote when it does not hold", async () => {
    model.script = () => ({ content: { holds: false, reason: "Grace's order has shipped already.", evidence: "Grace Shipped" } });
    const error = await failure(check("Grace's order is still waiting to ship").run);
    expect(error.code).toBe("WF_CHECK_FAILED");
    expect(error.details).toMatchObject({ reason: "the model: Grace's order has shipped already.", evidence: '"Grace Shipped"', attempts: 1 });
    expect(error.message).toContain('Seen: "Grace Shipped"');
  });

  it("asks again until the statement holds, within the check's time", async () => {
    model.script = (_request, n) =>
      n === 0 ? { content: { holds: false, reason: "No refund is shown.", evidence: "Order #1042 placed" } } : { content: { holds: true, reason: "The order is shown as placed.", evidence: "Order #1042 placed" } };
    const { run, report } = check("the order was placed", { checkTimeoutMs: 10_000 });
    const result = await run;
    expect(result).toMatchObject({ holds: true, attempts: 2, interpreter: "model" });
    expect(report.usage?.calls).toBe(2);
  });

  it("never reaches the model in a grammar form", async () => {
    model.script = () => ({ status: 500, message: "must not be called" });
    const { run, report } = check('the page shows "Order #1042 placed"');
    expect(await run).toMatchObject({ holds: true, interpreter: "grammar" });
    expect(report.usage).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it("fails WF_MODEL_FORBIDDEN with allowModel false, calling no model", async () => {
    const error = await failure(check("the order list looks fine", { allowModel: false }).run);
    expect(error.code).toBe("WF_MODEL_FORBIDDEN");
    expect(model.requests).toHaveLength(0);
  });

  it("sends no secret the statement carries", async () => {
    model.script = () => ({ content: { holds: true, reason: "Shown.", evidence: 'textbox "email" = "ada@example.com"' } });
    await check("the email of hunter2-secret is shown", { secrets: ["hunter2-secret"] }).run;
    expect(model.requests[0]!.raw).not.toContain("hunter2-secret");
  });
});
