import { describe, expect, it } from "vitest";
import { EXAMPLE_TIMEOUT_MS, describeRun, runExample } from "../_shared/run-example.js";
import { GlossaryOutput } from "./workflow.js";

describe("examples/pg-glossary", () => {
  it("reads the glossary's definition list for the terms given as a param", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample("examples/pg-glossary/workflow.ts", { terms: "acid, Tuple, WAL, no-such-term" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const output = GlossaryOutput.parse(run.record?.output);

    expect(output.heading).toBe("Appendix M. Glossary");
    expect(Object.keys(output.found)).toEqual(["acid", "Tuple", "WAL"]);
    expect(output.found.acid).toBe(
      "Atomicity, Consistency, Isolation, and Durability. This set of properties of database transactions is intended to " +
        "guarantee validity in concurrent operation and even in event of errors, power failures, etc.",
    );
    expect(output.found.Tuple).toMatch(/^A collection of attributes in a fixed order\./);
    expect(output.found.WAL).toBe("See Write-ahead log.");
    expect(output.missing).toEqual(["no-such-term"]);
  });
});
