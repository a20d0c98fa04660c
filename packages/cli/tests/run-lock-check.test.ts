/**
 * Check recipes in the action lock (issue 35), `wf run` spawned as a user runs it: a `--lock write`
 * run records the check the model decided with its verified recipe (the grammar's check gets no
 * entry); `--lock frozen` with no model configured replays it with zero model calls and passes;
 * when the page says otherwise, the replay fails the check (never a pass from the recording); when
 * the element is gone, the step fails WF_LOCK_STALE naming the entry, and `--lock heal` with a
 * model checks again and rewrites the entry.
 */
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pageOf, startModelDouble, type ModelDouble, type RecordedRequest } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

const SERVER_PAGES = fileURLToPath(new URL("../../server/tests/fixtures/model/", import.meta.url));
const EVIDENCE = "Parcel for Ada Lovelace: shipped on 12 March by DHL";

/** A model that checks the shipment: it holds, quoting the line that says so (when the page shows it). */
function verdict(request: RecordedRequest): unknown {
  const page = pageOf(request);
  if (page.includes("Order #1042") && page.includes("Leave at the front desk")) {
    return page.includes("shipped on 12 March")
      ? { holds: true, reason: "The parcel line says it shipped.", evidence: EVIDENCE }
      : { holds: false, reason: "No shipment is shown.", evidence: "Leave at the front desk." };
  }
  return { holds: false, reason: "Not this page.", evidence: "" };
}

describe("wf run with check recipes in the lock (spawned)", { timeout: 300_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let flow: string;
  let lockPath: string;
  beforeAll(async () => {
    pages = await startPages(SERVER_PAGES);
    scratch = await scratchDir();
    flow = join(scratch.dir, "check-lock-flow.ts");
    lockPath = join(scratch.dir, "check-lock-flow.wf.lock.json");
    await copyFile(join(FIXTURES, "check-lock-flow.ts"), flow);
    model = await startModelDouble((request) => ({ content: verdict(request), usage: { prompt_tokens: 400, completion_tokens: 40 } }));
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const withModel = () => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-check", WF_MODEL: "test-model", CI: "" });
  const noModel = () => ({ OPENAI_BASE_URL: "", OPENAI_API_KEY: "", WF_MODEL: "", CI: "true" });
  const run = (variant: string, args: string[], env: Record<string, string>) =>
    runWf(["run", flow, "--param", `url=${pages.url}/check-shipment.html${variant ? `?variant=${variant}` : ""}`, "--reporter", "json", ...args], { cwd: scratch.dir, env, timeoutMs: 150_000 });

  it("--lock write records the model's check with its verified recipe; the grammar's check gets no entry", async () => {
    const result = await run("", ["--lock", "write"], withModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(model.requests).toHaveLength(1);
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0]).toMatchObject({
      callSite: expect.stringMatching(/^check-lock-flow\.ts:8:\d+$/),
      instruction: "Ada Lovelace's parcel has shipped",
      read: { schemaHash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), check: { element: { role: "text", locator: "locator('#shipping > div:nth-of-type(1)')" }, equals: EVIDENCE } },
      model: "test-model",
    });
    expect(lock.entries[0].read.recipe).toBeUndefined();
    expect(lock.entries[0].read.noRecipe).toBeUndefined();
  });

  it("--lock frozen with no model replays the check: zero model calls, it passes, marked replayed", async () => {
    const before = await readFile(lockPath, "utf8");
    const result = await run("", ["--lock", "frozen"], noModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", replayed: true, check: { holds: true } });
    expect(record.steps[2]).toMatchObject({ status: "succeeded", interpreter: "grammar" });
    expect(record.steps[2].replayed).toBeUndefined();
    expect(model.requests).toHaveLength(0);
    expect(await readFile(lockPath, "utf8")).toBe(before);
  });

  it("when the page says otherwise, the frozen replay fails the check (WF_CHECK_FAILED), with no model call", async () => {
    const result = await run("pending", ["--lock", "frozen"], noModel());
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "failed", replayed: true, error: { code: "WF_CHECK_FAILED" } });
    expect(record.steps[1].error.message).toContain("no longer reads");
    expect(record.steps[1].error.message).toContain("waiting for pickup");
    expect(model.requests).toHaveLength(0);
  });

  it("when the element is gone, frozen fails WF_LOCK_STALE naming the entry; heal with a model checks again and rewrites the entry", async () => {
    const frozen = await run("gone", ["--lock", "frozen"], noModel());
    expect(frozen.code).toBe(1);
    const failed = JSON.parse(frozen.stdout);
    expect(failed.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_STALE" } });
    expect(failed.steps[1].error.message).toMatch(/The lock entry "Ada Lovelace's parcel has shipped" at check-lock-flow\.ts:8:\d+ .* is stale: .*#shipping > div:nth-of-type\(1\).*nothing there/);
    expect(failed.steps[1].error.message).toContain("--lock write");
    expect(model.requests).toHaveLength(0);

    // heal: the same line in a box of another id: stale under frozen, found again by the model under heal.
    const moved = await run("moved", ["--lock", "frozen"], noModel());
    expect(JSON.parse(moved.stdout).steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_STALE" } });
    const heal = await run("moved", ["--lock", "heal"], withModel());
    expect(heal.code).toBe(0);
    expect(JSON.parse(heal.stdout).steps[1]).toMatchObject({ status: "succeeded", interpreter: "model", healed: true });
    expect(model.requests.length).toBeGreaterThan(0);
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries[0].read.check.element.locator).toBe("locator('#delivery > div:nth-of-type(1)')");
    model.requests.splice(0);
    const again = await run("moved", ["--lock", "frozen"], noModel());
    expect(again.code).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it("a statement about more than one element's text gets no recipe, says why, and fails WF_LOCK_MISSING under frozen with no model call", async () => {
    const judged = join(scratch.dir, "check-lock-judged.ts");
    await copyFile(join(FIXTURES, "check-lock-judged.ts"), judged);
    const args = (mode: string) => ["run", judged, "--param", `url=${pages.url}/check-shipment.html`, "--reporter", "json", "--lock", mode];
    const write = await runWf(args("write"), { cwd: scratch.dir, env: withModel(), timeoutMs: 150_000 });
    expect(write.code).toBe(0);
    const lock = JSON.parse(await readFile(join(scratch.dir, "check-lock-judged.wf.lock.json"), "utf8"));
    expect(lock.entries[0].read.check).toBeUndefined();
    expect(lock.entries[0].read.noRecipe).toMatch(/^the statement needs judgement: "only"/);
    model.requests.splice(0);
    const frozen = await runWf(args("frozen"), { cwd: scratch.dir, env: noModel(), timeoutMs: 150_000 });
    expect(frozen.code).toBe(1);
    const failed = JSON.parse(frozen.stdout).steps[1];
    expect(failed).toMatchObject({ status: "failed", error: { code: "WF_LOCK_MISSING" } });
    expect(failed.error.message).toContain("has no check recipe for this step");
    expect(failed.error.message).toContain("needs judgement");
    expect(model.requests).toHaveLength(0);
  });

  it("wf lock lists the check with what its recipe evaluates", async () => {
    const result = await runWf(["lock", flow], { cwd: scratch.dir, env: noModel(), timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/check.*#delivery > div:nth-of-type\(1\).*Parcel for Ada Lovelace/);
  });
});
