import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EXAMPLE_TIMEOUT_MS, describeRun, runExample } from "../_shared/run-example.js";
import { Member } from "./workflow.js";

describe("examples/team-admin", () => {
  it("signs in, invites a member with a select, a checkbox and an upload, removes one through a dialog, every check holding with no model", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample("examples/team-admin/workflow.ts", {}, { WF_MODEL: "" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const { members } = z.object({ members: z.array(Member) }).parse(run.record?.output);
    expect(members).toEqual([
      { Name: "Ada Lovelace", Role: "Owner", Newsletter: "yes", Badge: "—" },
      { Name: "Grace Hopper", Role: "Editor", Newsletter: "yes", Badge: "badge.txt" },
    ]);
    const checks = run.record!.steps.filter((s) => s.type === "CHECK");
    expect(checks.length).toBeGreaterThanOrEqual(14);
    expect(checks.every((s) => s.status === "succeeded")).toBe(true);
    // The secret password never reaches the record.
    expect(JSON.stringify(run.record)).not.toContain("correct horse");
  });

  it("fails at the check that does not hold, with WF_CHECK_FAILED and what the page showed", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample("examples/team-admin/workflow.ts", { password: "not it" }, { WF_MODEL: "" });
    expect(run.exitCode, describeRun(run)).toBe(1);
    expect(run.record?.error?.message).toContain('the page does not show "Signed in as admin@example.com"');
    expect(run.record?.error?.message).toContain("[WF_CHECK_FAILED]");
  });
});
