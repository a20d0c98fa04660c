/**
 * The wf service client: one method per route of `@wf/core/protocol`, over an undici keep-alive
 * `Pool`, with per-request timeouts and retries (exponential backoff with full jitter, `Retry-After`
 * honoured). Every answer is validated with the protocol's zod schema.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { Dispatcher, Pool as UndiciPool } from "undici";
import type { z } from "zod";
import { RunAbortedError } from "@wf/core";
import {
  API_KEY_HEADER,
  CloseSessionResponse,
  type CloseSessionRequest,
  CreateSessionResponse,
  HealthResponse,
  IDEMPOTENCY_KEY_HEADER,
  MAX_LONG_POLL_MS,
  ProblemDetails,
  ROUTES,
  RunStepResponse,
  RunWorkflowResponse,
  SessionStatus,
  StepStatus,
  WorkflowList,
  routePath,
  type CreateSessionRequest,
  type RunStepRequest,
  type RunWorkflowRequest,
} from "@wf/core/protocol";
import { DEFAULT_RETRY, backoffDelayMs, errorCodes, isConnectionError, parseRetryAfterMs, provesNotSent, sleep, type RetryOptions } from "./_retry.js";
import { ServiceError, describeProblem, statusLine } from "./errors.js";

export type { RetryOptions } from "./_retry.js";

/** Options of {@link createServiceClient}. */
export interface ServiceClientOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:8787` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as the `api-key` header on every request. @default none */
  apiKey?: string;
  /**
   * Time one attempt of a request may take, in ms, answer body included. A long-poll attempt
   * (`waitMs`) gets `waitMs + requestTimeoutMs`. @default 30_000
   */
  requestTimeoutMs?: number;
  /** Retry policy; fields left out keep their defaults `{ retries: 4, minDelayMs: 200, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 }`. */
  retry?: Partial<RetryOptions>;
  /**
   * The undici dispatcher to send through (tests inject one). @default a keep-alive `Pool` for
   * the base URL's origin, closed by {@link ServiceClient.close}
   */
  dispatcher?: Dispatcher;
}

/** Per-call options every method takes. */
export interface CallOptions {
  /** Aborts the call (and its retries); the call then rejects with `RunAbortedError`. */
  signal?: AbortSignal;
}

/** Options of {@link ServiceClient.runStep}. */
export interface RunStepOptions extends CallOptions {
  /**
   * The step attempt's idempotency key, sent as `Idempotency-Key`: the service runs a step once
   * per key and session, so the call is retried safely. @default a fresh `crypto.randomUUID()` per call
   */
  idempotencyKey?: string;
  /**
   * Ask the service to hold the answer until the step ended or `waitMs` passed, in ms (capped at
   * 30_000): the answer then carries the step's status (`stepStatus`), so a quick step takes one
   * request. A service that does not wait answers at once without it. @default 0 (answer at once)
   */
  waitMs?: number;
}

/** Options of {@link ServiceClient.closeSession}. */
export interface CloseSessionOptions extends CallOptions {
  /** Drop the session's trace unsaved instead of saving it (`discardTrace: true` in the body). @default false */
  discardTrace?: boolean;
}

/** Options of the long-polling status calls. */
export interface StatusOptions extends CallOptions {
  /** Long-poll: let the service hold the answer until the step/session changes or `waitMs` passes, in ms (capped at 30_000). */
  waitMs?: number;
}

/** Options of {@link ServiceClient.getSessionStatus}. */
export interface SessionStatusOptions extends StatusOptions {
  /** Answer once the session's `version` exceeds this (with `waitMs`). */
  since?: number;
}

/**
 * A client of one wf service. Every method validates the answer with the protocol's schema and
 * throws {@link ServiceError} (`WF_SERVICE_ERROR`, `WF_SERVICE_UNREACHABLE`, `WF_SERVICE_PROTOCOL`),
 * or `RunAbortedError` when its signal aborts.
 *
 * Retries: connection failures, timeouts and 429/503 answers are retried with backoff on calls
 * that are safe to repeat (every GET, close, cancel, and a step run, which carries an idempotency
 * key). `createSession` and `runStoredWorkflow` are not idempotent: they are retried on 429/503
 * (the service refused them) and on failures that prove the request was never sent (connection
 * refused, DNS, connect timeout), never once the service may have received them. Other 4xx are never retried.
 */
export interface ServiceClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** `POST /workflow/step/create`: a step session. */
  createSession(body?: CreateSessionRequest, options?: CallOptions): Promise<CreateSessionResponse>;
  /**
   * `POST /workflow/step/run/{sessionId}` with an `Idempotency-Key`: starts one step. With `waitMs`,
   * the answer's `stepStatus` is the step's status once it ended (or when `waitMs` passed); without
   * it, or when that status is not final, wait for it with {@link getStepStatus}.
   */
  runStep(sessionId: string, body: RunStepRequest, options?: RunStepOptions): Promise<RunStepResponse>;
  /** `GET /workflow/step/status/{stepId}`, long-polling with `waitMs`. */
  getStepStatus(stepId: string, options?: StatusOptions): Promise<StepStatus>;
  /** `GET /workflow/status/{id}`, long-polling with `waitMs` and `since`. */
  getSessionStatus(sessionId: string, options?: SessionStatusOptions): Promise<SessionStatus>;
  /** `POST /workflow/step/close/{id}`: closes a step session, freeing its browser context. */
  closeSession(sessionId: string, options?: CloseSessionOptions): Promise<CloseSessionResponse>;
  /**
   * `GET /workflow/view/{id}/screenshots/{stepId}`: the PNG the service took after a step (kept
   * after the session closed, as long as the service keeps its records).
   * @returns the PNG's bytes, or undefined when the step has no screenshot (404).
   */
  getScreenshot(sessionId: string, stepId: string, options?: CallOptions): Promise<Uint8Array | undefined>;
  /**
   * `GET /workflow/view/{id}/downloads/{downloadId}`: a file a step of the session downloaded
   * (`StepStatus.downloads`), kept with the session's records. @returns undefined when the service
   * has no such file (404).
   */
  getDownload(sessionId: string, downloadId: string, options?: CallOptions): Promise<Uint8Array | undefined>;
  /**
   * `GET /workflow/view/{id}/trace`: the Playwright trace (zip) of a session created with
   * `trace: true`, once it was closed.
   * @returns the zip's bytes, or undefined when there is none (404: not traced, or not saved).
   */
  getTrace(sessionId: string, options?: CallOptions): Promise<Uint8Array | undefined>;
  /** `POST /workflow/run`: starts a stored workflow. */
  runStoredWorkflow(body: RunWorkflowRequest, options?: CallOptions): Promise<RunWorkflowResponse>;
  /** `POST /workflow/cancel/{id}`: cancels a running stored-workflow session. */
  cancelSession(sessionId: string, options?: CallOptions): Promise<SessionStatus>;
  /** `GET /workflows`: the stored workflows the service offers. */
  listWorkflows(options?: CallOptions): Promise<WorkflowList>;
  /** `GET /health`. */
  health(options?: CallOptions): Promise<HealthResponse>;
  /** Closes the client's own connection pool (not an injected dispatcher). Idempotent. */
  close(): Promise<void>;
}

/** One request as the client sends it. */
interface Call<T> {
  method: "GET" | "POST";
  /** Path and query, from the base URL. */
  path: string;
  body?: unknown;
  schema: z.ZodType<T>;
  /** Safe to send twice: retried even when the service may have received it. */
  idempotent: boolean;
  /** The answer is a file: its bytes are returned as they are (no JSON, no schema). */
  binary?: boolean;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes, for a `binary` call's 2xx answer. */
  bytes?: Uint8Array;
}

/**
 * undici's `Pool`, loaded from its own file: the package's entry loads all of undici (fetch,
 * cookies, WebSocket, mocks), ~100 ms of every `wf run`'s start-up against ~40 ms for the pool
 * (see docs/cli/startup.md). Falls back to the entry if a later undici moves the file.
 */
const Pool = loadPool();

function loadPool(): typeof UndiciPool {
  const require = createRequire(import.meta.url);
  try {
    const pool = require("undici/lib/dispatcher/pool.js") as unknown;
    if (typeof pool === "function") return pool as typeof UndiciPool;
  } catch {
    // Not where undici 7 keeps it: take it from the package's entry.
  }
  return (require("undici") as typeof import("undici")).Pool;
}

class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
  readonly code = "WF_REQUEST_TIMEOUT";
}

/**
 * Creates a client of the wf service at `options.baseUrl`.
 *
 * @throws {@link TypeError} if `baseUrl` is not an http(s) URL.
 * @example
 * const client = createServiceClient({ baseUrl: "http://127.0.0.1:8787", apiKey: process.env.WF_API_KEY });
 * const { workflowId } = await client.createSession();
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`createServiceClient: baseUrl ${JSON.stringify(options.baseUrl)} is not a URL (like http://127.0.0.1:8787).`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError(`createServiceClient: baseUrl ${JSON.stringify(options.baseUrl)} must be http or https.`);
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const origin = base.origin;
  /** The base URL's path prefix (no trailing slash), put before each route's path. */
  const basePath = base.pathname.replace(/\/+$/, "");
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };
  const ownPool = options.dispatcher ? undefined : new Pool(base.origin, { connections: 16, keepAliveTimeout: 4_000 });
  const dispatcher: Dispatcher = options.dispatcher ?? ownPool!;
  let closed = false;

  function send(call: Call<unknown>): Promise<Answer> {
    const headers: Record<string, string> = { accept: call.binary ? "*/*" : "application/json", ...call.headers };
    if (options.apiKey !== undefined) headers[API_KEY_HEADER] = options.apiKey;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers["content-type"] = "application/json";
    }
    // The dispatcher directly, with the origin parsed once (undici's top-level `request(url)`
    // parses the URL on every call), and a handler that gathers the answer: no AbortController
    // per attempt (the timeout and the caller's signal abort through undici's own controller)
    // and no body stream (see the runtime README, "Benchmark").
    return new Promise<Answer>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let abortReason: Error | undefined;
      let timedOut = false;
      let settled = false;
      let status = 0;
      let answerHeaders: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      const abort = (reason: Error) => {
        if (settled || abortReason) return;
        abortReason = reason;
        controller?.abort(reason);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        abort(new AttemptTimeout(`no complete answer within ${call.timeoutMs} ms`));
      }, call.timeoutMs);
      const onAbort = () => abort(call.signal!.reason instanceof Error ? call.signal!.reason : new RunAbortedError(call.signal!.reason));
      call.signal?.addEventListener("abort", onAbort, { once: true });
      const settle = (error: Error | undefined, answer?: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        call.signal?.removeEventListener("abort", onAbort);
        if (error) reject(timedOut ? new AttemptTimeout(`no complete answer within ${call.timeoutMs} ms`, { cause: error }) : error);
        else resolve(answer!);
      };
      try {
        dispatcher.dispatch(
          { origin, path: basePath + call.path, method: call.method, headers, body },
          {
            onRequestStart(requestController) {
              controller = requestController;
              if (abortReason) requestController.abort(abortReason);
            },
            onResponseStart(_controller, statusCode, responseHeaders) {
              status = statusCode;
              answerHeaders = responseHeaders;
            },
            onResponseData(_controller, chunk) {
              chunks.push(chunk);
            },
            onResponseEnd() {
              const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
              if (call.binary && status >= 200 && status < 300) settle(undefined, { status, headers: answerHeaders, text: "", bytes: new Uint8Array(bytes) });
              else settle(undefined, { status, headers: answerHeaders, text: bytes.toString("utf8") });
            },
            onResponseError(_controller, error) {
              settle(error);
            },
          },
        );
      } catch (error) {
        settle(error as Error);
      }
    });
  }

  async function perform<T>(call: Call<T>): Promise<T> {
    if (closed) throw new TypeError("The service client is closed.");
    const url = baseUrl + call.path;
    const fail = (init: Omit<ConstructorParameters<typeof ServiceError>[0], "method" | "url">) =>
      new ServiceError({ method: call.method, url, ...init });
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw new RunAbortedError(call.signal.reason);
      let answer: Answer;
      try {
        answer = await send(call as Call<unknown>);
      } catch (error) {
        if (call.signal?.aborted) throw new RunAbortedError(call.signal.reason);
        const timedOut = error instanceof AttemptTimeout;
        const what = timedOut ? (error as Error).message : describeNetworkError(error);
        if (!timedOut && !isConnectionError(error)) {
          throw fail({ code: "WF_SERVICE_UNREACHABLE", attempts: attempt, reason: `request failed: ${what}`, cause: error });
        }
        if (!call.idempotent && !provesNotSent(error)) {
          throw fail({
            code: "WF_SERVICE_UNREACHABLE",
            attempts: attempt,
            cause: error,
            reason:
              `${what}; not retried: the service may have received this request and it is not idempotent. ` +
              `Anything it created is reclaimed by the service's idle timeout.`,
          });
        }
        if (attempt > retry.retries) {
          throw fail({
            code: "WF_SERVICE_UNREACHABLE",
            attempts: attempt,
            cause: error,
            reason: `${what} (after ${attempt} attempts). Check that the wf service runs at ${baseUrl}.`,
          });
        }
        await pause(backoffDelayMs(attempt - 1, retry), call.signal);
        continue;
      }

      if (answer.status >= 200 && answer.status < 300 && answer.bytes) return answer.bytes as T;
      if (answer.status >= 200 && answer.status < 300) {
        let json: unknown;
        try {
          json = answer.text === "" ? undefined : JSON.parse(answer.text);
        } catch (error) {
          throw fail({
            code: "WF_SERVICE_PROTOCOL",
            status: answer.status,
            attempts: attempt,
            cause: error,
            reason: `${statusLine(answer.status)}: the body is not JSON (${snippet(answer.text)}). Check that ${baseUrl} is a wf service.`,
          });
        }
        const parsed = call.schema.safeParse(json);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((i) => `/${i.path.map(String).join("/")} ${i.message}`).join("; ");
          throw fail({
            code: "WF_SERVICE_PROTOCOL",
            status: answer.status,
            attempts: attempt,
            cause: parsed.error,
            reason: `${statusLine(answer.status)}: the body does not match the protocol: ${issues}. Check that the service and the runtime are the same version.`,
          });
        }
        return parsed.data;
      }

      const problem = parseProblem(answer.text);
      if ((answer.status === 429 || answer.status === 503) && attempt <= retry.retries) {
        const delay = parseRetryAfterMs(answer.headers["retry-after"]) ?? problem?.retryAfterMs ?? backoffDelayMs(attempt - 1, retry);
        if (delay <= retry.maxRetryAfterMs) {
          await pause(delay, call.signal);
          continue;
        }
      }
      throw fail({
        code: "WF_SERVICE_ERROR",
        status: answer.status,
        attempts: attempt,
        ...(problem ? { problem } : {}),
        reason: `${statusLine(answer.status)}${problem ? `: ${describeProblem(problem)}` : answer.text ? `: ${snippet(answer.text)}` : ""}`,
      });
    }
  }

  const longPollTimeout = (waitMs: number | undefined) =>
    waitMs === undefined ? requestTimeoutMs : Math.min(Math.max(0, waitMs), MAX_LONG_POLL_MS) + requestTimeoutMs;
  const query = (entries: Record<string, number | undefined>) => {
    const parts = Object.entries(entries).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${Math.max(0, Math.floor(v!))}`);
    return parts.length ? `?${parts.join("&")}` : "";
  };

  /** A file of the service (GET, retried as any GET); undefined on a 404. */
  async function download(path: string, opts: CallOptions): Promise<Uint8Array | undefined> {
    try {
      return await perform({ method: "GET", path, schema: undefined as unknown as z.ZodType<Uint8Array>, idempotent: true, binary: true, timeoutMs: requestTimeoutMs, signal: opts.signal });
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return undefined;
      throw error;
    }
  }

  return {
    baseUrl,
    createSession(body = {}, opts = {}) {
      return perform({ method: "POST", path: ROUTES.stepCreate, body, schema: CreateSessionResponse, idempotent: false, timeoutMs: requestTimeoutMs, signal: opts.signal });
    },
    runStep(sessionId, body, opts = {}) {
      return perform({
        method: "POST",
        path: routePath(ROUTES.stepRun, { id: sessionId }) + query({ waitMs: opts.waitMs || undefined }),
        body,
        schema: RunStepResponse,
        idempotent: true,
        headers: { [IDEMPOTENCY_KEY_HEADER]: opts.idempotencyKey ?? randomUUID() },
        timeoutMs: longPollTimeout(opts.waitMs),
        signal: opts.signal,
      });
    },
    getStepStatus(stepId, opts = {}) {
      return perform({
        method: "GET",
        path: routePath(ROUTES.stepStatus, { stepId }) + query({ waitMs: opts.waitMs }),
        schema: StepStatus,
        idempotent: true,
        timeoutMs: longPollTimeout(opts.waitMs),
        signal: opts.signal,
      });
    },
    getSessionStatus(sessionId, opts = {}) {
      return perform({
        method: "GET",
        path: routePath(ROUTES.sessionStatus, { id: sessionId }) + query({ waitMs: opts.waitMs, since: opts.since }),
        schema: SessionStatus,
        idempotent: true,
        timeoutMs: longPollTimeout(opts.waitMs),
        signal: opts.signal,
      });
    },
    closeSession(sessionId, opts = {}) {
      return perform({
        method: "POST",
        path: routePath(ROUTES.stepClose, { id: sessionId }),
        ...(opts.discardTrace ? { body: { discardTrace: true } satisfies CloseSessionRequest } : {}),
        schema: CloseSessionResponse,
        idempotent: true,
        timeoutMs: requestTimeoutMs,
        signal: opts.signal,
      });
    },
    getScreenshot(sessionId, stepId, opts = {}) {
      return download(routePath(`${ROUTES.sessionView}/screenshots/{stepId}`, { id: sessionId, stepId }), opts);
    },
    getDownload(sessionId, downloadId, opts = {}) {
      return download(routePath(ROUTES.sessionDownload, { id: sessionId, downloadId }), opts);
    },
    getTrace(sessionId, opts = {}) {
      return download(routePath(ROUTES.sessionTrace, { id: sessionId }), opts);
    },
    runStoredWorkflow(body, opts = {}) {
      return perform({ method: "POST", path: ROUTES.workflowRun, body, schema: RunWorkflowResponse, idempotent: false, timeoutMs: requestTimeoutMs, signal: opts.signal });
    },
    cancelSession(sessionId, opts = {}) {
      return perform({ method: "POST", path: routePath(ROUTES.sessionCancel, { id: sessionId }), schema: SessionStatus, idempotent: true, timeoutMs: requestTimeoutMs, signal: opts.signal });
    },
    listWorkflows(opts = {}) {
      return perform({ method: "GET", path: ROUTES.workflowList, schema: WorkflowList, idempotent: true, timeoutMs: requestTimeoutMs, signal: opts.signal });
    },
    health(opts = {}) {
      return perform({ method: "GET", path: ROUTES.health, schema: HealthResponse, idempotent: true, timeoutMs: requestTimeoutMs, signal: opts.signal });
    },
    async close() {
      if (closed) return;
      closed = true;
      await ownPool?.close();
    },
  };
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch {
    throw new RunAbortedError(signal?.reason);
  }
}

function parseProblem(text: string): ProblemDetails | undefined {
  try {
    const parsed = ProblemDetails.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function describeNetworkError(error: unknown): string {
  const codes = errorCodes(error);
  const message = error instanceof Error && error.message ? error.message : String(error);
  return codes.length && !message.includes(codes[0]!) ? `${message} (${codes[0]})` : message;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}
