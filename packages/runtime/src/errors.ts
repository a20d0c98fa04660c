/**
 * Errors of `@wf/runtime`. Every one derives from `WfError` (`@wf/core`) and carries a stable `code`.
 */
import { WfError } from "@wf/core";
import type { ProblemDetails } from "@wf/core/protocol";

// Taken from the CommonJS module, not `import … from "node:http"`: an ES import of a built-in reads
// every export, and on Node 22 `http.WebSocket` and its siblings are getters that load Node's own
// undici (fetch, WebSocket), ~20 ms of every `wf run`'s start that the client never uses (it talks
// through the undici package's Pool). `process.getBuiltinModule` is Node ≥ 20.16.
const { STATUS_CODES } = process.getBuiltinModule("node:http");

/** Stable codes of {@link ServiceError}. */
export type ServiceErrorCode =
  /** The service answered with an HTTP error; `status` and `problem` (RFC 9457 problem details) say why. */
  | "WF_SERVICE_ERROR"
  /** The service could not be reached (connection refused, reset, timed out) after every retry. */
  | "WF_SERVICE_UNREACHABLE"
  /** The service answered 2xx with a body that is not JSON or does not match `@wf/core/protocol`. */
  | "WF_SERVICE_PROTOCOL";

/** What {@link ServiceError} knows of the failed request. */
export interface ServiceErrorInit {
  code: ServiceErrorCode;
  /** HTTP method, upper case. */
  method: string;
  /** The full URL requested (query included). */
  url: string;
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** The parsed problem details of an HTTP error, when the body was one. */
  problem?: ProblemDetails;
  /** Attempts made, retries included. */
  attempts?: number;
  /** What went wrong, after `[METHOD] "url": `. */
  reason: string;
  cause?: unknown;
}

/**
 * A request to the wf service failed. Messages read like ofetch's:
 * `[POST] "http://127.0.0.1:8787/apis/request/workflow/step/run/ab12": 422 Unprocessable Entity: /type must be ACT or ASK`.
 *
 * Codes: `WF_SERVICE_ERROR` (an HTTP error; see `status` and `problem`), `WF_SERVICE_UNREACHABLE`
 * (no answer after the retries), `WF_SERVICE_PROTOCOL` (an answer that does not match the protocol).
 */
export class ServiceError extends WfError {
  override name = "ServiceError";
  declare readonly code: ServiceErrorCode;
  readonly method: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly problem: ProblemDetails | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;

  constructor(init: ServiceErrorInit) {
    super(init.code, `[${init.method}] ${JSON.stringify(init.url)}: ${init.reason}`, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.problem = init.problem;
    this.attempts = init.attempts ?? 1;
  }
}

/** `422 Unprocessable Entity`, or `599` alone for a status Node does not name. */
export function statusLine(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `${status} ${text}` : String(status);
}

/**
 * The readable part of problem details: each field error as `path message` (`/type must be ACT or ASK`),
 * else `detail`, else `title`; the `code` is appended in brackets.
 */
export function describeProblem(problem: ProblemDetails): string {
  const fieldErrors = problem.errors?.map((e) => `${e.path || "(root)"} ${e.message}`).join("; ");
  const text = fieldErrors || problem.detail || problem.title;
  return `${text} [${problem.code}]`;
}

/** Stable codes of {@link UploadError}. */
export type UploadErrorCode =
  /** A step's files hold more than `MAX_STEP_UPLOAD_BYTES` (10 MiB) together; nothing was sent. */
  | "WF_UPLOAD_TOO_LARGE"
  /** An `upload "<path>" …` instruction names a file that does not exist; nothing was sent. */
  | "WF_UPLOAD_FILE_NOT_FOUND";

/**
 * A file an instruction uploads could not be sent with its step (to a service that does not share
 * this machine's disk): too large, or missing. The step is not sent.
 */
export class UploadError extends WfError {
  override name = "UploadError";
  declare readonly code: UploadErrorCode;
  /** The path as the instruction names it. */
  readonly path: string;

  constructor(code: UploadErrorCode, message: string, path: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.path = path;
  }
}
