/**
 * The service's errors on the wire: RFC 9457 problem details (`application/problem+json`), their
 * stable `code`s with the HTTP status of each, and the field errors of a 422 with JSON Pointer
 * paths. Part of the protocol (`@wf/core/protocol` re-exports it); see `docs/protocol.md`, "Errors".
 */
import { z } from "zod";

/** One field error of a 422: `path` is a JSON Pointer into the request (`/type`, `/variables/url`). */
export const FieldError = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** Stable `code`s of the service's problem details, with their HTTP status. */
export const PROBLEM_CODES = {
  WF_MALFORMED_JSON: 400,
  WF_BAD_REQUEST: 400,
  WF_UNAUTHORIZED: 401,
  WF_SESSION_NOT_FOUND: 404,
  WF_STEP_NOT_FOUND: 404,
  WF_TRACE_NOT_FOUND: 404,
  WF_DOWNLOAD_NOT_FOUND: 404,
  WF_WORKFLOW_NOT_FOUND: 404,
  WF_ROUTE_NOT_FOUND: 404,
  WF_METHOD_NOT_ALLOWED: 405,
  WF_REQUEST_TIMEOUT: 408,
  WF_SESSION_CLOSED: 409,
  WF_SESSION_FINISHED: 409,
  WF_BODY_TOO_LARGE: 413,
  WF_UPLOAD_TOO_LARGE: 413,
  WF_UNSUPPORTED_MEDIA_TYPE: 415,
  WF_HEADERS_TOO_LARGE: 431,
  WF_VALIDATION_FAILED: 422,
  WF_IDEMPOTENCY_KEY_REUSED: 422,
  WF_TOO_MANY_SESSIONS: 429,
  WF_BROWSER_UNAVAILABLE: 503,
  WF_STORAGE_UNAVAILABLE: 503,
  WF_INSTANCE_UNREACHABLE: 503,
  WF_RECORD_CORRUPTED: 500,
  WF_STORAGE_CORRUPT: 500,
  WF_INTERNAL: 500,
} as const;
export type ProblemCode = keyof typeof PROBLEM_CODES;

/**
 * Every error body of the service, sent as `application/problem+json` (RFC 9457). `code` is
 * stable and machine-readable; `errors` lists each field error of a 422.
 */
export const ProblemDetails = z
  .object({
    type: z.string().default("about:blank"),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.string(),
    errors: z.array(FieldError).optional(),
    retryAfterMs: z.number().optional(),
  })
  .passthrough();
export type ProblemDetails = z.infer<typeof ProblemDetails>;

/** Media type of error bodies (RFC 9457 §3). */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/**
 * Turns zod issues into the service's field errors, with JSON Pointer paths
 * (RFC 6901: `~` → `~0`, `/` → `~1`). The root is `""`.
 */
export function toFieldErrors(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix = ""): FieldError[] {
  return issues.map((issue) => ({
    path: prefix + issue.path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join(""),
    message: issue.message,
  }));
}
