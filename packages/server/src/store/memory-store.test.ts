import { describe, expect, it } from "vitest";
import { MemoryStore } from "./memory-store.js";
import type { SessionRecord, StepRecord } from "./store.js";

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

function session(sessionId: string, finishedMinutesAgo: number | null): SessionRecord {
  return {
    sessionId,
    kind: "STEP",
    workflowId: null,
    token: "t",
    jobTaskId: "j",
    status: finishedMinutesAgo === null ? "RUNNING" : "SUCCEEDED",
    version: 1,
    createdAt: at(100),
    updatedAt: at(100),
    finishedAt: finishedMinutesAgo === null ? null : at(finishedMinutesAgo),
    currentUrl: null,
    error: null,
    proxied: false,
    stepIds: [],
  };
}

function step(stepId: string, sessionId: string, index: number, idempotencyKey: string | null = null): StepRecord {
  return {
    stepId,
    jobTaskId: "j",
    sessionId,
    index,
    type: "ACT",
    step: `click "Button ${index}"`,
    status: "QUEUED",
    createdAt: at(100),
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    error: null,
    pageUrl: null,
    request: {},
    idempotencyKey,
    requestHash: "",
    screenshot: false,
  };
}

describe("MemoryStore", () => {
  it("keeps copies: a caller's later change to an object does not reach the stored record", async () => {
    const store = new MemoryStore();
    const s = session("s1", null);
    await store.createSession(s);
    const first = step("a", "s1", 2);
    await store.createStep(first);
    await store.createStep(step("b", "s1", 1));
    s.status = "FAILED";
    first.status = "SUCCEEDED";
    const stored = await store.getSession("s1");
    expect(stored?.session.status).toBe("RUNNING");
    expect(stored?.steps.map((x) => [x.stepId, x.status])).toEqual([
      ["b", "QUEUED"],
      ["a", "QUEUED"],
    ]);
    stored!.steps[0]!.status = "FAILED";
    expect((await store.getStep("b"))?.status).toBe("QUEUED");
    await store.saveStep({ ...first, status: "SUCCEEDED" }, { ...s, status: "SUCCEEDED" });
    expect((await store.getStep("a"))?.status).toBe("SUCCEEDED");
    expect((await store.getSession("s1"))?.session.status).toBe("SUCCEEDED");
    expect(await store.getSession("nope")).toBeUndefined();
  });

  it("finds a step by its idempotency key in its own session only, and refuses the key twice", async () => {
    const store = new MemoryStore();
    await store.createStep(step("a", "s1", 1, "key-1"));
    expect((await store.findStepByIdempotencyKey("s1", "key-1"))?.stepId).toBe("a");
    expect(await store.findStepByIdempotencyKey("s2", "key-1")).toBeUndefined();
    await expect(store.createStep(step("b", "s1", 2, "key-1"))).rejects.toThrow(/already has the idempotency key key-1/);
  });

  it("returns a session's logs in order, and the sweep deletes finished sessions older than the cut with their steps and logs", async () => {
    const store = new MemoryStore();
    await store.createSession(session("old", 60 * 48));
    await store.createSession(session("recent", 5));
    await store.createSession(session("open", null));
    await store.createStep(step("o1", "old", 1));
    await store.createStep(step("r1", "recent", 1));
    await store.appendLog("old", "stored-log", { message: "one" });
    await store.appendLog("old", "stored-log", { message: "two" });
    await store.appendLog("old", "other", { message: "x" });
    expect((await store.getLogs("old", "stored-log")).map((r) => r.message)).toEqual(["one", "two"]);
    const swept = await store.sweep(new Date(Date.now() - 24 * 60 * 60_000));
    expect(swept).toEqual({ sessions: 1, steps: 1, stepIds: ["o1"], sessionIds: ["old"] });
    expect(await store.getSession("old")).toBeUndefined();
    expect(await store.getLogs("old", "stored-log")).toEqual([]);
    expect(await store.getSession("recent")).toBeDefined();
    expect(await store.getSession("open")).toBeDefined();
  });
});
