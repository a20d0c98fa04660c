import { describe, expect, it } from "vitest";
import { describeRun, runExample } from "../_shared/run-example.js";
import workflowValue from "./workflow.js";

describe("examples/pg-glossary", () => {
  it("reads the glossary's definition list and returns the terms asked for", async () => {
    const run = await runExample("examples/pg-glossary/workflow.ts", { terms: "acid, Tuple, no-such-term" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const output = workflowValue.output!.parse(run.record?.output) as {
      title: string;
      entryCount: number;
      found: Array<{ term: string; definition: string }>;
      missing: string[];
    };

    expect(output.title).toBe("Appendix M. Glossary");
    // The glossary of PostgreSQL 15 defines well over a hundred terms.
    expect(output.entryCount).toBeGreaterThan(100);
    expect(output.found.map((e) => e.term)).toEqual(["ACID", "Tuple"]);
    expect(output.found[0]!.definition).toMatch(/Atomicity,\s+Consistency,\s+Isolation, and\s+Durability/);
    expect(output.found[1]!.definition).toMatch(/^A collection of attributes\s+in a fixed order/);
    expect(output.missing).toEqual(["no-such-term"]);
  });
});
