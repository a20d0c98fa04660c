/**
 * Issue 35's "done when" on a real flow: the team-admin workflow, recorded once with a model
 * (`--lock write`, against a double of an OpenAI-compatible provider that counts its requests),
 * replays `--lock frozen` with the model still configured and not one call to it: the members
 * table is read by the recorded recipe, its answer equal to the model's. Then the app's data
 * changes (its `team.js`: a role and a newsletter flag changed, another member invited) and the
 * frozen replay returns the new table, again with no model call. A renamed column is no data
 * change: that replay fails WF_LOCK_STALE, with no model call and no old answer.
 *
 * Each run is `wf run` in a child process, on a copy of the example (workflow and app) in a
 * scratch folder, so the lock it writes and the data it edits are the copy's.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { askReply, pageOf, startModelDouble, type ModelDouble, type RecordedRequest, type Reply } from "../../packages/server/tests/helpers/model-double.js";
import { EXAMPLE_TIMEOUT_MS, ROOT, describeRun, runExample } from "../_shared/run-example.js";
import { Member } from "./workflow.js";

type Member = z.infer<typeof Member>;

/** The members table at the ASK, with the app's own data (`app/team.js`) and the default invitee. */
const RECORDED: Member[] = [
  { Name: "Ada Lovelace", Role: "Owner", Newsletter: "yes", Badge: "—" },
  { Name: "Grace Hopper", Role: "Editor", Newsletter: "yes", Badge: "badge.txt" },
];

/** The app's data after it changed: Ada Lovelace is an Admin now and left the newsletter. */
const CHANGED_TEAM = `window.TEAM = [
  { name: "Ada Lovelace", role: "Admin", newsletter: false, badge: null },
  { name: "Alan Turing", role: "Editor", newsletter: false, badge: null },
];
`;

/**
 * A model that reads the members table as a careful one would: the rows it sees, each value with
 * the cell it came from. Any other request is a surprise to the test (a 500 the run would show).
 */
function answer(request: RecordedRequest): Reply {
  if (!pageOf(request).includes("Question: the members table")) return { status: 500, message: "this test expects only the members table to reach the model" };
  // One quote per row, as the view shows it: a cell of "—" alone is no quote the server takes
  // (it holds no letter or digit), so the row's line grounds all four values.
  const quotes = RECORDED.map((m, i) => ({ path: `/value/${i}`, quote: [m.Name, m.Role, m.Newsletter, m.Badge].join(" | ") }));
  return { content: askReply(request, { value: RECORDED }, quotes), usage: { prompt_tokens: 900, completion_tokens: 80 } };
}

describe("examples/team-admin with its read recorded in the lock", { timeout: EXAMPLE_TIMEOUT_MS * 3 }, () => {
  let model: ModelDouble;
  let dir: string;
  let flow: string;
  let lockPath: string;
  let appUrl: string;
  beforeAll(async () => {
    model = await startModelDouble(answer);
    // Inside examples/, so the copy's `@wf/core` and `zod` resolve as the example's do.
    await mkdir(join(ROOT, "examples", ".tmp"), { recursive: true });
    dir = await mkdtemp(join(ROOT, "examples", ".tmp", "team-admin-"));
    await cp(join(ROOT, "examples", "team-admin", "app"), join(dir, "app"), { recursive: true });
    await cp(join(ROOT, "examples", "team-admin", "workflow.ts"), join(dir, "workflow.ts"));
    flow = join(dir, "workflow.ts");
    lockPath = join(dir, "workflow.wf.lock.json");
    appUrl = pathToFileURL(join(dir, "app", "index.html")).href;
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // The model is configured in every run: a frozen run must not call it, not merely lack it.
  const run = (lock: "write" | "frozen", params: Record<string, string> = {}) =>
    runExample(flow, { url: appUrl, ...params }, { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-team-admin", WF_MODEL: "test-model", CI: "" }, undefined, ["--lock", lock]);
  const members = (record: unknown) => z.object({ output: z.object({ members: z.array(Member) }) }).parse(record).output.members;
  type Step = { type: string; instruction: string; status: string; interpreter?: string; replayed?: boolean };
  const stepsOf = (record: unknown) => (record as { steps: Step[] }).steps;

  let recorded: Member[];

  it("--lock write: the model answers the members table once (the acts and checks are grammar forms), and the lock keeps its verified recipe", async () => {
    const result = await run("write");
    expect(result.exitCode, describeRun(result)).toBe(0);
    recorded = members(result.record);
    expect(recorded).toEqual(RECORDED);
    expect(model.requests).toHaveLength(1);
    const steps = stepsOf(result.record);
    expect(steps.filter((s) => s.interpreter === "model").map((s) => s.instruction)).toEqual(["the members table"]);
    expect(steps.filter((s) => s.type === "CHECK").length).toBeGreaterThanOrEqual(14);
    expect(steps.every((s) => s.status === "succeeded")).toBe(true);

    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0]).toMatchObject({
      instruction: "the members table",
      read: { schemaHash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), recipe: { parts: [{ path: "/value", columns: expect.any(Object) }] } },
      model: "test-model",
    });
    expect(lock.entries[0].read.noRecipe).toBeUndefined();
    // The secret password never reaches the lock.
    expect(JSON.stringify(lock)).not.toContain("correct horse");
    // The CLI README's sample read entry is this one: it must stay what a recording writes.
    const sample = readmeSample(await readFile(join(ROOT, "packages", "cli", "README.md"), "utf8"));
    expect(sample).toMatchObject({ callSite: lock.entries[0].callSite, instruction: lock.entries[0].instruction, read: lock.entries[0].read, model: "test-model" });
  });

  it("--lock frozen with the model configured: 0 model calls, the read replayed from its recipe, the same answer, the lock unchanged", async () => {
    const before = await readFile(lockPath, "utf8");
    const result = await run("frozen");
    expect(result.exitCode, describeRun(result)).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(members(result.record)).toEqual(recorded);
    const steps = stepsOf(result.record);
    expect(steps.find((s) => s.type === "ASK")).toMatchObject({ instruction: "the members table", status: "succeeded", replayed: true });
    // The checks are grammar forms: none needs a model (the example has no check a model decides).
    expect(steps.filter((s) => s.type === "CHECK").every((s) => s.interpreter === "grammar")).toBe(true);
    expect(steps.some((s) => s.interpreter === "model")).toBe(false);
    expect(steps.every((s) => s.status === "succeeded")).toBe(true);
    expect((result.record as { usage?: unknown }).usage).toBeUndefined();
    expect(await readFile(lockPath, "utf8")).toBe(before);
  });

  it("after the app's data changed (a role and a flag changed, another member invited), the frozen replay returns the new table, with 0 model calls", async () => {
    await writeFile(join(dir, "app", "team.js"), CHANGED_TEAM);
    const result = await run("frozen", { invitee: "Katherine Johnson" });
    expect(result.exitCode, describeRun(result)).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(members(result.record)).toEqual([
      { Name: "Ada Lovelace", Role: "Admin", Newsletter: "no", Badge: "—" },
      { Name: "Katherine Johnson", Role: "Editor", Newsletter: "yes", Badge: "badge.txt" },
    ]);
    expect(stepsOf(result.record).find((s) => s.type === "ASK")).toMatchObject({ status: "succeeded", replayed: true });
    expect((result.record as { usage?: unknown }).usage).toBeUndefined();
  });

  it("after the table's structure changed (its Role column renamed), the frozen replay fails WF_LOCK_STALE naming the entry, never the old answer, with 0 model calls", async () => {
    const page = join(dir, "app", "index.html");
    const html = await readFile(page, "utf8");
    expect(html).toContain("<th>Role</th>");
    await writeFile(page, html.replace("<th>Role</th>", "<th>Access</th>"));
    const result = await run("frozen");
    expect(result.exitCode, describeRun(result)).toBe(1);
    expect(model.requests).toHaveLength(0);
    const ask = stepsOf(result.record).find((s) => s.type === "ASK") as Step & { error?: { code: string; message: string } };
    expect(ask).toMatchObject({ status: "failed", error: { code: "WF_LOCK_STALE" } });
    expect(ask.error!.message).toMatch(/"the members table" at workflow\.ts:\d+:\d+ .*is stale: .*a table with the headers/);
    expect((result.record as { output?: unknown }).output).toBeUndefined();
  });
});

/** The first JSON block of the README's "The action lock" section that holds a `read`. */
function readmeSample(readme: string): unknown {
  const start = readme.indexOf("### The action lock");
  const end = readme.indexOf("\n### ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  for (const [, block] of section.matchAll(/```json\n([\s\S]*?)```/g)) {
    const entry = JSON.parse(block!) as { read?: unknown };
    if (entry.read) return entry;
  }
  throw new Error('packages/cli/README.md has no sample read entry in "The action lock"');
}
