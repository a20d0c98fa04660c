import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeRun, runExample } from "../_shared/run-example.js";
import { LimitRow, Limits } from "./workflow.js";

describe("examples/pg-limits", () => {
  it("follows the docs' own link from the home page to the limits and reads them as numbers", async () => {
    const run = await runExample("examples/pg-limits/workflow.ts");
    expect(run.exitCode, describeRun(run)).toBe(0);
    const output = z
      .object({ heading: z.string(), url: z.string(), limits: Limits, rows: z.array(LimitRow) })
      .parse(run.record?.output);

    expect(output.url).toBe("file:///usr/share/doc/postgresql-doc-15/html/limits.html");
    expect(output.heading).toBe("Appendix K. PostgreSQL Limits");
    expect(output.limits).toEqual({ columnsPerTable: 1600, columnsInAResultSet: 1664, functionArguments: 100, queryParameters: 65535 });
    expect(output.rows.find((r) => r.item === "relation size")).toEqual({
      item: "relation size",
      upperLimit: "32 TB",
      comment: "with the default BLCKSZ of 8192 bytes",
    });
    expect(output.rows.find((r) => r.item === "identifier length")?.upperLimit).toBe("63 bytes");
    expect(run.record?.steps[1]).toMatchObject({ type: "ACT", status: "succeeded" });
  });
});
