import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_TIMEOUT_MS, ROOT, describeRun, runExample } from "../_shared/run-example.js";

const FILE = "examples/team-admin-free-form/workflow.ts";
const LOCK = join(ROOT, "examples/team-admin-free-form/workflow.wf.lock.json");
const NO_MODEL = { WF_MODEL: "" };

describe("examples/team-admin-free-form", () => {
  it("replays its committed lock frozen, with no model, and leaves the lock as it was", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const before = await readFile(LOCK, "utf8");
    const run = await runExample(FILE, {}, NO_MODEL, undefined, ["--lock", "frozen"]);
    expect(run.exitCode, describeRun(run)).toBe(0);
    const acts = run.record!.steps.filter((s) => s.type === "ACT") as Array<{ instruction: string; replayed?: boolean }>;
    expect(acts.map((s) => [s.instruction, s.replayed === true])).toEqual([
      [expect.stringMatching(/^go to file:/), false],
      ["sign in as admin@example.com with the password [secret]", true],
      ["remove Alan Turing from the team, confirming it", true],
    ]);
    expect(JSON.stringify(run.record)).not.toContain("correct horse");
    expect(await readFile(LOCK, "utf8")).toBe(before);
  });

  it("without its lock, the grammar alone cannot carry the free-form steps out", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample(FILE, {}, NO_MODEL, undefined, ["--lock", "off"]);
    expect(run.exitCode, describeRun(run)).toBe(1);
    expect(run.record?.error?.message).toContain("WF_INSTRUCTION_NOT_UNDERSTOOD");
    expect(run.record?.steps.find((s) => s.status === "failed")?.instruction).toBe("sign in as admin@example.com with the password [secret]");
  });
});
