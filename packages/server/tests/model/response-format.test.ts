/**
 * Endpoints that refuse a strict `json_schema` response format: against doubles that answer as
 * llama.cpp's server, vLLM and LiteLLM did before they took it, and as LM Studio and Ollama do now,
 * in a real Chromium. The provider asks the same request again as `json_object` with the schema in
 * the prompt, once, and keeps asking that endpoint that way; any other 400 is not taken for it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { z } from "zod";
import { MEMORY_DATABASE_URL, startServer } from "../../src/index.js";
import { isInterpreterError, type InterpreterError, type StepReport } from "../../src/interpreter/index.js";
import { ACT_RESPONSE_SCHEMA, ACT_SYSTEM_PROMPT, ASK_SYSTEM_PROMPT, groundedResponseSchema } from "../../src/interpreter/model/index.js";
import { createModelInterpreter, createModelProvider, normalizeStepSchemaForTests } from "./_direct.js";
import type { StaticServer } from "../helpers/static-server.js";
import { startDirectPage, type DirectPage } from "../helpers/direct-page.js";
import { askReply, behaveLike, pageOf, refFor, type ModelDouble, type Script } from "../helpers/model-double.js";

let fixture: DirectPage;
let model: ModelDouble;
let pages: StaticServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fixture = await startDirectPage(fileURLToPath(new URL("../fixtures/model/", import.meta.url)));
  ({ model, pages, browser, page } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  model.requests.length = 0;
  await page.goto(`${pages.url}/app.html`);
});

/** A provider and model interpreter of their own (what a provider learns lasts its life), and the warnings it gave. */
function setUp(responseFormat?: "json_schema" | "json_object") {
  const warnings: string[] = [];
  const provider = createModelProvider({ model: "local-model", baseUrl: model.baseUrl, ...(responseFormat ? { responseFormat } : {}), warn: (m) => warnings.push(m) });
  const interpreter = createModelInterpreter({ provider, perform: { uploadRoot: process.cwd(), findTimeoutMs: 1_000, allowFileUrls: false } });
  const act = (instruction: string, report: StepReport = {}) => interpreter.act({ page, instruction, timeoutMs: 15_000, signal: new AbortController().signal, secrets: [], report });
  return { provider, interpreter, act, warnings };
}

/** A model that clicks "Save plan" for an ACT and answers the first product for an ASK. */
const saves: Script = (request) =>
  request.body.messages[0]!.content.startsWith(ACT_SYSTEM_PROMPT)
    ? { content: { reason: "Save plan stores it.", actions: [{ verb: "click", ref: refFor(request, "Save plan", "button"), value: null }] } }
    : { content: askReply(request, { value: [{ product: "Anvil", price: "$120.00", stock: 4 }] }, [{ path: "/value/0", quote: "| Anvil | $120.00 | 4 |" }]) };

const Product = z.object({ product: z.string(), price: z.string(), stock: z.number() });

async function failure(promise: Promise<unknown>): Promise<InterpreterError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isInterpreterError(error)) throw new Error(`expected an InterpreterError, got ${String(error)}`);
  return error as InterpreterError;
}

describe("an endpoint that answers 400 to a strict json_schema request", () => {
  const said = { "llama.cpp-old": 'must be one of "text" or "json_object"', "vllm-old": "Input should be 'text' or 'json_object'", "litellm-openai-old": "'json_schema' is not supported with this model" };
  for (const server of ["llama.cpp-old", "vllm-old", "litellm-openai-old"] as const) {
    it(`(${server}) gets the same request again as json_object with the schema in the prompt, once; later steps go straight to json_object; one warning`, async () => {
      const { provider, interpreter, act, warnings } = setUp();
      model.script = behaveLike(server, saves);

      const report: StepReport = {};
      const first = await act("store my choice", report);
      expect(first).toMatchObject({ action: "click", element: { role: "button", name: "Save plan" } });
      // Two HTTP requests, two calls in the books (issue 31: the fallback is no longer invisible).
      expect(report.usage).toMatchObject({ calls: 2 });
      expect(model.requests).toHaveLength(2);
      const [refused, again] = model.requests;
      expect(refused!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { strict: true } });
      expect(again!.body.response_format).toEqual({ type: "json_object" });
      // The same request: same user message (instruction and page); the schema is in the system prompt.
      expect(again!.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(pageOf(again!)).toBe(pageOf(refused!));
      expect(again!.body.messages[0]!.content).toBe(`${ACT_SYSTEM_PROMPT}\n\nReply with one JSON object (no prose, no code fence) that is valid against this JSON Schema:\n${JSON.stringify(ACT_RESPONSE_SCHEMA.schema)}`);
      expect(provider.responseFormat).toBe("json_object");

      // The next steps ask json_object at once, each with its own schema in the prompt.
      expect(await act("store my choice")).toMatchObject({ action: "click" });
      const schema = normalizeStepSchemaForTests(z.array(Product));
      const answer = await interpreter.ask({ page, question: "the first product", schema, timeoutMs: 15_000, signal: new AbortController().signal, secrets: [], report: {} });
      expect(answer).toEqual({ value: [{ product: "Anvil", price: "$120.00", stock: 4 }] });
      expect(model.requests).toHaveLength(4);
      expect(model.requests[2]!.body.response_format).toEqual({ type: "json_object" });
      expect(model.requests[3]!.body.response_format).toEqual({ type: "json_object" });
      expect(model.requests[3]!.body.messages[0]!.content).toBe(
        `${ASK_SYSTEM_PROMPT}\n\nReply with one JSON object (no prose, no code fence) that is valid against this JSON Schema:\n${JSON.stringify(groundedResponseSchema(schema).schema)}`,
      );

      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(model.baseUrl);
      expect(warnings[0]).toMatch(/does not accept strict json_schema.*json_object/);
      expect(warnings[0]).toContain(said[server]); // the server's own words
    });
  }

  it("(llama.cpp's older builds) says the same with HTTP 500: recognised after the SDK's own retries", async () => {
    const { provider, act, warnings } = setUp();
    const message = 'response_format type must be one of "text" or "json_object", but got: json_schema';
    model.script = (request, n) =>
      request.body.response_format?.type === "json_schema"
        ? { status: 500, message, body: { error: { code: 500, message, type: "server_error" } }, headers: { "retry-after-ms": "10" } }
        : saves(request, n);
    expect(await act("store my choice")).toMatchObject({ action: "click" });
    expect(model.requests.map((r) => r.body.response_format?.type)).toEqual(["json_schema", "json_schema", "json_schema", "json_object"]);
    expect(provider.responseFormat).toBe("json_object");
    expect(warnings).toHaveLength(1);
  });

  it("takes no other 400 for it: a context-length error, a schema the endpoint finds invalid, a gateway without response_format fail the step as they are", async () => {
    const { provider, act, warnings } = setUp();
    const refusals = [
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9321 tokens. Please reduce the length of the messages.",
      "Invalid schema for response_format 'wf_act': In context=(), 'required' is required to be supplied and to be an array including every key in properties.",
      "litellm.UnsupportedParamsError: ollama does not support parameters: ['response_format'], for model=qwen. To drop these, set `litellm.drop_params=True`",
      "Unrecognized request argument supplied: json_schema_extra",
    ];
    for (const message of refusals) {
      model.requests.length = 0;
      model.script = () => ({ status: 400, message });
      const error = await failure(act("store my choice"));
      expect(error.code).toBe("WF_MODEL_BAD_REQUEST");
      expect(error.message).toContain(message.slice(0, 40));
      expect(model.requests).toHaveLength(1);
    }
    expect(provider.responseFormat).toBe("json_schema");
    expect(warnings).toEqual([]);

    model.requests.length = 0;
    model.script = saves;
    expect(await act("store my choice")).toMatchObject({ action: "click" });
    expect(model.requests[0]!.body.response_format).toMatchObject({ type: "json_schema" });
  });
});

describe("endpoints that take strict json_schema", () => {
  for (const server of ["lm-studio", "ollama"] as const) {
    it(`(${server}) are asked with json_schema only`, async () => {
      const { provider, act, warnings } = setUp();
      model.script = behaveLike(server, saves);
      expect(await act("store my choice")).toMatchObject({ action: "click" });
      expect(await act("store my choice")).toMatchObject({ action: "click" });
      expect(model.requests.map((r) => r.body.response_format?.type)).toEqual(["json_schema", "json_schema"]);
      expect(provider.responseFormat).toBe("json_schema");
      expect(warnings).toEqual([]);
    });
  }

  it("(lm-studio) refusing json_object when it was configured fails the step, and says to use json_schema", async () => {
    const { act } = setUp("json_object");
    model.script = behaveLike("lm-studio", saves);
    const error = await failure(act("store my choice"));
    expect(error.code).toBe("WF_MODEL_BAD_REQUEST");
    expect(error.message).toMatch(/must be 'json_schema' or 'text'/);
    expect(error.message).toMatch(/unset WF_MODEL_RESPONSE_FORMAT/);
    expect(model.requests).toHaveLength(1);
  });
});

describe("through the server", () => {
  it("a step on an endpoint that refuses json_schema succeeds, and the server's logger says so once", async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
        done();
      },
    });
    const dataDir = await mkdtemp(join(tmpdir(), "wf-format-"));
    const server = await startServer({ port: 0, apiKeys: ["k"], dataDir, databaseUrl: MEMORY_DATABASE_URL, model: "local-model", modelBaseUrl: model.baseUrl, logger: { level: "warn", stream } });
    try {
      model.script = behaveLike("llama.cpp-old", saves);
      const { sessionId } = await server.context.sessions.createSession({ kind: "STEP" });
      const act = (step: string) => server.context.sessions.runStep(sessionId, { type: "ACT", step });
      expect(await act(`go to "${pages.url}/app.html"`)).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
      expect(await act("store my choice")).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'click the "Save plan" button', usage: { calls: 2 } });
      expect(await act("store my choice")).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
      expect(model.requests.map((r) => r.body.response_format?.type)).toEqual(["json_schema", "json_object", "json_object"]);
      const warnings = lines.filter((l) => /json_schema/.test(l.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40 }); // pino's warn
      expect(warnings[0]!.msg).toContain("asking it with json_object");
      await server.context.sessions.finishSession(sessionId, { status: "SUCCEEDED" });
    } finally {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
