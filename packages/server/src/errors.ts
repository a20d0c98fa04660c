/**
 * Errors of `@wf/server`. Every one extends {@link WfError} from `@wf/core` with a stable `code`.
 * {@link HttpProblem} carries an HTTP status and becomes an RFC 9457 problem details answer; the
 * other errors are start-up or step errors. The interpreter's own errors live in
 * `interpreter/errors.ts`.
 */
import { WfError } from "@wf/core";
import { PROBLEM_CODES, type FieldError, type ProblemCode } from "@wf/core/protocol";

/**
 * An error answered to the client as `application/problem+json`. `status` comes from
 * {@link PROBLEM_CODES} for the `code`; `errors` lists the field errors of a 422; `retryAfterMs`
 * sets the `Retry-After` header (rounded up to seconds) of a 429 or 503.
 */
export class HttpProblem extends WfError {
  override name = "HttpProblem";
  /** HTTP status of the answer. */
  readonly status: number;
  /** Field errors of a 422 (JSON Pointer paths into the request). */
  readonly errors: FieldError[] | undefined;
  /** How long the client should wait before retrying, in ms (429, 503). */
  readonly retryAfterMs: number | undefined;
  /** Extra members of the problem details body. */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    code: ProblemCode,
    message: string,
    options: { errors?: FieldError[]; retryAfterMs?: number; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.status = PROBLEM_CODES[code];
    this.errors = options.errors;
    this.retryAfterMs = options.retryAfterMs;
    this.extra = options.extra;
  }
}

/** True for an {@link HttpProblem}, including one made by a second copy of this module. */
export function isHttpProblem(error: unknown): error is HttpProblem {
  return error instanceof HttpProblem || (error instanceof Error && error.name === "HttpProblem" && typeof (error as HttpProblem).status === "number");
}

/** No Chromium could be found or launched at start-up. Code `WF_BROWSER_NOT_FOUND`. */
export class BrowserNotFoundError extends WfError {
  override name = "BrowserNotFoundError";
  /** The paths that were tried. */
  readonly tried: readonly string[];

  constructor(tried: readonly string[], detail?: string, options?: { cause?: unknown }) {
    super(
      "WF_BROWSER_NOT_FOUND",
      `No Chromium browser found${detail ? ` (${detail})` : ""}. Tried: ${tried.join(", ") || "(nothing)"}. ` +
        `Install one with \`wf install-browser\` (\`npx wf install-browser\` in a project; it runs \`playwright install chromium\`, else \`apt-get install chromium\` on Debian/Ubuntu), ` +
        `or set WF_CHROMIUM_PATH to its executable, or set WF_BROWSER_ENDPOINT to the CDP address of a browser that runs elsewhere.`,
      options,
    );
    this.tried = tried;
  }
}

/**
 * The data folder is not a valid store: its embedded database is damaged, missing beside wf's
 * other files, or can't be started. Thrown by `openStore` (and so `startServer`) before anything
 * is written into the folder; nothing is initialised over it. Code `WF_STORE_DAMAGED`.
 */
export class StoreDamagedError extends WfError {
  override name = "StoreDamagedError";
  /** The data folder (absolute). */
  readonly dataDir: string;
  /** The database folder inside it (`<dataDir>/db`). */
  readonly databaseDir: string;
  /** What is damaged, in words, e.g. `the table wf_steps (base/5/16384) is shorter than its index says`. */
  readonly damage: string;

  constructor(dataDir: string, databaseDir: string, damage: string, options?: { cause?: unknown }) {
    super(
      "WF_STORE_DAMAGED",
      `The wf data folder ${dataDir} is not a valid store: its database is damaged (${damage}). Nothing was changed in it. ` +
        `To get the records back, stop every server using it and restore a backup: \`wf store restore <backup file> --data-dir ${dataDir} --force\` ` +
        `(the damaged database is moved aside, not deleted). To start with no records, move the folder away (\`mv ${dataDir} ${dataDir}.damaged\`) and start again.`,
      options,
    );
    this.dataDir = dataDir;
    this.databaseDir = databaseDir;
    this.damage = damage;
  }
}

/**
 * Why a step or session failed, as recorded and sent on the wire (`{ code, message, details? }`).
 * Codes raised by the server itself: `WF_STEP_TIMEOUT` (the step's timeout elapsed),
 * `WF_SESSION_CLOSED` (the session closed under a queued or running step),
 * `WF_SESSION_IDLE_TIMEOUT` (the idle timeout closed the session), `WF_SERVER_RESTARTED` (the
 * server stopped while the step ran or the session was open), `WF_BROWSER_CLOSED` (the session's
 * browser context closed on its own: a crash or a lost remote browser), `WF_PAGE_CRASHED` (the
 * session's page crashed; the session ends with it), `WF_ANSWER_INVALID` (an ASK's
 * answer did not match the step's schema), `WF_STEP_FAILED` (anything else the browser threw).
 */
export class StepExecutionError extends WfError {
  override name = "StepExecutionError";
  readonly details: unknown;
  constructor(code: string, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.details = options.details;
  }
}
