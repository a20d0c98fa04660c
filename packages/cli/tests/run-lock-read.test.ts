/**
 * Read recipes in the action lock (issue 35), `wf run` spawned as a user runs it: a `--lock write`
 * run records each ASK the model answered with its verified recipe; `--lock frozen` with no model
 * configured replays both reads with zero model calls and the same answers; after the page's data
 * changed, the replay returns the new data; after its structure changed, the step fails
 * WF_LOCK_STALE naming the entry (frozen), `--lock read` with a model falls back to it and says
 * so, and `--lock heal` with a model reads it again and rewrites the entry.
 */
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { askReply, pageOf, startModelDouble, type ModelDouble, type RecordedRequest } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

const SERVER_PAGES = fileURLToPath(new URL("../../server/tests/fixtures/model/", import.meta.url));

const PENDING = [
  { order: "#1042", customer: "Ada Lovelace", total: 120 },
  { order: "#1044", customer: "Grace Hopper", total: 1299 },
];

/** A model that reads the orders page: the pending orders (as a table's rows or cards), or the account's values. */
function answer(request: RecordedRequest): unknown {
  const page = pageOf(request);
  if (page.includes("Question: the pending orders")) {
    return askReply(
      request,
      { value: PENDING },
      PENDING.flatMap((o, i) => [
        { path: `/value/${i}/order`, quote: o.order },
        { path: `/value/${i}/customer`, quote: o.customer },
        { path: `/value/${i}/total`, quote: i === 0 ? "$120.00" : "$1,299.00" },
      ]),
    );
  }
  if (page.includes("Question: how many orders are pending")) {
    // A count: grounded by the rows it counted, which no recipe reads as one value.
    return askReply(request, { value: 2 }, [
      { path: "/value", quote: "#1042" },
      { path: "/value", quote: "#1044" },
    ]);
  }
  if (page.includes("Question: the account manager\n")) return askReply(request, { manager: "Dana Whitfield" }, [{ path: "/manager", quote: "Dana Whitfield" }]);
  return askReply(request, { manager: "Dana Whitfield", balance: 1284.5 }, [
    { path: "/manager", quote: "Dana Whitfield" },
    { path: "/balance", quote: "$1,284.50" },
  ]);
}

describe("wf run with read recipes in the lock (spawned)", { timeout: 300_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let flow: string;
  let lockPath: string;
  beforeAll(async () => {
    pages = await startPages(SERVER_PAGES);
    scratch = await scratchDir();
    flow = join(scratch.dir, "read-lock-flow.ts");
    lockPath = join(scratch.dir, "read-lock-flow.wf.lock.json");
    await copyFile(join(FIXTURES, "read-lock-flow.ts"), flow);
    model = await startModelDouble((request) => ({ content: answer(request), usage: { prompt_tokens: 400, completion_tokens: 40 } }));
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const withModel = (extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-read", WF_MODEL: "test-model", CI: "", ...extra });
  const noModel = (extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: "", OPENAI_API_KEY: "", WF_MODEL: "", CI: "true", ...extra });
  const run = (variant: string, args: string[], env: Record<string, string>) =>
    runWf(["run", flow, "--param", `url=${pages.url}/read-orders.html${variant ? `?variant=${variant}` : ""}`, "--reporter", "json", ...args], { cwd: scratch.dir, env, timeoutMs: 150_000 });

  it("--lock write records each read with its verified recipe and schema hash", async () => {
    const result = await run("", ["--lock", "write"], withModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.output).toEqual({ pending: PENDING, manager: "Dana Whitfield", balance: 1284.5 });
    expect(model.requests).toHaveLength(2);
    const text = await readFile(lockPath, "utf8");
    const lock = JSON.parse(text);
    expect(lock.entries).toHaveLength(2);
    expect(lock.entries[0]).toMatchObject({
      callSite: expect.stringMatching(/^read-lock-flow\.ts:11:\d+$/),
      instruction: "the pending orders",
      read: { schemaHash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), recipe: { parts: [{ path: "/value", where: [{ equals: "Pending" }] }] } },
      model: "test-model",
    });
    expect(lock.entries[0].actions).toBeUndefined();
    expect(lock.entries[1]).toMatchObject({ instruction: "the account manager and the balance due", read: { recipe: { parts: [{ path: "/manager" }, { path: "/balance", as: "number" }] } } });
    expect(text).toBe(JSON.stringify(lock, null, 2) + "\n");
  });

  it("--lock frozen with no model configured replays both reads: zero model calls, the same answers, the steps marked replayed, the lock unchanged", async () => {
    const before = await readFile(lockPath, "utf8");
    const result = await run("", ["--lock", "frozen"], noModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.output).toEqual({ pending: PENDING, manager: "Dana Whitfield", balance: 1284.5 });
    expect(record.steps[1]).toMatchObject({ status: "succeeded", replayed: true });
    expect(record.steps[2]).toMatchObject({ status: "succeeded", replayed: true });
    expect(record.usage).toBeUndefined();
    expect(model.requests).toHaveLength(0);
    expect(await readFile(lockPath, "utf8")).toBe(before);
  });

  it("after the data changed, the frozen replay returns the new data (a row added, numbers changed)", async () => {
    const result = await run("changed", ["--lock", "frozen"], noModel());
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.output).toEqual({
      pending: [...PENDING.slice(0, 1), { order: "#1044", customer: "Grace Hopper", total: 1349 }, { order: "#1046", customer: "Edsger Dijkstra", total: 18.25 }],
      manager: "Dana Whitfield",
      balance: 1310,
    });
    expect(model.requests).toHaveLength(0);
  });

  it("after the structure changed, frozen fails WF_LOCK_STALE naming the entry and the command; read falls back to the model; heal with a model reads it again and rewrites the entry", async () => {
    const frozen = await run("moved", ["--lock", "frozen"], noModel());
    expect(frozen.code).toBe(1);
    const failed = JSON.parse(frozen.stdout);
    expect(failed.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_STALE" } });
    expect(failed.steps[1].error.message).toMatch(/The lock entry "the pending orders" at read-lock-flow\.ts:11:\d+ .* is stale: .*no longer applies.*a table with the headers/);
    expect(failed.steps[1].error.message).toContain("--lock write");
    expect(model.requests).toHaveLength(0);

    const before = await readFile(lockPath, "utf8");
    const read = await run("moved", ["--lock", "read"], withModel());
    expect(read.code).toBe(0);
    const fellBack = JSON.parse(read.stdout);
    expect(fellBack.steps[1]).toMatchObject({ status: "succeeded", interpreter: "model" });
    expect(fellBack.logs.map((l: { message: string }) => l.message).join("\n")).toMatch(/The recorded read "the pending orders" at read-lock-flow\.ts:11:\d+ .* no longer applies .* the model read the page instead/);
    expect(model.requests.length).toBeGreaterThan(0);
    expect(await readFile(lockPath, "utf8")).toBe(before);

    const healed = await run("moved", ["--lock", "heal"], withModel());
    expect(healed.code).toBe(0);
    const record = JSON.parse(healed.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", interpreter: "model", healed: true });
    expect(record.output.pending).toEqual(PENDING);
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    // The cards are no table: the new entry says why it has no recipe (the model reads it on every run).
    expect(lock.entries[0].read.recipe).toBeUndefined();
    expect(lock.entries[0].read.noRecipe).toMatch(/no table/);
  });
});

describe("wf run --lock frozen and a read with no recipe (spawned)", { timeout: 300_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let flow: string;
  let lockPath: string;
  beforeAll(async () => {
    pages = await startPages(SERVER_PAGES);
    scratch = await scratchDir();
    flow = join(scratch.dir, "read-lock-judged.ts");
    lockPath = join(scratch.dir, "read-lock-judged.wf.lock.json");
    await copyFile(join(FIXTURES, "read-lock-judged.ts"), flow);
    model = await startModelDouble((request) => ({ content: answer(request), usage: { prompt_tokens: 400, completion_tokens: 40 } }));
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const withModel = (extra: Record<string, string> = {}) => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-read", WF_MODEL: "test-model", CI: "", ...extra });
  const run = (args: string[], env: Record<string, string>) => runWf(["run", flow, "--param", `url=${pages.url}/read-orders.html`, "--reporter", "json", ...args], { cwd: scratch.dir, env, timeoutMs: 150_000 });

  it("frozen with a model configured, before anything is recorded: the first ASK fails WF_LOCK_MISSING naming it, with no model call", async () => {
    const result = await run(["--lock", "frozen"], withModel());
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_MISSING" } });
    expect(record.steps[1].error.message).toMatch(/has no read recipe for this step.*--lock frozen calls no model.*it has no entry for "the account manager" at read-lock-judged\.ts:8:\d+/);
    expect(record.steps[1].error.message).toContain("--lock write");
    expect(model.requests).toHaveLength(0);
  });

  it("a count recorded with --lock write says why it has no recipe; frozen replays the other read and fails the count WF_LOCK_MISSING with that reason, with no model call", async () => {
    const write = await run(["--lock", "write"], withModel());
    expect(write.code).toBe(0);
    expect(JSON.parse(write.stdout).output).toEqual({ manager: "Dana Whitfield", pending: 2 });
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries[1].read.recipe).toBeUndefined();
    expect(lock.entries[1].read.noRecipe).toMatch(/needs judgement: .*a count of page items/);

    model.requests.splice(0);
    const frozen = await run(["--lock", "frozen"], withModel());
    expect(frozen.code).toBe(1);
    const record = JSON.parse(frozen.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", replayed: true });
    expect(record.steps[2]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_MISSING" } });
    expect(record.steps[2].error.message).toMatch(/"how many orders are pending" at read-lock-judged\.ts:9:\d+ has no recipe: the answer needs judgement/);
    expect(record.steps[2].error.message).toMatch(/goes to the model on every run: run it with --lock read or heal/);
    expect(model.requests).toHaveLength(0);

    // read: the same step goes to the model, as it must on every run.
    const read = await run(["--lock", "read"], withModel());
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).output).toEqual({ manager: "Dana Whitfield", pending: 2 });
    expect(model.requests).toHaveLength(1);
  });
});
