/**
 * The HTTP edge of the domain errors: the session wing throws its own errors (`sessions/errors.ts`),
 * which know nothing of HTTP; {@link problemFor} turns each into the {@link HttpProblem} answered
 * for it (status from its `code`, `Retry-After`, field errors, extra members of the body). The
 * app's error handler calls it on whatever a route threw.
 */
import { HttpProblem } from "../errors.js";
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

/**
 * The problem a domain error is answered with: `WF_SESSION_NOT_FOUND` / `WF_STEP_NOT_FOUND` 404;
 * `WF_SESSION_CLOSED` / `WF_SESSION_FINISHED` 409 with `sessionStatus`; `WF_TOO_MANY_SESSIONS` 429
 * and `WF_BROWSER_UNAVAILABLE` 503 with `retryAfterMs` (and `Retry-After`);
 * `WF_IDEMPOTENCY_KEY_REUSED` 422 with the first `stepId`; `WF_VALIDATION_FAILED` 422 with `errors`.
 * @returns the problem, or `error` itself when it is no domain error (an {@link HttpProblem}
 *   already, or an unknown error answered 500).
 */
export function problemFor(error: unknown): unknown {
  const cause = { cause: error };
  if (error instanceof SessionNotFoundError || error instanceof StepNotFoundError) return new HttpProblem(error.code, error.message, cause);
  if (error instanceof SessionClosedError || error instanceof SessionFinishedError) {
    return new HttpProblem(error.code, error.message, { extra: { sessionStatus: error.sessionStatus }, ...cause });
  }
  if (error instanceof TooManySessionsError || error instanceof BrowserUnavailableError) {
    return new HttpProblem(error.code, error.message, { retryAfterMs: error.retryAfterMs, ...cause });
  }
  if (error instanceof IdempotencyKeyReusedError) return new HttpProblem("WF_IDEMPOTENCY_KEY_REUSED", error.message, { extra: { stepId: error.stepId }, ...cause });
  if (error instanceof StepRequestInvalidError) return new HttpProblem("WF_VALIDATION_FAILED", error.message, { errors: error.fieldErrors, ...cause });
  return error;
}
