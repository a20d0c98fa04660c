import { describe, expect, it } from "vitest";
import { OutputValidationError, StepFailedError } from "@wf/core";
import { toJsonValue, toWireError } from "./runs.js";

describe("toJsonValue", () => {
  it("is what the store will read back", () => {
    expect(toJsonValue(undefined)).toBeNull();
    expect(toJsonValue({ at: new Date("2026-01-02T03:04:05.000Z"), skip: undefined, n: 1 })).toEqual({ at: "2026-01-02T03:04:05.000Z", n: 1 });
  });

  it("refuses an output that cannot be JSON", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toJsonValue({ big: 1n })).toThrow(expect.objectContaining({ code: "WF_OUTPUT_INVALID" }));
    expect(() => toJsonValue(cycle)).toThrow(expect.objectContaining({ code: "WF_OUTPUT_INVALID" }));
  });
});

describe("toWireError", () => {
  it("keeps a failed step's code, message and where it happened", () => {
    const error = new StepFailedError({ index: 2, type: "ACT", instruction: 'click "Go"', stepId: "s1", serviceCode: "WF_ELEMENT_NOT_FOUND", serviceMessage: "no element", callSite: "flow.ts:3:9" });
    expect(toWireError(error)).toEqual({
      code: "WF_STEP_FAILED",
      message: error.message,
      details: { stepIndex: 2, type: "ACT", instruction: 'click "Go"', stepId: "s1", serviceCode: "WF_ELEMENT_NOT_FOUND", callSite: "flow.ts:3:9" },
    });
  });

  it("carries the issues of an output that does not match, and names anything else a workflow error", () => {
    const invalid = toWireError(new OutputValidationError("w", [{ path: ["title"], message: "expected string" }]));
    expect(invalid).toMatchObject({ code: "WF_OUTPUT_INVALID", details: { issues: [{ path: ["title"], message: "expected string" }] } });
    expect(toWireError(new TypeError("x is undefined"))).toEqual({ code: "WF_WORKFLOW_ERROR", message: "The workflow threw TypeError: x is undefined" });
    expect(toWireError("plain")).toEqual({ code: "WF_WORKFLOW_ERROR", message: "The workflow threw plain" });
  });
});
