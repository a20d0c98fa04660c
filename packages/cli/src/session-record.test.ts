import { describe, expect, it } from "vitest";
import type { SessionStatus, StepStatus } from "@wf/core/protocol";
import { createSessionEventStream, sessionToRunRecord } from "./session-record.js";

const T0 = "2026-11-23T17:00:00.000Z";

function step(index: number, status: StepStatus["status"], extra: Partial<StepStatus> = {}): StepStatus {
  return {
    stepId: `s${index}`,
    jobTaskId: "j",
    sessionId: "x",
    index,
    type: "ACT",
    step: `go to page-${index}`,
    status,
    createdAt: T0,
    startedAt: status === "QUEUED" ? null : T0,
    finishedAt: status === "SUCCEEDED" || status === "FAILED" ? "2026-11-23T17:00:01.000Z" : null,
    durationMs: status === "SUCCEEDED" || status === "FAILED" ? 1000 : null,
    error: null,
    pageUrl: null,
    ...extra,
  };
}

function session(steps: StepStatus[], extra: Partial<SessionStatus> = {}): SessionStatus {
  return {
    sessionId: "x",
    kind: "STORED",
    workflowId: "walk",
    status: "RUNNING",
    version: 1,
    createdAt: T0,
    updatedAt: T0,
    finishedAt: null,
    currentUrl: null,
    steps,
    error: null,
    viewUrl: "http://h/view/x",
    ...extra,
  };
}

describe("createSessionEventStream", () => {
  it("emits each event once, logs between the steps they were logged between, then run-finished", () => {
    const stream = createSessionEventStream("http://h/preview/x");
    const log = (message: string, afterSteps: number) => ({ at: T0, message, afterSteps });
    const first = stream.next(session([step(0, "RUNNING")], { logs: [log("before any step", 0)] }));
    expect(first.map((e) => e.type)).toEqual(["run-started", "log", "step-started"]);
    const second = stream.next(session([step(0, "SUCCEEDED"), step(1, "RUNNING")], { logs: [log("before any step", 0), log("after one", 1)] }));
    expect(second.map((e) => (e.type === "log" ? `log ${e.message}` : e.type))).toEqual(["step-finished", "log after one", "step-started"]);
    const end = stream.next(
      session([step(0, "SUCCEEDED"), step(1, "SUCCEEDED", { type: "ASK", result: { value: "Page 2" } })], {
        status: "SUCCEEDED",
        finishedAt: "2026-11-23T17:00:03.000Z",
        output: { ok: true },
        logs: [log("before any step", 0), log("after one", 1), log("at the end", 2)],
      }),
    );
    expect(end.map((e) => (e.type === "log" ? `log ${e.message}` : e.type))).toEqual(["step-finished", "log at the end", "run-finished"]);
    expect(stream.next(session([], { status: "SUCCEEDED" }))).toEqual([]);
    const finished = end.at(-1);
    expect(finished?.type === "run-finished" && finished.record).toMatchObject({
      version: 1,
      workflow: "walk",
      status: "succeeded",
      output: { ok: true },
      debuggerUrl: "http://h/preview/x",
      durationMs: 3000,
      steps: [
        { index: 1, type: "ACT", instruction: "go to page-0", status: "succeeded", attempts: 1 },
        { index: 2, type: "ASK", result: { value: "Page 2" }, answer: "Page 2" },
      ],
    });
  });
});

describe("sessionToRunRecord", () => {
  it("keeps the failed step's index (from 1) and call site from the run's error, and only finished steps", () => {
    const failed = session([step(0, "FAILED", { error: { code: "WF_NAVIGATION_FAILED", message: "Could not open" } })], {
      status: "FAILED",
      finishedAt: "2026-11-23T17:00:01.500Z",
      error: { code: "WF_STEP_FAILED", message: "Step 1 ACT failed", details: { stepIndex: 1, callSite: "/w/walk.ts:9:13" } },
    });
    const record = sessionToRunRecord(failed);
    expect(record).toMatchObject({ status: "failed", params: {}, error: { code: "WF_STEP_FAILED", stepIndex: 1, callSite: "/w/walk.ts:9:13" }, debuggerUrl: "http://h/view/x" });
    expect(record.steps).toEqual([expect.objectContaining({ index: 1, status: "failed", callSite: "/w/walk.ts:9:13", error: { code: "WF_NAVIGATION_FAILED", message: "Could not open" } })]);
    expect(sessionToRunRecord(session([step(0, "RUNNING")], { status: "CANCELLED", error: { code: "WF_CANCELLED", message: "cancelled" } }))).toMatchObject({ status: "cancelled", steps: [] });
  });
});
