/**
 * The Fastify app: content-type and error handling that turn every failure into RFC 9457 problem
 * details, the health, OpenAPI and step-mode routes, the debugger page, and the stored-workflow
 * routes of `stored/routes.ts`.
 */
import { rawBodies, registerForwarding } from "./instances.js";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import helmet from "@fastify/helmet";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { z } from "zod";
import {
  CreateSessionRequest,
  CreateSessionResponse,
  HealthResponse,
  IDEMPOTENCY_KEY_HEADER,
  LongPollQuery,
  MAX_LONG_POLL_MS,
  MAX_STEP_UPLOAD_BYTES,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_CODES,
  RunStepRequest,
  RunStepResponse,
  SessionStatus,
  StepStatus,
  ROUTES,
  toFieldErrors,
  type ProblemCode,
  type ProblemDetails,
} from "@wf/core/protocol";
import type { ServerContext } from "./context.js";
import { registerDebuggerRoutes } from "./http/view.js";
import { registerTraceRoute } from "./http/trace.js";
import { HttpProblem, isHttpProblem } from "./errors.js";
import { checkUploadSize } from "./session-uploads.js";
import { registerStoredWorkflowRoutes } from "./stored/routes.js";

/** Title of each problem code (RFC 9457 `title`). */
const TITLES: Record<ProblemCode, string> = {
  WF_MALFORMED_JSON: "Malformed JSON",
  WF_BAD_REQUEST: "Bad request",
  WF_UNAUTHORIZED: "Unauthorized",
  WF_SESSION_NOT_FOUND: "Session not found",
  WF_STEP_NOT_FOUND: "Step not found",
  WF_TRACE_NOT_FOUND: "Trace not found",
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

/**
 * Answers an error of Node's HTTP parser (an unknown method, a timeout, headers too large, bytes
 * that aren't HTTP) with problem details on the raw socket, then closes it.
 */
function writeClientError(error: Error & { code?: string }, socket: Socket, requestTimeoutMs: number): void {
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

/** The path of a request without its query (for `instance`). */
function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0] ?? request.url;
}

/** Parses the long-poll query and caps `waitMs` at {@link MAX_LONG_POLL_MS}. */
function longPoll(context: ServerContext, query: unknown): { waitMs: number; since?: number } {
  const parsed = context.parse(LongPollQuery, query ?? {});
  return { waitMs: Math.min(parsed.waitMs ?? 0, MAX_LONG_POLL_MS), ...(parsed.since !== undefined ? { since: parsed.since } : {}) };
}

/** An AbortSignal that aborts when the client goes away (ends a long-poll early). */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => controller.abort());
  return controller.signal;
}

/** Room a step run's body has beyond `bodyLimitBytes` for its files: 10 MiB in base64, and their JSON. */
const UPLOAD_ALLOWANCE_BYTES = Math.ceil(MAX_STEP_UPLOAD_BYTES / 3) * 4 + 64 * 1024;

/**
 * A step run's body without its files' bytes must fit `bodyLimitBytes` (its route takes more for
 * the files only).
 * @throws {@link HttpProblem} `WF_BODY_TOO_LARGE` (413)
 */
function checkStepBodySize(body: unknown, limit: number): void {
  if (!body || typeof body !== "object") return;
  const files = (body as { files?: unknown }).files;
  const rest = Array.isArray(files)
    ? { ...body, files: files.map((f: unknown) => (f && typeof f === "object" ? { ...f, contentBase64: "" } : f)) }
    : body;
  if (Buffer.byteLength(JSON.stringify(rest)) > limit) {
    throw new HttpProblem("WF_BODY_TOO_LARGE", `The request body is larger than the server's limit (${limit} bytes, bodyLimitBytes) without its files. Send less, e.g. a smaller currentDom.`);
  }
}

/** Bytes a base64 text decodes to. */
function decodedLength(base64: string): number {
  const clean = base64.replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

const IdParams = z.object({ id: z.string().min(1) });
const StepIdParams = z.object({ stepId: z.string().min(1) });

/**
 * Builds the Fastify app on a server context: error handling, every route, the stored-workflow
 * routes. Does not listen.
 */
export async function buildApp(context: ServerContext): Promise<FastifyInstance> {
  const { options } = context;
  const app = Fastify({
    logger: options.logger,
    bodyLimit: options.bodyLimitBytes,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Slow clients are cut off: the whole request within requestTimeoutMs (408), no silent
    // connection past connectionTimeoutMs. Node checks the request timeout every
    // connectionsCheckingInterval, so that follows the timeout (default 30 s would let a short
    // timeout run long).
    requestTimeout: options.requestTimeoutMs,
    connectionTimeout: options.connectionTimeoutMs,
    // An idle keep-alive connection is silent too; 72 s (Fastify's default, above common load
    // balancers' 60 s) unless the connection timeout is shorter.
    keepAliveTimeout: options.connectionTimeoutMs > 0 ? Math.min(72_000, options.connectionTimeoutMs) : 72_000,
    http: {
      ...(options.requestTimeoutMs > 0
        ? { connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(options.requestTimeoutMs / 4))), headersTimeout: Math.min(60_000, options.requestTimeoutMs) }
        : {}),
    },
    // Errors Node's HTTP parser raises before Fastify sees a request get problem details too.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => writeClientError(error, socket, options.requestTimeoutMs),
    // Errors raised before routing (a URL that doesn't decode) get problem details too.
    frameworkErrors: (error, request, reply) => {
      void sendProblem(reply, new HttpProblem("WF_ROUTE_NOT_FOUND", `The URL is not valid (${error.message}). Percent-encode the path.`), pathOf(request));
    },
  });

  // Security headers on every answer: no MIME sniffing, no framing (the debugger page is the only
  // HTML and sets its own CSP, with `frame-ancestors 'none'`), nothing else loads for the JSON API.
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: "deny" },
  });

  // Only JSON bodies, in UTF-8, not compressed. Everything else is a 415; an empty JSON body reads as no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: "buffer" }, (request, body, done) => {
    const refused = checkBodyEncoding(request.headers["content-type"], request.headers["content-encoding"]);
    if (refused) return done(refused, undefined);
    const text = decodeUtf8(typeof body === "string" ? Buffer.from(body, "utf8") : body);
    if (typeof text !== "string") return done(text, undefined);
    // Kept as sent, for a request forwarded to the instance holding its session.
    rawBodies.set(request, text);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(new HttpProblem("WF_MALFORMED_JSON", `The body is not valid JSON: ${(error as Error).message}. Send a JSON object.`), undefined);
    }
  });

  // 5xx answers are logged with their stack (pino's `err` serializer), under the request id the answer names.
  const logsErrors = Boolean(options.logger) && (app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.("error") === true;
  app.setErrorHandler((error, request, reply) => {
    const { body } = toProblem(error);
    if (body.status >= 500) request.log.error({ err: error, code: body.code }, `request failed: ${request.method} ${pathOf(request)} answered ${body.status}`);
    return sendProblem(reply, error, pathOf(request), logsErrors ? { requestId: String(request.id) } : undefined);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new HttpProblem("WF_ROUTE_NOT_FOUND", `No route ${request.method} ${pathOf(request)}. See ${ROUTES.openapi} for the routes.`), pathOf(request)),
  );

  // With several instances on one PostgreSQL, requests about a session go to the instance holding it.
  if (context.store.driver === "postgres") await registerForwarding(app, context);

  const auth = { onRequest: context.auth.requireApiKey };

  // Health: the only route without a key.
  context.openapi.add({ method: "get", path: ROUTES.health, summary: "Health check", response: HealthResponse, auth: "none", tags: ["service"] });
  app.get(ROUTES.health, async () => ({ status: "ok" as const, version: context.version }));

  context.openapi.add({
    method: "get",
    path: ROUTES.openapi,
    summary: "This OpenAPI 3.1 document",
    response: { contentType: "application/json", description: "The OpenAPI 3.1 document." },
    errors: { 401: "Missing or wrong API key" },
    tags: ["service"],
  });
  app.get(ROUTES.openapi, auth, async () => context.openapi.document(context.publicUrl()));

  // --- Step mode -----------------------------------------------------------------------------
  const fastifyPath = (route: string) => route.replace(/\{(\w+)\}/g, ":$1");

  context.openapi.add({
    method: "post",
    path: ROUTES.stepCreate,
    summary: "Create a step-mode session",
    description: "Opens a browser context. Its `workflowId` is the `{id}` of the step-run, status and close routes.",
    body: CreateSessionRequest,
    bodyRequired: false,
    response: CreateSessionResponse,
    errors: { 400: "Malformed JSON", 401: "Missing or wrong API key", 413: "Body too large", 415: "Not JSON", 422: "Invalid body (e.g. browserMode other than REMOTE)", 429: "Too many sessions (Retry-After)", 503: "Browser unavailable (Retry-After)" },
    tags: ["step mode"],
  });
  app.post(fastifyPath(ROUTES.stepCreate), auth, async (request) => {
    const body = context.parse(CreateSessionRequest, request.body ?? {});
    const session = await context.sessions.createSession({ kind: "STEP", ...(body.trace ? { trace: true } : {}), ...(body.screenshot ? { screenshot: body.screenshot } : {}) });
    return { workflowId: session.sessionId, sessionToken: session.token, debuggerUrl: context.sessions.viewUrl(session) } satisfies CreateSessionResponse;
  });

  context.openapi.add({
    method: "post",
    path: ROUTES.stepRun,
    summary: "Run one step in a session",
    description:
      "Queues an ACT or ASK in the session and answers at once with its ids; steps of one session run one at a time in arrival order. " +
      "Follow it with the step status route (`?waitMs=` long-polls). With an `Idempotency-Key` header, a retry with the same key and body returns the first step's ids and runs nothing.",
    pathParams: { id: "The session's workflowId (from create)." },
    headers: { "Idempotency-Key": "Makes the request safe to retry: the same key in the same session never runs twice." },
    body: RunStepRequest,
    response: RunStepResponse,
    errors: { 400: "Malformed JSON", 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session closed", 413: "Body too large, or files over 10 MiB (WF_UPLOAD_TOO_LARGE)", 415: "Not JSON", 422: "Invalid body, ACT with a schema, or idempotency key reused with another body" },
    tags: ["step mode"],
  });
  // The body limit plus room for a step's files (base64); the rest of the body still gets bodyLimitBytes.
  app.post(fastifyPath(ROUTES.stepRun), { ...auth, bodyLimit: options.bodyLimitBytes + UPLOAD_ALLOWANCE_BYTES }, async (request) => {
    const { id } = context.parse(IdParams, request.params);
    // Validated first: the validation bounds the body's depth, which the size check's serialisation needs.
    const body = context.parse(RunStepRequest, request.body ?? {});
    checkStepBodySize(body, options.bodyLimitBytes);
    if (body.files) checkUploadSize(body.files.map((f) => ({ name: f.name, bytes: decodedLength(f.contentBase64) })));
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    const idempotencyKey = Array.isArray(header) ? header[0] : header;
    const submitted = await context.sessions.submitStep(id, body, idempotencyKey ? { idempotencyKey } : {});
    return { stepId: submitted.stepId, jobTaskId: submitted.jobTaskId } satisfies z.infer<typeof RunStepResponse>;
  });

  context.openapi.add({
    method: "get",
    path: ROUTES.stepStatus,
    summary: "Status of a step",
    description: `With \`?waitMs=\` (capped at ${MAX_LONG_POLL_MS} ms) the answer waits until the step finished or the time ran out (long-poll).`,
    pathParams: { stepId: "The stepId a step run returned." },
    query: LongPollQuery.pick({ waitMs: true }),
    response: StepStatus,
    errors: { 401: "Missing or wrong API key", 404: "Unknown step", 422: "Invalid query" },
    tags: ["step mode"],
  });
  app.get(fastifyPath(ROUTES.stepStatus), auth, async (request, reply) => {
    const { stepId } = context.parse(StepIdParams, request.params);
    const { waitMs } = longPoll(context, request.query);
    return context.sessions.waitForStep(stepId, waitMs, clientGone(reply));
  });

  context.openapi.add({
    method: "post",
    path: ROUTES.stepClose,
    summary: "Close a step session",
    description: "Frees the session's browser context. The session ends SUCCEEDED; a queued or running step fails with WF_SESSION_CLOSED. No body needed.",
    pathParams: { id: "The session's workflowId." },
    response: SessionStatus,
    errors: { 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session already closed" },
    tags: ["step mode"],
  });
  app.post(fastifyPath(ROUTES.stepClose), auth, async (request) => {
    const { id } = context.parse(IdParams, request.params);
    const session = await context.sessions.getSession(id);
    if (!session) throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${id}. Use the workflowId that creating the session returned.`);
    if (session.status !== "RUNNING") {
      throw new HttpProblem("WF_SESSION_CLOSED", `Session ${id} is already ${session.status.toLowerCase()}.`, { extra: { sessionStatus: session.status } });
    }
    return context.sessions.finishSession(id, { status: session.kind === "STEP" ? "SUCCEEDED" : "CANCELLED" });
  });

  context.openapi.add({
    method: "get",
    path: ROUTES.sessionStatus,
    summary: "Status of a session (step mode or stored run)",
    description:
      `With \`?since=<version>\` and \`?waitMs=\` the answer waits until the session changed (its version exceeds since); with \`waitMs\` alone, until it ended. ` +
      `waitMs is capped at ${MAX_LONG_POLL_MS} ms.`,
    pathParams: { id: "The session id (a step session's workflowId, or a stored run's sessionId)." },
    query: LongPollQuery,
    response: SessionStatus,
    errors: { 401: "Missing or wrong API key", 404: "Unknown session", 422: "Invalid query" },
    tags: ["sessions"],
  });
  app.get(fastifyPath(ROUTES.sessionStatus), auth, async (request, reply) => {
    const { id } = context.parse(IdParams, request.params);
    const { waitMs, since } = longPoll(context, request.query);
    return context.sessions.waitForSession(id, { waitMs, ...(since !== undefined ? { since } : {}) }, clientGone(reply));
  });

  await registerDebuggerRoutes(app, context);
  registerTraceRoute(app, context);
  await registerStoredWorkflowRoutes(app, context);
  return app;
}

/** Builds the `parse` of a server context: zod parse or the 422 problem with JSON Pointer paths. */
export function createParse(): ServerContext["parse"] {
  return (schema, value, prefix = "") => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const errors = toFieldErrors(
      parsed.error.issues.map((issue) =>
        issue.code === "invalid_value" && issue.values.length > 0
          ? { path: issue.path, message: `${issue.message}; allowed values: ${issue.values.map((v) => String(v)).join(", ")}` }
          : issue,
      ),
      prefix,
    );
    throw new HttpProblem("WF_VALIDATION_FAILED", `The request is invalid: ${errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ")}`, { errors });
  };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * A body's `charset` other than UTF-8, or a `Content-Encoding` other than `identity`, as the 415
 * problem (RFC 8259: JSON between systems is UTF-8; the server decompresses nothing). Undefined
 * when the body may be read.
 */
export function checkBodyEncoding(contentType: string | undefined, contentEncoding: string | string[] | undefined): HttpProblem | undefined {
  const encodings = (Array.isArray(contentEncoding) ? contentEncoding.join(",") : (contentEncoding ?? ""))
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "" && e !== "identity");
  if (encodings.length > 0) {
    return new HttpProblem(
      "WF_UNSUPPORTED_MEDIA_TYPE",
      `The body is sent with Content-Encoding: ${encodings.join(", ")}, which this server does not decode. Send it uncompressed (no Content-Encoding header, or identity).`,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return new HttpProblem("WF_UNSUPPORTED_MEDIA_TYPE", `The body's charset is ${JSON.stringify(charset)}; JSON is read as UTF-8 only. Send it in UTF-8 with \`Content-Type: application/json\` (or \`; charset=utf-8\`).`);
  }
  return undefined;
}

/** The body as text, or the 400 problem naming the first byte that is not UTF-8 (never replaced by U+FFFD). */
function decodeUtf8(bytes: Buffer): string | HttpProblem {
  try {
    return UTF8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return new HttpProblem(
      "WF_MALFORMED_JSON",
      `The body is not valid UTF-8: the byte at offset ${offset} (0x${(bytes[offset] ?? 0).toString(16).padStart(2, "0")}) does not start or continue a UTF-8 character. Send the JSON encoded as UTF-8 (non-ASCII text as UTF-8 bytes or \\u escapes).`,
    );
  }
}

/** Offset of the first byte that breaks UTF-8: a bad lead byte, a missing or wrong continuation (overlong, surrogate, above U+10FFFF), or a cut-off sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // [continuation bytes, allowed range of the first continuation byte]
    const form: [number, number, number] | undefined =
      b >= 0xc2 && b <= 0xdf ? [1, 0x80, 0xbf] :
      b === 0xe0 ? [2, 0xa0, 0xbf] :
      b === 0xed ? [2, 0x80, 0x9f] :
      b >= 0xe1 && b <= 0xef ? [2, 0x80, 0xbf] :
      b === 0xf0 ? [3, 0x90, 0xbf] :
      b >= 0xf1 && b <= 0xf3 ? [3, 0x80, 0xbf] :
      b === 0xf4 ? [3, 0x80, 0x8f] : undefined;
    if (!form) return i;
    const [count, low, high] = form;
    for (let k = 1; k <= count; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < low || c > high : (c & 0xc0) !== 0x80) return i + k;
    }
    i += count + 1;
  }
  return bytes.length;
}
