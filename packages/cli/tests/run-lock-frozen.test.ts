/**
 * Issue 21, the runtime half: `--lock frozen` (the default on CI) fails an ACT the lock has no
 * entry for with WF_LOCK_MISSING and calls no model; `read` says when the model resolved a step
 * the lock lacks; `--max-model-calls` stops the run at the call beyond the budget (0: none at
 * all); a `write` run that resolves a step the same way leaves its entry byte for byte. Spawned
 * as a user runs `wf`, against a double of an OpenAI-compatible provider that counts requests.
 */
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { refFor, startModelDouble, type ModelDouble } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

describe("wf run: frozen lock, model budget, stable lock writes (spawned)", { timeout: 300_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let flow: string;
  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    flow = join(scratch.dir, "two-model-acts.ts");
    await copyFile(join(FIXTURES, "two-model-acts.ts"), flow);
    model = await startModelDouble((request) => ({
      content: { reason: "The Sign in button signs in.", actions: [{ verb: "click", ref: refFor(request, "Sign in", "button"), value: null }] },
      usage: { prompt_tokens: 300, completion_tokens: 30 },
    }));
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const withModel = (extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-frozen", WF_MODEL: "test-model", CI: "", ...extra });
  const run = (args: string[], env: Record<string, string>, reporter = "json") =>
    runWf(["run", flow, "--param", `url=${pages.url}/index.html`, "--reporter", reporter, ...args], { cwd: scratch.dir, env, timeoutMs: 150_000 });
  const lockPath = () => join(scratch.dir, "two-model-acts.wf.lock.json");

  it("on CI the lock is frozen: an ACT with no entry fails WF_LOCK_MISSING naming its call site and the command that records it, with no model call", async () => {
    const result = await run([], withModel({ CI: "true" }));
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[0]).toMatchObject({ status: "succeeded", interpreter: "grammar" });
    expect(record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_MISSING" } });
    const message: string = record.steps[1].error.message;
    expect(message).toMatch(/has no entry for "sign me in please" at two-model-acts\.ts:9:\d+/);
    expect(message).toContain(`\`wf run ${flow} --lock write\``);
    expect(message).toContain("--lock frozen calls no model");
    expect(record.error).toMatchObject({ stepIndex: 2, details: { serviceCode: "WF_LOCK_MISSING" } });
    expect(model.requests).toHaveLength(0);
    expect(record.usage).toBeUndefined();
    await expect(readFile(lockPath(), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("--lock read lets the model resolve a step with no entry, and the step and a log line say so", async () => {
    const result = await run(["--lock", "read"], withModel({ NO_COLOR: "1" }), "pretty");
    expect(result.code).toBe(0);
    expect(model.requests).toHaveLength(2);
    expect(result.stdout).toMatch(/^step 2 ACT "sign me in please" succeeded \d+ms model="click the \\"Sign in\\" button" no-lock-entry tokens=330$/m);
    expect(result.stdout).toMatch(/^log The lock .*two-model-acts\.wf\.lock\.json has no entry for "sign me in please" at two-model-acts\.ts:9:\d+: the model resolved it \(--lock read records nothing\)/m);
    await expect(readFile(lockPath(), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("--max-model-calls 1 with two model steps: the first calls the model, the second fails WF_MODEL_BUDGET_EXCEEDED without a call", async () => {
    const result = await run(["--lock", "off", "--max-model-calls", "1"], withModel());
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", interpreter: "model", usage: { calls: 1 } });
    expect(record.steps[2]).toMatchObject({ status: "failed", error: { code: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(record.steps[2].error.message).toMatch(/model budget of 1 call is spent \(1 model call \(330 tokens\) so far\)/);
    expect(record.steps[2].usage).toBeUndefined();
    expect(record).toMatchObject({ maxModelCalls: 1, usage: { calls: 1, totalTokens: 330 } });
    expect(model.requests).toHaveLength(1);
  });

  it("--max-model-calls 0 is no model at all, and the plain reporter prints calls and tokens against the budget", async () => {
    const result = await run(["--lock", "off", "--max-model-calls", "0"], withModel({ NO_COLOR: "1" }), "pretty");
    expect(result.code).toBe(1);
    expect(model.requests).toHaveLength(0);
    expect(result.stdout).toMatch(/^step 2 ACT "sign me in please" failed \d+ms error=WF_MODEL_BUDGET_EXCEEDED: The run's model budget of 0 calls is spent/m);
    expect(result.stderr).toMatch(/^run failed at step 2 \(two-model-acts\.ts:9:\d+\); 0 tokens in 0 of 0 model calls \(--max-model-calls\)$/m);
  });

  it("a --lock write run that resolves the steps alike leaves the lock byte for byte (no recordedAt churn)", async () => {
    // With a picture after every step, the report shows the page before and after each change.
    const first = await run(["--lock", "write", "--screenshot", "on"], withModel());
    expect(first.code).toBe(0);
    const written = await readFile(lockPath(), "utf8");
    expect(JSON.parse(written).entries).toHaveLength(2);
    const record = JSON.parse(first.stdout);
    expect(record.lockChanges.map((c: { kind: string; stepIndex: number }) => [c.kind, c.stepIndex])).toEqual([["added", 2], ["added", 3]]);
    // The HTML report shows the same changes, with the page before and after the step that wrote each.
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(join(scratch.dir, "wf-report", "index.html")).href);
      const changes = page.locator(".lock-change");
      await expect.poll(() => changes.count()).toBe(2);
      const first = changes.first();
      // The passed workflow's section is closed: read text content, not rendered text.
      expect(await first.textContent()).toContain('added "sign me in please"');
      expect(await first.locator("tr", { hasText: "action 1 instruction" }).locator("code.new").textContent()).toBe('click the "Sign in" button');
      expect(await first.locator("tr", { hasText: "action 1 role" }).locator("code.new").textContent()).toBe("button");
      expect(await first.locator("img").evaluateAll((imgs) => imgs.map((i) => i.getAttribute("src")))).toEqual(["two-model-acts/step-1.png", "two-model-acts/step-2.png"]);
      expect(await page.locator(".model-usage").textContent()).toMatch(/660 tokens in 2 calls/);
    } finally {
      await browser.close();
    }
    await new Promise((r) => setTimeout(r, 20));
    const again = await run(["--lock", "write"], withModel());
    expect(again.code).toBe(0);
    expect(model.requests).toHaveLength(4);
    expect(await readFile(lockPath(), "utf8")).toBe(written);
    expect(JSON.parse(again.stdout).lockChanges).toBeUndefined();
    // And the frozen run now replays both entries with no model call.
    model.requests.splice(0);
    const frozen = await run(["--lock", "frozen"], withModel());
    expect(frozen.code).toBe(0);
    expect(JSON.parse(frozen.stdout).steps.slice(1).map((s: { replayed?: boolean }) => s.replayed)).toEqual([true, true]);
    expect(model.requests).toHaveLength(0);
  });
});
