/**
 * The errors of the session wing: what its callers did wrong or what it cannot do now, each a
 * {@link WfError} with its stable `WF_…` code and the data the HTTP edge needs (a retry delay, the
 * session's state, the step an idempotency key already names). None of them knows HTTP: the edge
 * turns them into problem details (`http/problems.ts`, `problemFor`); in-process callers (stored
 * runs) read their `code`.
 */
import { WfError } from "@wf/core";
import type { FieldError, SessionState } from "@wf/core/protocol";

/** No session has this id. Code `WF_SESSION_NOT_FOUND`. */
export class SessionNotFoundError extends WfError {
  override name = "SessionNotFoundError";
  declare readonly code: "WF_SESSION_NOT_FOUND";
  constructor(readonly sessionId: string) {
    super("WF_SESSION_NOT_FOUND", `No session has the id ${sessionId}. Use the workflowId (or sessionId) that creating the session returned.`);
  }
}

/** The session ended, so it takes no more steps. Code `WF_SESSION_CLOSED`. */
export class SessionClosedError extends WfError {
  override name = "SessionClosedError";
  declare readonly code: "WF_SESSION_CLOSED";
  constructor(
    readonly sessionId: string,
    /** The state it ended in. */
    readonly sessionStatus: SessionState,
  ) {
    super("WF_SESSION_CLOSED", `Session ${sessionId} is ${sessionStatus.toLowerCase()}; it takes no more steps. Create a new session.`);
  }
}

/** The session already ended, so it can't be ended again. Code `WF_SESSION_FINISHED`. */
export class SessionFinishedError extends WfError {
  override name = "SessionFinishedError";
  declare readonly code: "WF_SESSION_FINISHED";
  constructor(
    readonly sessionId: string,
    /** The state it ended in. */
    readonly sessionStatus: SessionState,
  ) {
    super("WF_SESSION_FINISHED", `Session ${sessionId} already ended (${sessionStatus}).`);
  }
}

/** `maxSessions` sessions are open. Code `WF_TOO_MANY_SESSIONS`. */
export class TooManySessionsError extends WfError {
  override name = "TooManySessionsError";
  declare readonly code: "WF_TOO_MANY_SESSIONS";
  constructor(
    readonly maxSessions: number,
    /** How long the client should wait before it retries, in ms. */
    readonly retryAfterMs: number,
  ) {
    super("WF_TOO_MANY_SESSIONS", `${maxSessions} sessions are open, the most this server allows. Close one, or retry later.`);
  }
}

/** The browser can't give a session its context or page now. Code `WF_BROWSER_UNAVAILABLE`. */
export class BrowserUnavailableError extends WfError {
  override name = "BrowserUnavailableError";
  declare readonly code: "WF_BROWSER_UNAVAILABLE";
  constructor(
    message: string,
    /** How long the client should wait before it retries, in ms. */
    readonly retryAfterMs: number,
  ) {
    super("WF_BROWSER_UNAVAILABLE", message);
  }
}

/** No step has this id. Code `WF_STEP_NOT_FOUND`. */
export class StepNotFoundError extends WfError {
  override name = "StepNotFoundError";
  declare readonly code: "WF_STEP_NOT_FOUND";
  constructor(readonly stepId: string) {
    super("WF_STEP_NOT_FOUND", `No step has the id ${stepId}. Use the stepId a step run returned.`);
  }
}

/** An idempotency key came back with a different step request. Code `WF_IDEMPOTENCY_KEY_REUSED`. */
export class IdempotencyKeyReusedError extends WfError {
  override name = "IdempotencyKeyReusedError";
  declare readonly code: "WF_IDEMPOTENCY_KEY_REUSED";
  constructor(
    readonly key: string,
    /** The step the key made first. */
    readonly stepId: string,
  ) {
    super("WF_IDEMPOTENCY_KEY_REUSED", `The idempotency key "${key}" was already used in this session for a different step (${stepId}). Use a new key for a new step.`);
  }
}

/**
 * A step request whose fields contradict each other (an ACT with a schema, a check with a schema,
 * a replayed ASK). Code `WF_VALIDATION_FAILED`.
 */
export class StepRequestInvalidError extends WfError {
  override name = "StepRequestInvalidError";
  declare readonly code: "WF_VALIDATION_FAILED";
  constructor(
    message: string,
    /** Each bad field: a JSON Pointer into the request and what is wrong with it. */
    readonly fieldErrors: FieldError[],
  ) {
    super("WF_VALIDATION_FAILED", message);
  }
}
