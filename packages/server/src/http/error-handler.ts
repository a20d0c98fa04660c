/**
 * Every failure as RFC 9457 problem details: {@link errorHandler} for what a route throws (or its
 * validation returns), {@link sendProblem} for the not-found and pre-routing answers, and
 * {@link writeClientError} for what Node's HTTP parser refuses before Fastify sees a request.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { PROBLEM_CODES, PROBLEM_CONTENT_TYPE, type ProblemCode, type ProblemDetails } from "@wf/core/protocol";
import { isHttpProblem } from "../errors.js";
import { problemFor } from "./problems.js";

/** Title of each problem code (RFC 9457 `title`). */
const TITLES: Record<ProblemCode, string> = {
  WF_MALFORMED_JSON: "Malformed JSON",
  WF_BAD_REQUEST: "Bad request",
  WF_UNAUTHORIZED: "Unauthorized",
  WF_SESSION_NOT_FOUND: "Session not found",
  WF_STEP_NOT_FOUND: "Step not found",
  WF_TRACE_NOT_FOUND: "Trace not found",
  WF_DOWNLOAD_NOT_FOUND: "Download not found",
  WF_WORKFLOW_NOT_FOUND: "Workflow not found",
  WF_ROUTE_NOT_FOUND: "Route not found",
  WF_METHOD_NOT_ALLOWED: "Method not allowed",
  WF_REQUEST_TIMEOUT: "Request timeout",
  WF_HEADERS_TOO_LARGE: "Request headers too large",
  WF_SESSION_CLOSED: "Session closed",
  WF_SESSION_FINISHED: "Session finished",
  WF_BODY_TOO_LARGE: "Body too large",
  WF_UPLOAD_TOO_LARGE: "Upload too large",
  WF_UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  WF_VALIDATION_FAILED: "Validation failed",
  WF_IDEMPOTENCY_KEY_REUSED: "Idempotency key reused",
  WF_TOO_MANY_SESSIONS: "Too many sessions",
  WF_BROWSER_UNAVAILABLE: "Browser unavailable",
  WF_STORAGE_UNAVAILABLE: "Storage unavailable",
  WF_INSTANCE_UNREACHABLE: "Instance unreachable",
  WF_RECORD_CORRUPTED: "Record corrupted",
  WF_STORAGE_CORRUPT: "Storage corrupt",
  WF_INTERNAL: "Internal server error",
};

/** Problem code for a bare HTTP status (errors Fastify raises itself). */
const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: "WF_MALFORMED_JSON",
  401: "WF_UNAUTHORIZED",
  404: "WF_ROUTE_NOT_FOUND",
  405: "WF_METHOD_NOT_ALLOWED",
  413: "WF_BODY_TOO_LARGE",
  415: "WF_UNSUPPORTED_MEDIA_TYPE",
  422: "WF_VALIDATION_FAILED",
  429: "WF_TOO_MANY_SESSIONS",
  503: "WF_BROWSER_UNAVAILABLE",
};

/**
 * Turns anything thrown in a route into problem details. Unknown errors become a 500 `WF_INTERNAL`
 * whose detail says where the cause is: in the log under `requestId` when `logged`, else how to
 * turn the logger on.
 */
export function toProblem(error: unknown, instance?: string, logged?: { requestId: string }): { body: ProblemDetails; retryAfterMs?: number } {
  if (isHttpProblem(error)) {
    const body: ProblemDetails = {
      type: "about:blank",
      title: TITLES[error.code as ProblemCode] ?? error.code,
      status: error.status,
      detail: error.message,
      code: error.code,
      ...(instance ? { instance } : {}),
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      ...error.extra,
    };
    return { body, ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) };
  }
  const fastifyError = error as Partial<FastifyError> & Error;
  let code: ProblemCode = "WF_INTERNAL";
  let detail = logged
    ? `The server failed on this request; the cause is in its log under request id ${logged.requestId}. Retry, and report it with that id if it keeps happening.`
    : "The server failed on this request. Its logger is off, so the cause was not recorded: start it with WF_LOG_LEVEL=error (wf serve logs by default). Retry, and report it if it keeps happening.";
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      code = "WF_BODY_TOO_LARGE";
      detail = "The request body is larger than the server's limit (bodyLimitBytes). Send less, e.g. a smaller currentDom.";
      break;
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_TYPE":
      code = "WF_UNSUPPORTED_MEDIA_TYPE";
      detail = "Send the body as JSON with `Content-Type: application/json`.";
      break;
    default:
      if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
        code = CODE_BY_STATUS[fastifyError.statusCode] ?? "WF_VALIDATION_FAILED";
        detail = fastifyError.message;
      }
  }
  const status = code === "WF_INTERNAL" ? 500 : PROBLEM_CODES[code];
  return { body: { type: "about:blank", title: TITLES[code], status, detail, code, ...(instance ? { instance } : {}) } };
}

/** Sends problem details (with `Retry-After` in seconds when known). */
export function sendProblem(reply: FastifyReply, error: unknown, instance?: string, logged?: { requestId: string }): FastifyReply {
  const { body, retryAfterMs } = toProblem(error, instance, logged);
  // Also set by helmet, but some answers (URLs that don't decode) come before its hook.
  void reply.header("x-content-type-options", "nosniff").header("x-frame-options", "DENY");
  if (retryAfterMs !== undefined) void reply.header("retry-after", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return reply.status(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

/** The path of a request without its query (for `instance`). */
export function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0] ?? request.url;
}

/**
 * The app's error handler (`app.setErrorHandler`): answers what a route threw, or its validation
 * returned, as problem details (a domain error of the session wing first becomes its problem, by
 * `problemFor`) whose `instance` is the request's path. 5xx answers are logged with
 * their stack (pino's `err` serializer) under the request id the answer names, when `logsErrors`.
 */
export function errorHandler(logsErrors: boolean) {
  return (thrown: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // The session wing throws domain errors; they are answered as the problems they stand for.
    const error = problemFor(thrown);
    const { body } = toProblem(error);
    if (body.status >= 500) request.log.error({ err: error, code: body.code }, `request failed: ${request.method} ${pathOf(request)} answered ${body.status}`);
    return sendProblem(reply, error, pathOf(request), logsErrors ? { requestId: String(request.id) } : undefined);
  };
}

/**
 * Answers an error of Node's HTTP parser (an unknown method, a timeout, headers too large, bytes
 * that aren't HTTP) with problem details on the raw socket, then closes it.
 */
export function writeClientError(error: Error & { code?: string }, socket: Socket, requestTimeoutMs: number): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  let code: ProblemCode;
  let detail: string;
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      code = "WF_REQUEST_TIMEOUT";
      detail = `The request did not arrive whole within ${requestTimeoutMs} ms (requestTimeoutMs), so the connection is closed. Send the request at once.`;
      break;
    case "HPE_HEADER_OVERFLOW":
      code = "WF_HEADERS_TOO_LARGE";
      detail = "The request headers are larger than the server accepts (16 KiB). Send fewer or shorter headers.";
      break;
    case "HPE_INVALID_METHOD":
      code = "WF_METHOD_NOT_ALLOWED";
      detail = "The HTTP method is not one this server knows. Use GET or POST as the OpenAPI document says.";
      break;
    default:
      code = "WF_BAD_REQUEST";
      detail = `The request is not valid HTTP/1.1 (${error.code ?? error.message}).`;
  }
  const status = PROBLEM_CODES[code];
  const body = JSON.stringify({ type: "about:blank", title: TITLES[code], status, detail, code } satisfies ProblemDetails);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
