import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EXAMPLE_TIMEOUT_MS, describeRun, runExample } from "../_shared/run-example.js";
import { NumericType } from "./workflow.js";

const FILE = "examples/pg-numeric-types/workflow.ts";

describe("examples/pg-numeric-types", () => {
  it("reads Table 8.2 of the installed PostgreSQL docs into typed rows", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample(FILE);
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.record?.status).toBe("succeeded");
    const rows = z.array(NumericType).parse(run.record?.output);

    expect(rows.map((r) => r.name)).toEqual([
      "smallint",
      "integer",
      "bigint",
      "decimal",
      "numeric",
      "real",
      "double precision",
      "smallserial",
      "serial",
      "bigserial",
    ]);
    expect(rows[0]).toEqual({ name: "smallint", storageSize: "2 bytes", description: "small-range integer", range: "-32768 to +32767" });
    expect(rows.find((r) => r.name === "bigint")).toEqual({
      name: "bigint",
      storageSize: "8 bytes",
      description: "large-range integer",
      range: "-9223372036854775808 to +9223372036854775807",
    });
    expect(rows.find((r) => r.name === "numeric")?.storageSize).toBe("variable");
    // Two steps: the go to, then the ASK whose answer is the output.
    expect(run.record?.steps.map((s) => s.type)).toEqual(["ACT", "ASK"]);
  });

  it("says which package to install when the docs are not on the machine, without a stack trace", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample(FILE, { pageUrl: "file:///nonexistent/postgresql-doc-15/html/datatype-numeric.html" });
    expect(run.exitCode, describeRun(run)).toBe(1);
    expect(run.record?.status).toBe("failed");
    expect(run.record?.error?.code).toBe("WF_EXAMPLE_PAGE_MISSING");
    expect(run.record?.error?.message).toContain("apt-get install postgresql-doc-15");
    expect(run.stdout + run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(run.record?.steps).toEqual([]);
  });

  it("says how to install Chromium when there is none, without a stack trace", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const run = await runExample(FILE, {}, { WF_CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(run.exitCode, describeRun(run)).toBe(2);
    expect(run.stderr).toContain("No Chromium browser found");
    expect(run.stderr).toContain("apt-get install chromium");
    expect(run.stdout + run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  });
});
