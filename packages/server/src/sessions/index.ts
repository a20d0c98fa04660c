/**
 * The session wing of the server: the public face of `sessions/` (the registry and step queue,
 * the step runner, the change feed and long-polls, recovery, the browser side; see
 * `sessions/manager.ts` for the map). The rest of the server imports the wing from here.
 */
export { SessionManager } from "./manager.js";
export type { CreateSessionOptions, StepInput, SubmitStepOptions, SessionChange, SubmittedStep, SessionManagerDeps, SessionRecord, StepRecord } from "./types.js";
export {
  BrowserUnavailableError,
  IdempotencyKeyReusedError,
  SessionClosedError,
  SessionFinishedError,
  SessionNotFoundError,
  StepNotFoundError,
  StepRequestInvalidError,
  TooManySessionsError,
} from "./errors.js";
export { toWireError } from "./step-runner.js";
