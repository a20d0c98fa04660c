import { describe, expect, it } from "vitest";
import { HttpProblem } from "../errors.js";
import { toProblem } from "./error-handler.js";
import {
  BrowserUnavailableError,
  IdempotencyKeyReusedError,
  SessionClosedError,
  SessionFinishedError,
  SessionNotFoundError,
  StepNotFoundError,
  StepRequestInvalidError,
  TooManySessionsError,
} from "../sessions/index.js";
import { problemFor } from "./problems.js";

/** The problem details (and Retry-After in ms) a thrown error is answered with, as the app's error handler sends them. */
function answer(error: unknown) {
  return toProblem(problemFor(error), "/apis/x");
}

describe("problemFor: the session wing's errors answer as the problems they stand for", () => {
  it("not found: 404, no extra members", () => {
    expect(answer(new SessionNotFoundError("ab12"))).toEqual({
      body: {
        type: "about:blank",
        title: "Session not found",
        status: 404,
        detail: "No session has the id ab12. Use the workflowId (or sessionId) that creating the session returned.",
        code: "WF_SESSION_NOT_FOUND",
        instance: "/apis/x",
      },
    });
    expect(answer(new StepNotFoundError("cd34")).body).toMatchObject({ status: 404, code: "WF_STEP_NOT_FOUND", detail: "No step has the id cd34. Use the stepId a step run returned." });
  });

  it("closed and finished: 409 with the session's state", () => {
    expect(answer(new SessionClosedError("ab12", "CANCELLED")).body).toEqual({
      type: "about:blank",
      title: "Session closed",
      status: 409,
      detail: "Session ab12 is cancelled; it takes no more steps. Create a new session.",
      code: "WF_SESSION_CLOSED",
      instance: "/apis/x",
      sessionStatus: "CANCELLED",
    });
    expect(answer(new SessionFinishedError("ab12", "SUCCEEDED")).body).toMatchObject({ status: 409, code: "WF_SESSION_FINISHED", detail: "Session ab12 already ended (SUCCEEDED).", sessionStatus: "SUCCEEDED" });
  });

  it("too many sessions and an unavailable browser: 429 / 503 with retryAfterMs, which sets Retry-After", () => {
    expect(answer(new TooManySessionsError(3, 2_000))).toEqual({
      body: {
        type: "about:blank",
        title: "Too many sessions",
        status: 429,
        detail: "3 sessions are open, the most this server allows. Close one, or retry later.",
        code: "WF_TOO_MANY_SESSIONS",
        instance: "/apis/x",
        retryAfterMs: 2_000,
      },
      retryAfterMs: 2_000,
    });
    expect(answer(new BrowserUnavailableError("The browser did not open a page.", 5_000))).toMatchObject({ body: { status: 503, code: "WF_BROWSER_UNAVAILABLE", retryAfterMs: 5_000 }, retryAfterMs: 5_000 });
  });

  it("a reused idempotency key: 422 naming the first step; contradicting fields: 422 with JSON Pointers", () => {
    expect(answer(new IdempotencyKeyReusedError("k1", "st9")).body).toMatchObject({
      status: 422,
      code: "WF_IDEMPOTENCY_KEY_REUSED",
      detail: 'The idempotency key "k1" was already used in this session for a different step (st9). Use a new key for a new step.',
      stepId: "st9",
    });
    const errors = [{ path: "/schema", message: "must be empty or absent for an ACT step" }];
    expect(answer(new StepRequestInvalidError("An ACT step takes no schema.", errors)).body).toMatchObject({ status: 422, code: "WF_VALIDATION_FAILED", errors });
  });

  it("anything else passes through: an HttpProblem as it is, an unknown error as a 500", () => {
    const problem = new HttpProblem("WF_STORAGE_UNAVAILABLE", "full disk", { retryAfterMs: 1_000 });
    expect(problemFor(problem)).toBe(problem);
    expect(answer(new Error("boom")).body).toMatchObject({ status: 500, code: "WF_INTERNAL" });
  });
});
