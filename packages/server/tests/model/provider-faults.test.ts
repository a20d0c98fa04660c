/**
 * Issue 31, "the budget and the books" and "provider faults named": through the real server (HTTP
 * routes, session manager, records) and a real Chromium, against a double of the provider that
 * misbehaves as real endpoints do. Every answer is parsed with the protocol's own schema (the
 * server must never send a body that breaks it).
 *
 * - `usage` is data from outside: strings, negatives, fractions and 1e300 are estimated and flagged.
 * - `usage.calls` counts HTTP requests: the SDK's retries (5xx, 429, resets, a body cut after the
 *   headers) and the json_object fallback each count.
 * - A Retry-After longer than the step's time left fails at once `WF_MODEL_RATE_LIMITED`.
 * - A provider that never answers fails `WF_MODEL_TIMEOUT` naming it, its calls recorded.
 * - `content_filter` and a context-length 400 say what happened and what to do.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROUTES, routePath, StepStatus, type StepUsage } from "@wf/core/protocol";
import { apiClient, type ApiClient } from "../helpers/api.js";
import { behaveLike, refFor, type RecordedRequest, type Reply, type ReplyUsage } from "../helpers/model-double.js";
import { startModelServer, type ModelServer } from "../helpers/model-server.js";

/**
 * The model call timeout of this file's server (`modelTimeoutMs`): short, so a hang ends soon, and
 * longer than {@link SHORT_STEP_MS}.
 */
const MODEL_TIMEOUT_MS = 8_000;
/** A step timeout shorter than the model call timeout, long enough for the page view before the call on a loaded machine. */
const SHORT_STEP_MS = 5_000;

let fixture: ModelServer;
let api: ApiClient;
let sessionId: string;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/model/", import.meta.url)), { modelTimeoutMs: MODEL_TIMEOUT_MS });
  api = apiClient(fixture.server.url, "k");
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  fixture.model.requests.length = 0;
  fixture.model.script = () => ({ status: 500, message: "unexpected call" });
  sessionId = (await api.create()).workflowId;
  expect((await step({ type: "ACT", step: `go to "${fixture.pages.url}/app.html"` })).status).toBe("SUCCEEDED");
  expect(fixture.model.requests).toHaveLength(0);
});

afterEach(async () => {
  await api.call("POST", routePath(ROUTES.stepClose, { id: sessionId }));
});

/** Runs a step over HTTP and waits for it; the status is parsed with the protocol's `StepStatus`. */
async function step(body: Record<string, unknown>): Promise<StepStatus> {
  const { stepId } = await api.runOk(sessionId, body);
  return api.finished(stepId);
}

/** A free-form ACT the grammar hands to the model. */
const storeChoice = (timeoutMs = 20_000) => step({ type: "ACT", step: "store my plan choice", timeoutMs });

/** The model's honest answer to {@link storeChoice}: click "Save plan" (its reference read from the request). */
function savesPlan(request: RecordedRequest, usage?: ReplyUsage | null): Reply {
  return { content: { reason: "Save plan stores the choice.", actions: [{ verb: "click", ref: refFor(request, "Save plan", "button"), value: null }] }, ...(usage !== undefined ? { usage } : {}) };
}

/** A script that answers `faults` in order, then honestly. */
function faultsThen(...faults: Reply[]): (request: RecordedRequest, n: number) => Reply {
  return (request, n) => faults[n] ?? savesPlan(request, { prompt_tokens: 100, completion_tokens: 10 });
}

function expectSafeTokens(usage: StepUsage | null | undefined): void {
  expect(usage).toBeTruthy();
  for (const n of [usage!.promptTokens, usage!.completionTokens, usage!.totalTokens, usage!.calls]) {
    expect(Number.isSafeInteger(n) && n >= 0, String(n)).toBe(true);
  }
  expect(usage!.totalTokens).toBe(usage!.promptTokens + usage!.completionTokens);
}

describe("the provider's usage is data to verify", () => {
  for (const bad of ["12", -1, 12.5, 1e300, null, { n: 3 }]) {
    it(`prompt_tokens ${JSON.stringify(bad)} is estimated and flagged; the step status keeps the protocol`, async () => {
      fixture.model.script = (request) => savesPlan(request, { prompt_tokens: bad, completion_tokens: 7 });
      const status = await step({ type: "ACT", step: "store my plan choice" });
      expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", interpreter: "model", usage: { calls: 1, completionTokens: 7, estimated: true } });
      expectSafeTokens(status.usage);
      // The estimate: the prompt sent, at 4 characters a token.
      expect(status.usage!.promptTokens).toBeGreaterThan(100);
      // The session's status (every step in it) keeps the protocol too.
      await api.session(sessionId);
    });
  }

  it("completion_tokens as a string is estimated from the answer; no usage at all is estimated too", async () => {
    fixture.model.script = (request) => savesPlan(request, { prompt_tokens: 120, completion_tokens: "30" });
    const status = await storeChoice();
    expect(status.usage).toMatchObject({ promptTokens: 120, estimated: true });
    expectSafeTokens(status.usage);
    fixture.model.script = (request) => savesPlan(request, null);
    const none = await storeChoice();
    expect(none.usage).toMatchObject({ calls: 1, estimated: true });
    expectSafeTokens(none.usage);
  });

  it("usage as non-negative whole numbers is taken as reported, not flagged", async () => {
    fixture.model.script = (request) => savesPlan(request, { prompt_tokens: 812, completion_tokens: 64 });
    const status = await storeChoice();
    expect(status.usage).toMatchObject({ promptTokens: 812, completionTokens: 64, totalTokens: 876, calls: 1 });
    expect(status.usage!.estimated).toBeUndefined();
  });
});

describe("usage.calls counts every HTTP request to the provider", () => {
  it("the SDK's retry after a 500 is a call", async () => {
    fixture.model.script = faultsThen({ status: 500, message: "upstream exploded", headers: { "retry-after-ms": "10" } });
    const status = await storeChoice();
    expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", usage: { calls: 2, promptTokens: 100, completionTokens: 10 } });
    expect(fixture.model.requests).toHaveLength(2);
  });

  it("the SDK's retries after two 429s are calls", async () => {
    const limited: Reply = { status: 429, message: "Rate limit reached", headers: { "retry-after-ms": "10" } };
    fixture.model.script = faultsThen(limited, limited);
    const status = await storeChoice();
    expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", usage: { calls: 3 } });
    expect(fixture.model.requests).toHaveLength(3);
  });

  it("a connection reset and its retry are two calls", async () => {
    fixture.model.script = faultsThen({ reset: true });
    const status = await storeChoice();
    expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", usage: { calls: 2 } });
    expect(fixture.model.requests).toHaveLength(2);
  });

  it("a failed call's usage is recorded: every request, no tokens the provider did not report", async () => {
    fixture.model.script = () => ({ status: 503, message: "overloaded", headers: { "retry-after-ms": "10" } });
    const status = await storeChoice();
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_UNAVAILABLE" }, usage: { calls: 3, totalTokens: 0 } });
    expect(fixture.model.requests).toHaveLength(3);
  });
});

describe("provider faults get their own codes", () => {
  it("a connection cut after the headers is retried like a reset", async () => {
    fixture.model.script = faultsThen({ cutAfterHeaders: true });
    const status = await storeChoice();
    expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", interpreter: "model", usage: { calls: 2 } });
    expect(fixture.model.requests).toHaveLength(2);
  });

  for (const statusCode of [429, 503]) {
    it(`a ${statusCode} whose Retry-After is longer than the step's time left fails at once WF_MODEL_RATE_LIMITED, saying how long the provider asked to wait`, async () => {
      fixture.model.script = () => ({ status: statusCode, message: "Slow down", headers: { "retry-after": "120" } });
      const status = await storeChoice(15_000);
      expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_RATE_LIMITED" }, usage: { calls: 1 } });
      expect(status.error!.message).toContain(fixture.model.baseUrl);
      expect(status.error!.message).toMatch(/asked to wait 120 s/);
      expect(fixture.model.requests).toHaveLength(1);
    });
  }

  it("a provider that never answers fails WF_MODEL_TIMEOUT naming it, each request recorded (the SDK retries a timed-out one)", { timeout: 120_000 }, async () => {
    fixture.model.script = () => ({ hang: true });
    const status = await storeChoice(60_000);
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_TIMEOUT" } });
    expect(status.error!.message).toContain(fixture.model.baseUrl);
    expect(status.error!.message).toContain("test-model");
    expect(status.error!.message).toContain(`${MODEL_TIMEOUT_MS} ms`);
    expect(status.error!.message).toContain("WF_MODEL_TIMEOUT_MS");
    expect(status.usage).toMatchObject({ calls: fixture.model.requests.length, totalTokens: 0 });
    expect(fixture.model.requests.length).toBe(3);
  });

  it("a step whose own deadline comes while the provider has not answered fails WF_MODEL_TIMEOUT naming it, with the call in its usage", async () => {
    fixture.model.script = () => ({ hang: true });
    const status = await storeChoice(SHORT_STEP_MS);
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_TIMEOUT" }, usage: { calls: 1 } });
    expect(status.error!.message).toContain(fixture.model.baseUrl);
    expect(status.error!.message).toMatch(/timeoutMs/);
  });

  it("finish_reason content_filter is named, and not asked again", async () => {
    fixture.model.script = () => ({ content: null, finishReason: "content_filter", usage: { prompt_tokens: 100, completion_tokens: 0 } });
    const status = await storeChoice();
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_REFUSED" }, usage: { calls: 1 } });
    expect(status.error!.message).toMatch(/content filter/);
    expect(status.error!.message).not.toMatch(/empty/);
    expect(fixture.model.requests).toHaveLength(1);
  });

  const contextLength = {
    OpenAI: {
      message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9211 tokens. Please reduce the length of the messages.",
      body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9211 tokens. Please reduce the length of the messages.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    },
    "llama.cpp": {
      message: "the request exceeds the available context size, try increasing it",
      body: { error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 5000, n_ctx: 4096 } },
    },
  };
  for (const [who, { message, body }] of Object.entries(contextLength)) {
    it(`a context-length 400 (${who}) says to lower WF_MODEL_MAX_PROMPT_TOKENS, not to change the response format`, async () => {
      fixture.model.script = () => ({ status: 400, message, body });
      const status = await storeChoice();
      expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_BAD_REQUEST" }, usage: { calls: 1 } });
      expect(status.error!.message).toMatch(/lower WF_MODEL_MAX_PROMPT_TOKENS \(now 12000\)/);
      expect(status.error!.message).not.toMatch(/WF_MODEL_RESPONSE_FORMAT/);
      expect(fixture.model.requests).toHaveLength(1);
    });
  }

  // Last: the endpoint is then asked with json_object for the rest of this server's life.
  it("the json_object fallback is a call of its own", async () => {
    fixture.model.script = behaveLike("llama.cpp-old", (request) => savesPlan(request, { prompt_tokens: 100, completion_tokens: 10 }));
    const status = await storeChoice();
    expect(status, JSON.stringify(status.error)).toMatchObject({ status: "SUCCEEDED", usage: { calls: 2, promptTokens: 100 } });
    expect(fixture.model.requests.map((r) => r.body.response_format?.type)).toEqual(["json_schema", "json_object"]);
  });
});
