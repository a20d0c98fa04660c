/**
 * Issue 31's budget and books as a user meets them: `wf run` spawned, its embedded server pointed
 * at a double of the provider. Every HTTP request to the provider is a call in the books and in
 * the budget; once `--max-model-calls` is spent an ASK fails `WF_MODEL_BUDGET_EXCEEDED`, never
 * answered by the model-free page reader instead (it read `null` where the page states 17.50);
 * junk `usage` from the provider is estimated and flagged, not the end of the run.
 */
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { askReply, startModelDouble, type ModelDouble, type RecordedRequest, type Reply } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

describe("wf run: the model budget counts requests and never falls back to the page reader (spawned)", { timeout: 300_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    model = await startModelDouble();
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  // The total as the page writes it (€17.50), with its quote: a grounded answer (issue 31).
  const grounded = (request: RecordedRequest) => askReply(request, { total: 17.5 }, [{ path: "/total", quote: "17.50" }]);
  const total = (request: RecordedRequest): Reply => ({ content: grounded(request), usage: { prompt_tokens: 300, completion_tokens: 30 } });
  const env = (extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-books", WF_MODEL: "test-model", CI: "", ...extra });
  const run = (args: string[], extra: Record<string, string> = {}, reporter = "json") =>
    runWf(["run", join(FIXTURES, "two-asks.ts"), "--param", `url=${pages.url}/order.html`, "--reporter", reporter, "--lock", "off", ...args], { cwd: scratch.dir, env: env(extra), timeoutMs: 150_000 });

  it("--max-model-calls 1, the provider answers 500 once: the SDK's retry is the second call, and the run fails WF_MODEL_BUDGET_EXCEEDED", async () => {
    model.script = (request, n) => (n === 0 ? { status: 500, message: "upstream hiccup", headers: { "retry-after-ms": "10" } } : total(request));
    const result = await run(["--max-model-calls", "1"]);
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "failed", usage: { calls: 2 }, error: { code: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(record).toMatchObject({ maxModelCalls: 1, usage: { calls: 2 } });
    expect(record.output).toBeUndefined();
    expect(model.requests).toHaveLength(2);
  });

  it("--max-model-calls 1 and two ASKs: the second fails WF_MODEL_BUDGET_EXCEEDED with no call; the page reader never answers it", async () => {
    model.script = (request) => total(request);
    const result = await run(["--max-model-calls", "1"]);
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", interpreter: "model", answer: { total: 17.5 }, usage: { calls: 1 } });
    expect(record.steps[2]).toMatchObject({ status: "failed", error: { code: "WF_MODEL_BUDGET_EXCEEDED", message: expect.stringMatching(/model budget of 1 call is spent/) } });
    expect(record.steps[2].answer).toBeUndefined();
    expect(record.steps[2].interpreter).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it("usage the provider sends as strings is estimated and flagged: the run succeeds, and the reporters mark the tokens ~", async () => {
    model.script = (request) => ({ content: grounded(request), usage: { prompt_tokens: "12", completion_tokens: "3" } });
    const result = await run([]);
    expect(result.stderr).not.toMatch(/WF_SERVICE_PROTOCOL/);
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.output).toEqual({ first: 17.5, second: 17.5 });
    expect(record.steps[1].usage).toMatchObject({ calls: 1, estimated: true });
    expect(Number.isSafeInteger(record.steps[1].usage.promptTokens)).toBe(true);
    expect(record.usage).toMatchObject({ calls: 2, estimated: true });

    const plain = await run([], { NO_COLOR: "1" }, "pretty");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^step 2 ASK "the order total" succeeded \d+ms .*model tokens=~\d+$/m);
    expect(plain.stderr + plain.stdout).toMatch(/run succeeded \(3 steps in .*, ~\d+ tokens in 2 model calls\)/);
  });
});
