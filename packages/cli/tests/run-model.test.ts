/**
 * `wf run --model` as a user runs it: spawned, the embedded server configured for a model through
 * the openai SDK's own variables, against a double of an OpenAI-compatible provider. The record
 * and the reporters carry who ran each step, what the model resolved it to, and the tokens.
 * `--lock off`: these runs are about the model itself (the action lock has run-lock.test.ts), and
 * must not write a lock beside the fixture.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askReply, refFor, startModelDouble, type ModelDouble } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

describe("wf run with a model (spawned)", { timeout: 150_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    model = await startModelDouble((request) =>
      request.body.response_format?.json_schema?.name === "wf_act"
        ? { content: { reason: "The Sign in button signs in.", actions: [{ verb: "click", ref: refFor(request, "Sign in", "button"), value: null }] }, usage: { prompt_tokens: 300, completion_tokens: 30 } }
        : { content: askReply(request, { value: [{ name: "Tea", price: 3 }, { name: "Coffee", price: 4 }] }), usage: { prompt_tokens: 400, completion_tokens: 40 } },
    );
  });
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const env = () => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-cli-key" });

  it("runs free-form steps through the model named by --model; the record shows interpreter, resolved instruction and tokens", async () => {
    const result = await runWf(["run", join(FIXTURES, "free-form.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "json", "--model", "test-model", "--lock", "off"], {
      cwd: scratch.dir,
      env: env(),
      timeoutMs: 140_000,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record).toMatchObject({ status: "succeeded", output: { drinks: [{ name: "Tea", price: 3 }, { name: "Coffee", price: 4 }] } });
    expect(record.steps[0]).toMatchObject({ interpreter: "grammar" });
    expect(record.steps[0].usage).toBeUndefined();
    expect(record.steps[1]).toMatchObject({ interpreter: "model", resolved: 'click the "Sign in" button', usage: { model: "test-model", totalTokens: 330, calls: 1 } });
    expect(record.steps[2]).toMatchObject({ interpreter: "model", usage: { totalTokens: 440, calls: 1 } });
    expect(record.usage).toMatchObject({ models: ["test-model"], promptTokens: 700, completionTokens: 70, totalTokens: 770, calls: 2, steps: 2 });
    expect(model.requests.every((r) => r.headers.authorization === "Bearer sk-test-cli-key")).toBe(true);
  });

  it("takes the model from WF_MODEL too, and the plain reporter shows per-step and total tokens", async () => {
    const result = await runWf(["run", join(FIXTURES, "free-form.ts"), "--param", `url=${pages.url}/index.html`, "--lock", "off"], {
      cwd: scratch.dir,
      env: { ...env(), WF_MODEL: "test-model", NO_COLOR: "1" },
      timeoutMs: 140_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^step 2 ACT "sign me in please" succeeded \d+ms model="click the \\"Sign in\\" button" tokens=330$/m);
    expect(result.stdout).toMatch(/^step 3 ASK .* tokens=440$/m);
    expect(result.stdout).toMatch(/run succeeded \(3 steps in .*, 770 tokens in 2 model calls\)/);
  });
});
