/**
 * A fault-injecting stand-in for the wf service, for the runtime's tests: the step-mode routes
 * (create, run, step status, close, session status) plus health, in memory, over `node:http`.
 *
 * Steps "run" for `stepDurationMs` and succeed, unless `fail` says otherwise; an ASK answers what
 * `answer` returns. Faults are scripted per route and consumed in order: dropped connections
 * before or after the request body is received, HTTP errors (503 with `Retry-After`, 429, …),
 * slow answers and malformed JSON bodies. The server counts what the tests assert on: sessions
 * created and closed, and executions per idempotency key.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { API_KEY_HEADER, IDEMPOTENCY_KEY_HEADER, MAX_LONG_POLL_MS, RunStepRequest, type StepStatus, type StepUsage, type WireError, type SessionStatus } from "@wf/core/protocol";

export type FaultRoute = "create" | "run" | "stepStatus" | "close" | "sessionStatus" | "health";

export type Fault =
  /** Destroys the connection as soon as the request head arrives: the request is never processed. */
  | { kind: "drop-before-body" }
  /** Reads and processes the request (a step runs, a session is created), then destroys the connection unanswered. */
  | { kind: "drop-after-body" }
  /** Answers this HTTP status with problem details (and `Retry-After` when given) without processing. */
  | { kind: "status"; status: number; retryAfter?: string; code?: string; body?: string }
  /** Processes the request, then answers after `delayMs`. */
  | { kind: "slow"; delayMs: number }
  /** Processes the request, then answers 200 with a body that is not valid JSON (or `body`). */
  | { kind: "malformed"; body?: string };

export interface FaultServerOptions {
  /** Required `api-key` value; none checked when absent. */
  apiKey?: string;
  /** Whether the step status route long-polls on `?waitMs=`. @default true */
  longPoll?: boolean;
  /**
   * Whether the step-run route takes `?waitMs=` too (a wf service does): its answer then waits for
   * the step like a long-poll and carries `stepStatus`. @default false (a service of the spec alone:
   * the ids at once)
   */
  waitOnRun?: boolean;
  /** How long each step "runs", in ms. @default 10 */
  stepDurationMs?: number;
  /** The result of an ASK (the answer JSON). @default `"answer to <question>"` */
  answer?: (step: RunStepRequest) => unknown;
  /** Makes a step fail: return its error. @default never */
  fail?: (step: RunStepRequest) => WireError | undefined;
  /** The model usage a finished step reports (`interpreter: "model"` with it). @default none */
  usage?: (step: RunStepRequest) => StepUsage | undefined;
}

interface Session {
  id: string;
  closed: boolean;
  createdAt: string;
  version: number;
  steps: StepStatus[];
}

interface StepEntry {
  status: StepStatus;
  waiters: Set<() => void>;
}

export interface FaultServer {
  baseUrl: string;
  apiKey: string | undefined;
  /** Scripts `fault` for the next `times` requests of `route`. */
  fault(route: FaultRoute, fault: Fault, times?: number): void;
  /** Requests received per route (faulted ones included). */
  readonly requests: Record<FaultRoute, number>;
  /** Sessions created. */
  readonly created: () => number;
  /** Sessions closed. */
  readonly closed: () => number;
  /** Sessions created and not closed. */
  openSessions(): number;
  /** Times each idempotency key's step was executed. */
  readonly executions: Map<string, number>;
  /** Every step executed, in order. */
  readonly steps: RunStepRequest[];
  /** The idempotency key each run request carried, in order of arrival (retries included). */
  readonly runKeys: string[];
  /** The body of each close request (parsed JSON; `undefined` for none), in order of arrival. */
  readonly closeBodies: unknown[];
  /** The body of each session create (parsed JSON; `undefined` for none), in order of arrival. */
  readonly createBodies: unknown[];
  close(): Promise<void>;
}

export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const longPoll = options.longPoll ?? true;
  const stepDurationMs = options.stepDurationMs ?? 10;
  const sessions = new Map<string, Session>();
  const stepsById = new Map<string, StepEntry>();
  const stepByKey = new Map<string, string>();
  const executions = new Map<string, number>();
  const executed: RunStepRequest[] = [];
  const runKeys: string[] = [];
  const closeBodies: unknown[] = [];
  const createBodies: unknown[] = [];
  const faults: Record<FaultRoute, Fault[]> = { create: [], run: [], stepStatus: [], close: [], sessionStatus: [], health: [] };
  const requests: Record<FaultRoute, number> = { create: 0, run: 0, stepStatus: 0, close: 0, sessionStatus: 0, health: 0 };
  const timers = new Set<NodeJS.Timeout>();
  let baseUrl = "";

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
    return timer;
  };

  const sessionStatus = (s: Session): SessionStatus => ({
    sessionId: s.id,
    kind: "STEP",
    workflowId: null,
    status: s.closed ? "SUCCEEDED" : "RUNNING",
    version: s.version,
    createdAt: s.createdAt,
    updatedAt: new Date().toISOString(),
    finishedAt: s.closed ? new Date().toISOString() : null,
    currentUrl: null,
    steps: s.steps,
    viewUrl: `${baseUrl}/apis/request/workflow/view/${s.id}`,
  });

  type Handled = { status: number; body: unknown } | { wait: Promise<{ status: number; body: unknown }> };

  /** Answers `answer()` once the step ended or `waitMs` passed, whichever comes first. */
  const whenEnded = (entry: StepEntry, waitMs: number, answer: () => unknown): Handled => {
    const finished = () => entry.status.status === "SUCCEEDED" || entry.status.status === "FAILED";
    if (finished() || waitMs <= 0) return { status: 200, body: answer() };
    return {
      wait: new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          timers.delete(timer);
          entry.waiters.delete(done);
          resolve({ status: 200, body: answer() });
        };
        const timer = later(waitMs, done);
        entry.waiters.add(done);
      }),
    };
  };
  const waitMsOf = (query: URLSearchParams) => Math.min(Number(query.get("waitMs") ?? 0) || 0, MAX_LONG_POLL_MS);
  const problem = (status: number, code: string, detail: string, extra: Record<string, unknown> = {}) => ({
    status,
    body: { type: "about:blank", title: code, status, code, detail, ...extra },
  });

  function route(method: string, path: string): { name: FaultRoute; id?: string } | undefined {
    let m: RegExpExecArray | null;
    if (method === "POST" && path === "/apis/request/workflow/step/create") return { name: "create" };
    if (method === "POST" && (m = /^\/apis\/request\/workflow\/step\/run\/([^/]+)$/.exec(path))) return { name: "run", id: m[1]! };
    if (method === "GET" && (m = /^\/apis\/request\/workflow\/step\/status\/([^/]+)$/.exec(path))) return { name: "stepStatus", id: m[1]! };
    if (method === "POST" && (m = /^\/apis\/request\/workflow\/step\/close\/([^/]+)$/.exec(path))) return { name: "close", id: m[1]! };
    if (method === "GET" && (m = /^\/apis\/request\/workflow\/status\/([^/]+)$/.exec(path))) return { name: "sessionStatus", id: m[1]! };
    if (method === "GET" && path === "/apis/request/health") return { name: "health" };
    return undefined;
  }

  function process(name: FaultRoute, id: string | undefined, req: IncomingMessage, body: string, query: URLSearchParams): Handled {
    switch (name) {
      case "health":
        return { status: 200, body: { status: "ok", version: "fault-server" } };
      case "create": {
        try {
          createBodies.push(body === "" ? undefined : JSON.parse(body));
        } catch {
          createBodies.push(body);
        }
        const sid = randomBytes(8).toString("hex");
        sessions.set(sid, { id: sid, closed: false, createdAt: new Date().toISOString(), version: 0, steps: [] });
        return { status: 200, body: { workflowId: sid, sessionToken: `tok-${sid}`, debuggerUrl: `${baseUrl}/apis/request/workflow/view/${sid}?token=tok-${sid}` } };
      }
      case "run": {
        const session = sessions.get(id!);
        if (!session) return problem(404, "WF_SESSION_NOT_FOUND", `No session ${id}.`);
        if (session.closed) return problem(409, "WF_SESSION_CLOSED", `Session ${id} is closed.`);
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          return problem(400, "WF_MALFORMED_JSON", "The body is not JSON.");
        }
        const parsed = RunStepRequest.safeParse(json);
        if (!parsed.success) {
          return problem(422, "WF_VALIDATION_FAILED", "The step is invalid.", {
            errors: parsed.error.issues.map((i) => ({ path: "/" + i.path.join("/"), message: i.path[0] === "type" ? "must be ACT or ASK" : i.message })),
          });
        }
        const keyHeader = req.headers[IDEMPOTENCY_KEY_HEADER];
        const key = typeof keyHeader === "string" ? keyHeader : `no-key-${randomBytes(4).toString("hex")}`;
        runKeys.push(key);
        const existing = stepByKey.get(`${id}/${key}`);
        const answered = (stepId: string): Handled => {
          const ids = { stepId, jobTaskId: `job-${id}` };
          if (!options.waitOnRun || waitMsOf(query) <= 0) return { status: 200, body: ids };
          const entry = stepsById.get(stepId)!;
          return whenEnded(entry, waitMsOf(query), () => ({ ...ids, stepStatus: { ...entry.status } }));
        };
        if (existing) return answered(existing);
        const step = parsed.data;
        const stepId = randomBytes(8).toString("hex");
        stepByKey.set(`${id}/${key}`, stepId);
        executions.set(key, (executions.get(key) ?? 0) + 1);
        executed.push(step);
        const status: StepStatus = {
          stepId,
          jobTaskId: `job-${id}`,
          sessionId: id!,
          index: session.steps.length,
          type: step.type,
          step: step.step,
          status: "RUNNING",
          createdAt: new Date().toISOString(),
          startedAt: new Date().toISOString(),
          finishedAt: null,
          durationMs: null,
        };
        session.steps.push(status);
        session.version++;
        const entry: StepEntry = { status, waiters: new Set() };
        stepsById.set(stepId, entry);
        later(stepDurationMs, () => {
          const failure = options.fail?.(step);
          status.finishedAt = new Date().toISOString();
          status.durationMs = stepDurationMs;
          const usage = options.usage?.(step);
          if (usage) Object.assign(status, { interpreter: "model", usage });
          if (failure) {
            status.status = "FAILED";
            status.error = failure;
          } else {
            status.status = "SUCCEEDED";
            status.result =
              step.type === "ASK" ? (options.answer ? options.answer(step) : `answer to ${step.step}`) : { action: "done", message: `did ${step.step}`, url: "about:blank" };
          }
          session.version++;
          for (const wake of entry.waiters) wake();
        });
        return answered(stepId);
      }
      case "stepStatus": {
        const entry = stepsById.get(id!);
        if (!entry) return problem(404, "WF_STEP_NOT_FOUND", `No step ${id}.`);
        return whenEnded(entry, longPoll ? waitMsOf(query) : 0, () => ({ ...entry.status }));
      }
      case "close": {
        try {
          closeBodies.push(body === "" ? undefined : JSON.parse(body));
        } catch {
          closeBodies.push(body);
        }
        const session = sessions.get(id!);
        if (!session) return problem(404, "WF_SESSION_NOT_FOUND", `No session ${id}.`);
        if (session.closed) return problem(409, "WF_SESSION_CLOSED", `Session ${id} is already closed.`);
        session.closed = true;
        session.version++;
        return { status: 200, body: sessionStatus(session) };
      }
      case "sessionStatus": {
        const session = sessions.get(id!);
        if (!session) return problem(404, "WF_SESSION_NOT_FOUND", `No session ${id}.`);
        return { status: 200, body: sessionStatus(session) };
      }
    }
  }

  const send = (res: ServerResponse, status: number, body: unknown, raw?: string) => {
    if (res.destroyed) return;
    const text = raw ?? JSON.stringify(body);
    res.writeHead(status, { "content-type": status >= 400 ? "application/problem+json" : "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const matched = route(req.method ?? "GET", url.pathname);
    if (!matched) {
      req.resume();
      return send(res, 404, { type: "about:blank", title: "Not Found", status: 404, code: "WF_ROUTE_NOT_FOUND" });
    }
    requests[matched.name]++;
    const fault = faults[matched.name].shift();
    if (fault?.kind === "drop-before-body") {
      req.socket.destroy();
      return;
    }
    if (options.apiKey !== undefined && req.headers[API_KEY_HEADER] !== options.apiKey) {
      req.resume();
      return send(res, 401, { type: "about:blank", title: "Unauthorized", status: 401, code: "WF_UNAUTHORIZED", detail: "Missing or wrong api-key header." });
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (fault?.kind === "status") {
        const headers: Record<string, string> = { "content-type": "application/problem+json" };
        if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
        const text = fault.body ?? JSON.stringify({ type: "about:blank", title: "Fault", status: fault.status, code: fault.code ?? "WF_FAULT", detail: `Scripted ${fault.status}.` });
        res.writeHead(fault.status, headers);
        res.end(text);
        return;
      }
      const handled = process(matched.name, matched.id, req, Buffer.concat(chunks).toString("utf8"), url.searchParams);
      const answer = (out: { status: number; body: unknown }) => {
        if (fault?.kind === "drop-after-body") return req.socket.destroy();
        if (fault?.kind === "malformed") return send(res, 200, undefined, fault.body ?? '{"stepId": "trunc');
        if (fault?.kind === "slow") return void later(fault.delayMs, () => send(res, out.status, out.body));
        send(res, out.status, out.body);
      };
      if ("wait" in handled) void handled.wait.then(answer);
      else answer(handled);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    apiKey: options.apiKey,
    fault(routeName, fault, times = 1) {
      for (let i = 0; i < times; i++) faults[routeName].push(fault);
    },
    requests,
    created: () => sessions.size,
    closed: () => [...sessions.values()].filter((s) => s.closed).length,
    openSessions: () => [...sessions.values()].filter((s) => !s.closed).length,
    executions,
    steps: executed,
    runKeys,
    closeBodies,
    createBodies,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
