/**
 * Model-backed steps through the real server (session manager, queue, records) and a real
 * Chromium, against a double of an OpenAI-compatible provider that records every request. Asserts
 * on what was sent (a valid Chat Completions request, the step's schema unchanged as a strict
 * response format, element references, no secret, the budget) and on what the service does with
 * each kind of answer.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { toResponseFormat } from "@wf/core";
import { ROUTES, StepStatus, routePath } from "@wf/core/protocol";
import { checkStrictResponseFormat } from "../../../core/src/schema/strict-checker.test-helper.js";
import { estimateTokens, parseInstructions, type RunningServer } from "../../src/index.js";
import { ACT_RESPONSE_SCHEMA, groundedResponseSchema } from "../../src/interpreter/model/index.js";
import { createModelInterpreter, createModelProvider, normalizeStepSchemaForTests } from "./_direct.js";
import type { StaticServer } from "../helpers/static-server.js";
import { askReply, pageOf, refFor, type ModelDouble } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

const API_KEY = "sk-test-Wf9aQ2dL7pZx4";
const BUDGET = 2_500;
const ERRCODES = "/usr/share/doc/postgresql-doc-15/html/errcodes-appendix.html";

let fixture: ModelServer;
let model: ModelDouble;
let pages: StaticServer;
let server: RunningServer;
const session = sessionSteps(() => fixture.server);
const { act, ask } = session;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/model/", import.meta.url)), {
    allowFileUrls: true,
    modelApiKey: API_KEY,
    modelMaxPromptTokens: BUDGET,
    workflowsDir: fileURLToPath(new URL("../fixtures/model/workflows/", import.meta.url)),
  });
  ({ model, pages, server } = fixture);
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
  await act(`go to "${pages.url}/app.html"`);
  expect(model.requests).toHaveLength(0); // the grammar opened the page: no model call
});

afterEach(() => session.close());

const Product = z.object({ product: z.string(), price: z.string(), stock: z.number() });

describe("ASK through the model", () => {
  it("sends the step's schema unchanged, as the answer of a strict response format beside its quotes, at temperature 0, and returns the validated answer with its usage", async () => {
    const rows = [
      { product: "Anvil", price: "$120.00", stock: 4 },
      { product: "Rocket skates", price: "$950.00", stock: 0 },
      { product: "Giant magnet", price: "$75.50", stock: 12 },
    ];
    model.script = (request) => ({ content: askReply(request, { value: rows }, [{ path: "/value/1", quote: "| Rocket skates | $950.00 | 0 | yes |" }]), usage: { prompt_tokens: 812, completion_tokens: 64 } });
    const status = await ask("the products in the catalogue", z.array(Product));

    expect(status).toMatchObject({ status: "SUCCEEDED", result: { value: rows }, interpreter: "model" });
    expect(status.usage).toMatchObject({ model: "test-model", promptTokens: 812, completionTokens: 64, totalTokens: 876, calls: 1 });
    expect(status.usage!.durationMs).toBeGreaterThanOrEqual(0);

    const [request] = model.requests;
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request!.body).toMatchObject({ model: "test-model", temperature: 0 });
    const sent = toResponseFormat(z.array(Product), "answer") as unknown as { json_schema: { name: string; schema: Record<string, unknown> } };
    expect(request!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "answer", strict: true, schema: groundedResponseSchema(sent.json_schema).schema } });
    expect((request!.body.response_format!.json_schema!.schema as { properties: { answer: unknown } }).properties.answer).toEqual(sent.json_schema.schema);
    expect(checkStrictResponseFormat(request!.body.response_format)).toEqual([]);
    expect(request!.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request!.body.messages[0]!.content).toMatch(/never answer from your own knowledge/i);
    expect(request!.body.messages[0]!.content).toMatch(/does not state a value, answer null/i);
    const page = pageOf(request!);
    expect(page).toContain("Question: the products in the catalogue");
    expect(page).toContain("| Product | Price | Stock | Signed |");
    expect(page).toContain("| Rocket skates | $950.00 | 0 | yes |");
    expect(page).toMatch(/^button "Log in"$/m); // a question's view names elements, without the references an ACT needs

    // The OpenAPI document describes the new fields.
    const openapi = JSON.stringify(await (await fetch(`${server.url}${ROUTES.openapi}`, { headers: { "api-key": "k" } })).json());
    for (const field of ['"usage"', '"resolved"', '"interpreter"', '"pageReduced"', '"promptTokens"']) expect(openapi).toContain(field);
    // The status route shows the same usage.
    const res = await fetch(`${server.url}${routePath(ROUTES.stepStatus, { stepId: status.stepId })}`, { headers: { "api-key": "k" } });
    expect(StepStatus.parse(await res.json()).usage).toEqual(status.usage);
  });

  it("asks again with the validation errors when an answer does not fit, and keeps a null the page does not state", async () => {
    const Warranty = z.object({ product: z.string(), warrantyYears: z.number().nullable() });
    model.script = (request, n) => ({ content: askReply(request, { product: "Anvil", warrantyYears: n === 0 ? "ten" : null }) });
    const status = await ask("the anvil's product name and its warranty in years", Warranty);
    expect(status).toMatchObject({ status: "SUCCEEDED", result: { product: "Anvil", warrantyYears: null } });
    expect(status.usage).toMatchObject({ calls: 2 });
    const retry = model.requests[1]!.body.messages;
    expect(retry.at(-2)).toMatchObject({ role: "assistant", content: JSON.stringify({ answer: { product: "Anvil", warrantyYears: "ten" }, quotes: [] }) });
    expect(retry.at(-1)!.content).toMatch(/does not fit the schema: \/warrantyYears/);
    expect(retry.at(-1)!.content).toMatch(/use null for what the page does not state/);
  });

  it("fails WF_MODEL_ANSWER_INVALID after two invalid answers and WF_MODEL_REFUSED after two refusals, counting every call", async () => {
    model.script = () => ({ content: "not json at all" });
    const invalid = await ask("the products", z.array(Product));
    expect(invalid).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_ANSWER_INVALID" }, usage: { calls: 2 } });
    expect(invalid.error!.message).toMatch(/not valid JSON/);

    model.requests.length = 0;
    model.script = () => ({ refusal: "I can't help with that." });
    const refused = await ask("the products", z.array(Product));
    expect(refused).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_REFUSED" }, usage: { calls: 2 } });
    expect(refused.error!.message).toContain("I can't help with that.");
  });

  it("answers a question without a schema as text; a null is WF_ANSWER_NOT_FOUND, not an empty string", async () => {
    model.script = (request) => ({ content: askReply(request, { value: "3 products found." }) });
    expect(await ask("how many products did the search find?")).toMatchObject({ status: "SUCCEEDED", result: "3 products found." });
    expect(model.requests[0]!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { strict: true } });
    model.script = (request) => ({ content: askReply(request, { value: null }) });
    expect(await ask("who is the CEO?")).toMatchObject({ status: "FAILED", error: { code: "WF_ANSWER_NOT_FOUND" } });
  });

  it("turns provider failures into step failures with stable codes, never showing the API key", async () => {
    model.script = () => ({ status: 401, message: `Incorrect API key provided: ${API_KEY}. You can find your API key at the dashboard.` });
    const denied = await ask("the products", z.array(Product));
    expect(denied).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_AUTH_FAILED" }, usage: { calls: 1, totalTokens: 0 } });
    expect(denied.error!.message).toMatch(/OPENAI_API_KEY/);
    expect(JSON.stringify(denied)).not.toContain(API_KEY);

    model.script = () => ({ status: 404, message: "The model `test-model` does not exist" });
    expect(await ask("the products", z.array(Product))).toMatchObject({ error: { code: "WF_MODEL_NOT_FOUND" } });

    model.requests.length = 0;
    model.script = () => ({ status: 429, message: "Rate limit reached", headers: { "retry-after-ms": "10" } });
    const limited = await ask("the products", z.array(Product));
    // The SDK's own two retries first, each a call in the books.
    expect(limited).toMatchObject({ error: { code: "WF_MODEL_RATE_LIMITED" }, usage: { calls: 3 } });
    expect(model.requests).toHaveLength(3);

    model.script = () => ({ status: 500, message: "upstream exploded", headers: { "retry-after-ms": "10" } });
    expect(await ask("the products", z.array(Product))).toMatchObject({ error: { code: "WF_MODEL_UNAVAILABLE" } });

    // The step's deadline came while the model had not answered: the model is named as the cause.
    model.script = () => ({ hang: true });
    const slow = await ask("the products", z.array(Product), { timeoutMs: 5_000 });
    expect(slow).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_TIMEOUT" }, usage: { calls: 1 } });
    expect(slow.error!.message).toContain(model.baseUrl);
  });
});

describe("ACT through the grammar, then the model", () => {
  it("runs an instruction the grammar understands without a model call", async () => {
    const status = await act('select "Team" in "Plan"');
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar", resolved: 'select "Team" in "Plan"', usage: null });
    expect(model.requests).toHaveLength(0);
  });

  it("hands a free-form instruction to the model, runs the action it picks by reference, and reports the grammar instruction and the element", async () => {
    model.script = (request) => ({ content: { reason: "The Plan dropdown sets the plan.", actions: [{ verb: "select", ref: refFor(request, "Plan", "combobox"), value: "Enterprise" }] } });
    const chosen = await act("switch the account to the enterprise tier");
    expect(chosen).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'select "Enterprise" in the "Plan" dropdown', usage: { calls: 1 } });
    expect(chosen.result).toMatchObject({ action: "select", element: { role: "combobox", name: "Plan" } });
    expect((chosen.result as { element: { locator: string } }).element.locator).toMatch(/^getBy(Role|Label)\(.*Plan/);

    const [request] = model.requests;
    expect(request!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: ACT_RESPONSE_SCHEMA.name, strict: true, schema: ACT_RESPONSE_SCHEMA.schema } });
    expect(checkStrictResponseFormat(request!.body.response_format)).toEqual([]);
    expect(pageOf(request!)).toMatch(/\[e\d+\] combobox "Plan" = "Free" options: "Free", "Team", "Enterprise"/);

    // The resolved instruction is one the grammar reads back as the same action.
    expect(parseInstructions(chosen.resolved!)).toMatchObject([{ verb: "select", option: "Enterprise", target: { text: "Plan" } }]);

    model.script = (req) => ({ content: { reason: "Save plan stores it.", actions: [{ verb: "click", ref: refFor(req, "Save plan", "button"), value: null }] } });
    expect(await act("store my choice")).toMatchObject({ status: "SUCCEEDED", resolved: 'click the "Save plan" button' });
    expect(await act('wait for "Plan saved: Enterprise"')).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
  });

  it("fails WF_MODEL_NO_MATCH with the model's reason when nothing on the page fits, and acts on nothing", async () => {
    model.script = () => ({ content: { reason: "There is no delete button on this page.", actions: null } });
    const status = await act("delete the account");
    expect(status).toMatchObject({ status: "FAILED", interpreter: "model", error: { code: "WF_MODEL_NO_MATCH" } });
    expect(status.error!.message).toContain("There is no delete button on this page.");
  });

  it("asks again when the model refers to an element that is not on the page", async () => {
    model.script = (request, n) =>
      n === 0 ? { content: { reason: "x", actions: [{ verb: "click", ref: "e999", value: null }] } } : { content: { reason: "Save plan", actions: [{ verb: "click", ref: refFor(request, "Save plan"), value: null }] } };
    expect(await act("press the save control")).toMatchObject({ status: "SUCCEEDED", usage: { calls: 2 } });
    expect(model.requests[1]!.body.messages.at(-1)!.content).toMatch(/e999, which is not on the page/);
  });

  it("does nothing to an element that is no longer the one the model saw (an earlier action changed the page)", async () => {
    await act(`go to "${pages.url}/two-a.html"`);
    // The button's place on page A holds another button on page B: the second action must not hit it.
    model.script = (request) => ({
      content: {
        reason: "Open page B, then save.",
        actions: [
          { verb: "click", ref: refFor(request, "Go to page B"), value: null },
          { verb: "click", ref: refFor(request, "Save draft"), value: null },
        ],
      },
    });
    const status = await act("go to page B and save the draft");
    expect(status).toMatchObject({ status: "FAILED", interpreter: "model", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    expect(status.error!.message).toContain('(in its place: button "Delete everything")');
    expect(await act('wait for "nothing deleted"')).toMatchObject({ status: "SUCCEEDED" });
  });

  it("never sends a secret to the provider: the model sees a placeholder, the page masks it, the action types the real value", async () => {
    const secret = "hunter2-Zebra";
    model.script = (request) => ({
      content: {
        reason: "Fill the sign-in form and submit it.",
        actions: [
          { verb: "fill", ref: refFor(request, "E-mail address"), value: "ada@example.com" },
          { verb: "fill", ref: refFor(request, "Secret word"), value: "{{secret1}}" },
          { verb: "click", ref: refFor(request, "Log in"), value: null },
        ],
      },
    });
    const signed = await act(`sign in as ada@example.com with the secret word ${secret}`, { redact: [secret] });
    expect(signed).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    expect(signed.resolved).toBe('type "ada@example.com" into the "E-mail address" field; type "[secret]" into the "Secret word" field; click the "Log in" button');
    expect((signed.result as { actions: unknown[] }).actions).toEqual([
      { instruction: 'type "ada@example.com" into the "E-mail address" field', element: { role: "textbox", name: "E-mail address", locator: expect.stringContaining("E-mail address") } },
      { instruction: 'type "[secret]" into the "Secret word" field', element: { role: "textbox", name: "Secret word", locator: expect.stringContaining("Secret word") } },
      { instruction: 'click the "Log in" button', element: { role: "button", name: "Log in", locator: "getByRole('button', { name: 'Log in' })" } },
    ]);
    expect(pageOf(model.requests[0]!)).toContain("Instruction: sign in as ada@example.com with the secret word {{secret1}}");
    expect(await act('wait for "Signed in as ada@example.com"')).toMatchObject({ status: "SUCCEEDED" });

    // The typed value is on the page now (a password field shows none; the question repeats it).
    model.script = (request) => ({ content: askReply(request, { value: "Signed in as ada@example.com" }) });
    expect(await ask(`is ${secret} accepted? what does the status say?`, undefined, { redact: [secret] })).toMatchObject({ status: "SUCCEEDED" });
    for (const request of model.requests) expect(request.raw).not.toContain(secret);
    expect(model.requests.length).toBeGreaterThanOrEqual(2);
  });
});

describe("stored runs", () => {
  it("run free-form steps through the model too", async () => {
    model.script = (request) =>
      request.body.response_format?.json_schema?.name === "wf_act"
        ? { content: { reason: "The Plan dropdown.", actions: [{ verb: "select", ref: refFor(request, "Plan", "combobox"), value: "Team" }] } }
        : { content: askReply(request, { plan: pageOf(request).match(/combobox "Plan" = "(\w+)"/)![1]! }) };
    const res = await fetch(server.url + ROUTES.workflowRun, {
      method: "POST",
      headers: { "api-key": "k", "content-type": "application/json" },
      body: JSON.stringify({ workflowId: "plan-switch", variables: { url: `${pages.url}/app.html` } }),
    });
    expect(res.status).toBe(200);
    const { sessionId: runId } = (await res.json()) as { sessionId: string };
    let status = await server.context.sessions.waitForSession(runId, { waitMs: 1 });
    while (status.status === "RUNNING") status = await server.context.sessions.waitForSession(runId, { since: status.version, waitMs: 10_000 });
    expect(status).toMatchObject({ status: "SUCCEEDED", output: { plan: "Team" } });
    expect(status.steps.map((s) => s.interpreter)).toEqual(["grammar", "model", "model"]);
    expect(status.steps[1]).toMatchObject({ resolved: 'select "Team" in the "Plan" dropdown', usage: { calls: 1 } });
  });
});

describe("the prompt budget", () => {
  it.skipIf(!existsSync(ERRCODES))("keeps a long real page under WF_MODEL_MAX_PROMPT_TOKENS, keeps the part the question is about, and says it reduced it", async () => {
    await act(`go to "file://${ERRCODES}"`);
    model.script = (request) => ({ content: askReply(request, { code: "23505" }, [{ path: "/code", quote: "23505 | unique_violation" }]) });
    const status = await ask("What is the SQLSTATE error code of the condition unique_violation?", z.object({ code: z.string() }));
    expect(status).toMatchObject({ status: "SUCCEEDED", pageReduced: true, result: { code: "23505" } });
    const [request] = model.requests;
    const prompt = request!.body.messages.map((m) => m.content).join("\n");
    expect(estimateTokens(prompt)).toBeLessThanOrEqual(BUDGET);
    expect(pageOf(request!)).toMatch(/\| 23505 \| unique_violation \|/);
    expect(pageOf(request!)).toMatch(/lines omitted/);
  });

  it("reduces a page many times the budget (a 3,000-row table) to the rows the question names, with the table's header", async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => `<tr><td>item-${i}</td><td>${(i * 7) % 1000}</td><td>warehouse ${i % 17}</td></tr>`).join("");
    const html = `<title>Inventory</title><h1>Inventory</h1><table><thead><tr><th>SKU</th><th>Count</th><th>Place</th></tr></thead><tbody>${rows}</tbody></table>`;
    model.script = (request) => ({ content: askReply(request, { count: 33 }, [{ path: "/count", quote: "| item-2719 | 33 |" }]) });
    const status = await ask("How many of item-2719 are there?", z.object({ count: z.number() }), { currentDom: html });
    expect(status).toMatchObject({ status: "SUCCEEDED", pageReduced: true });
    const page = pageOf(model.requests[0]!);
    expect(estimateTokens(model.requests[0]!.body.messages.map((m) => m.content).join("\n"))).toBeLessThanOrEqual(BUDGET);
    expect(page).toContain("| item-2719 |");
    expect(page).toContain("| SKU | Count | Place |");
  });
});

describe("the json_object fallback mode", () => {
  it("asks for a JSON object with the schema in the prompt, validates the answer, and feeds the errors back", async () => {
    const interpreter = createModelInterpreter({
      provider: createModelProvider({ model: "local-model", baseUrl: model.baseUrl, responseFormat: "json_object" }),
      perform: { uploadRoot: process.cwd(), findTimeoutMs: 1_000, allowFileUrls: false },
    });
    const context = await server.context.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${pages.url}/app.html`);
      model.script = (request, n) =>
        n === 0 ? { content: "```json\n{\"answer\": {\"value\": [{\"product\": \"Anvil\"}]}, \"quotes\": []}\n```" } : { content: askReply(request, { value: [{ product: "Anvil", price: "$120.00", stock: 4 }] }) };
      const schema = normalizeStepSchemaForTests(z.array(Product));
      const report = {};
      const answer = await interpreter.ask({ page, question: "the first product", schema, timeoutMs: 15_000, signal: new AbortController().signal, secrets: [], report });
      expect(answer).toEqual({ value: [{ product: "Anvil", price: "$120.00", stock: 4 }] });
      expect(report).toMatchObject({ interpreter: "model", usage: { model: "local-model", calls: 2 } });
      const [first, second] = model.requests;
      expect(first!.body.response_format).toEqual({ type: "json_object" });
      expect(first!.headers.authorization).toBe("Bearer wf-no-key"); // a local endpoint needs no key
      expect(first!.body.messages[0]!.content).toContain(`valid against this JSON Schema:\n${JSON.stringify(groundedResponseSchema(schema).schema)}`);
      expect(pageOf(first!)).not.toContain("JSON Schema"); // the system prompt says it, for every turn
      expect(second!.body.messages.at(-1)!.content).toMatch(/\/value\/0\/price/);
    } finally {
      await context.close();
    }
  });
});
