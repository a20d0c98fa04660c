import { describe, expect, it } from "vitest";
import { EXAMPLE_TIMEOUT_MS, describeRun, runExample } from "../_shared/run-example.js";
import { LimitsOutput } from "./workflow.js";

describe("examples/pg-limits", () => {
  it("follows the docs' own link from the home page to the limits and reads them, numbers parsed", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample("examples/pg-limits/workflow.ts");
    expect(run.exitCode, describeRun(run)).toBe(0);
    const output = LimitsOutput.parse(run.record?.output);

    expect(output.url).toBe("file:///usr/share/doc/postgresql-doc-15/html/limits.html");
    expect(output.heading).toBe("Appendix K. PostgreSQL Limits");
    expect(output.rows).toHaveLength(15);
    expect(output.rows.find((r) => r.item === "relation size")).toEqual({
      item: "relation size",
      upperLimit: "32 TB",
      comment: "with the default BLCKSZ of 8192 bytes",
    });
    expect(output.limits).toEqual({
      "number of databases": 4294950911,
      "relations per database": 1431650303,
      "columns per table": 1600,
      "CHECK constraints per table": 32767,
      "columns in a result set": 1664,
      "columns per index": 32,
      "partition keys": 32,
      "function arguments": 100,
      "query parameters": 65535,
    });
    // The click is a step of its own, recorded with what it clicked.
    expect(run.record?.steps[1]).toMatchObject({ type: "ACT", instruction: 'click the link "K. PostgreSQL Limits"', status: "succeeded" });
  });
});
