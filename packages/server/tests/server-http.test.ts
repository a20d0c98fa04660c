/**
 * The step-mode service over real HTTP with a real Chromium: every route, every error code,
 * long-poll, idempotency, concurrency of sessions, currentDom, the debugger page. One server (so
 * one browser) for the file; pages served from disk.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext } from "playwright-core";
import {
  CreateSessionResponse,
  MAX_LONG_POLL_MS,
  PROBLEM_CONTENT_TYPE,
  ProblemDetails,
  ROUTES,
  RunStepResponse,
  SessionStatus,
  StepStatus,
  routePath,
} from "@wf/core/protocol";
import { startServer, VIEW_ROUTES, type RunningServer } from "../src/index.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-http";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; type: string; headers: Headers; json: any }> {
  const init: RequestInit = { method, headers: { "api-key": KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(server.url + path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, type: res.headers.get("content-type") ?? "", headers: res.headers, json };
}

function expectProblem(res: { status: number; type: string; json: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.type).toContain(PROBLEM_CONTENT_TYPE);
  expect(ProblemDetails.parse(res.json)).toMatchObject({ status, code });
}

async function createSession(): Promise<CreateSessionResponse> {
  const res = await call("POST", ROUTES.stepCreate, { browserMode: "REMOTE" });
  expect(res.status).toBe(200);
  return CreateSessionResponse.parse(res.json);
}

async function runStep(sessionId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await call("POST", routePath(ROUTES.stepRun, { id: sessionId }), body, headers);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return RunStepResponse.parse(res.json);
}

async function waitStep(stepId: string): Promise<StepStatus> {
  for (;;) {
    const res = await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`);
    expect(res.status).toBe(200);
    const status = StepStatus.parse(res.json);
    if (status.status === "SUCCEEDED" || status.status === "FAILED") return status;
  }
}

async function closeSession(id: string): Promise<void> {
  const res = await call("POST", routePath(ROUTES.stepClose, { id }));
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-server-http-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY, "second-key"], dataDir, maxSessions: 3, bodyLimitBytes: 64 * 1024, stepTimeoutMs: 20_000, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("health, OpenAPI, auth", () => {
  it("answers health without a key", async () => {
    const res = await fetch(server.url + ROUTES.health);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
  });

  it("serves an OpenAPI 3.1 document that covers the step-mode routes", async () => {
    const res = await call("GET", ROUTES.openapi);
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    for (const path of [ROUTES.stepCreate, ROUTES.stepRun, ROUTES.stepStatus, ROUTES.stepClose, ROUTES.sessionStatus, ROUTES.sessionView]) {
      expect(Object.keys(res.json.paths)).toContain(path);
    }
    const run = res.json.paths[ROUTES.stepRun].post;
    expect(run.requestBody.content["application/json"].schema.properties.type.enum).toEqual(["ACT", "ASK"]);
    expect(run.responses["422"].content[PROBLEM_CONTENT_TYPE]).toBeDefined();
  });

  it("documents every route from its declaration: summary, security, the protocol's field descriptions, problem answers", async () => {
    const { json } = await call("GET", ROUTES.openapi);
    expect(json.servers).toEqual([{ url: server.url }]);
    expect(json.components.schemas.ProblemDetails.properties.code).toBeDefined();
    const operations: Array<[string, string]> = [
      ["get", ROUTES.health], ["get", ROUTES.openapi], ["post", ROUTES.stepCreate], ["post", ROUTES.stepRun], ["get", ROUTES.stepStatus],
      ["post", ROUTES.stepClose], ["get", ROUTES.sessionStatus], ["post", ROUTES.sessionCancel], ["get", ROUTES.workflowList],
      ["post", ROUTES.workflowRun], ["post", ROUTES.workflowRunAlias], ["get", ROUTES.sessionView], ["get", VIEW_ROUTES.events],
      ["get", VIEW_ROUTES.screenshot], ["get", ROUTES.sessionTrace],
    ];
    for (const [method, path] of operations) {
      const op = json.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
      expect(op.responses["200"], `${method} ${path}`).toBeDefined();
      if (path === ROUTES.health) expect(op.security).toEqual([]);
      else expect(op.responses["401"].content[PROBLEM_CONTENT_TYPE].schema, `${method} ${path}`).toEqual({ $ref: "#/components/schemas/ProblemDetails" });
    }
    // The field descriptions of @wf/core/protocol reach the document.
    const create = json.paths[ROUTES.stepCreate].post;
    expect(create.requestBody.required).toBe(false);
    expect(create.requestBody.content["application/json"].schema.properties.browserMode.description).toMatch(/REMOTE/);
    expect(json.paths[ROUTES.stepRun].post.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: "header", name: "idempotency-key", description: expect.stringContaining("retry") })]),
    );
    const status = json.paths[ROUTES.sessionStatus].get;
    expect(status.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: "query", name: "since", description: expect.any(String) })]));
    expect(status.responses["200"].content["application/json"].schema.properties.version.description).toMatch(/since/);
  });

  it("401 without a key, with a wrong key, and with a wrong bearer; any header case and Bearer work", async () => {
    expectProblem(await call("GET", ROUTES.openapi, undefined, { "api-key": "" }), 401, "WF_UNAUTHORIZED");
    const noKey = await fetch(server.url + ROUTES.stepCreate, { method: "POST" });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
    expectProblem(await call("POST", ROUTES.stepCreate, {}, { "api-key": "wrong" }), 401, "WF_UNAUTHORIZED");
    const wrongBearer = await fetch(server.url + ROUTES.openapi, { headers: { Authorization: "Bearer wrong" } });
    expect(wrongBearer.status).toBe(401);
    const bearer = await fetch(server.url + ROUTES.openapi, { headers: { Authorization: "Bearer second-key" } });
    expect(bearer.status).toBe(200);
    const upper = await fetch(server.url + ROUTES.openapi, { headers: { "API-KEY": KEY } });
    expect(upper.status).toBe(200);
  });
});

describe("errors as problem details", () => {
  it("400 malformed JSON, 415 wrong content type, 413 body over the limit, 404 unknown route", async () => {
    expectProblem(await call("POST", ROUTES.stepCreate, "{not json"), 400, "WF_MALFORMED_JSON");
    expectProblem(await call("POST", ROUTES.stepCreate, "browserMode=REMOTE", { "content-type": "application/x-www-form-urlencoded" }), 415, "WF_UNSUPPORTED_MEDIA_TYPE");
    expectProblem(await call("POST", ROUTES.stepCreate, "{}", { "content-type": "text/plain" }), 415, "WF_UNSUPPORTED_MEDIA_TYPE");
    const big = { step: "x".repeat(10), type: "ASK", currentDom: "<p>" + "a".repeat(70 * 1024) + "</p>" };
    expectProblem(await call("POST", routePath(ROUTES.stepRun, { id: "0000" }), big), 413, "WF_BODY_TOO_LARGE");
    expectProblem(await call("GET", "/apis/request/nothing-here"), 404, "WF_ROUTE_NOT_FOUND");
    expectProblem(await call("GET", "/apis/request/workflow/status/%E0%A4%A"), 404, "WF_ROUTE_NOT_FOUND");
    expectProblem(await call("GET", ROUTES.stepCreate), 404, "WF_ROUTE_NOT_FOUND");
  });

  it("accepts JSON with a charset parameter, and no body at all on create", async () => {
    const withCharset = await call("POST", ROUTES.stepCreate, "{}", { "content-type": "application/json; charset=utf-8" });
    expect(withCharset.status).toBe(200);
    const noBody = await fetch(server.url + ROUTES.stepCreate, { method: "POST", headers: { "api-key": KEY } });
    expect(noBody.status).toBe(200);
    for (const created of [withCharset.json, await noBody.json()]) await closeSession(CreateSessionResponse.parse(created).workflowId);
  });

  it("422 with JSON Pointer paths; browserMode lists the allowed values; ACT with a schema", async () => {
    const mode = await call("POST", ROUTES.stepCreate, { browserMode: "LOCAL" });
    expectProblem(mode, 422, "WF_VALIDATION_FAILED");
    expect(mode.json.errors).toEqual([{ path: "/browserMode", message: expect.stringContaining("REMOTE") }]);

    const session = await createSession();
    const bad = await call("POST", routePath(ROUTES.stepRun, { id: session.workflowId }), { step: "", type: "CLICK" });
    expectProblem(bad, 422, "WF_VALIDATION_FAILED");
    expect(bad.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/step", "/type"]);

    const act = await call("POST", routePath(ROUTES.stepRun, { id: session.workflowId }), { step: "reload", type: "ACT", schema: { type: "object" } });
    expectProblem(act, 422, "WF_VALIDATION_FAILED");
    expect(act.json.errors[0].path).toBe("/schema");

    // An empty schema on an ACT is fine (the public samples send one).
    const ok = await runStep(session.workflowId, { step: `go to "${pages.url}/index.html"`, type: "ACT", schema: {} });
    expect((await waitStep(ok.stepId)).status).toBe("SUCCEEDED");
    expectProblem(await call("GET", `${routePath(ROUTES.stepStatus, { stepId: ok.stepId })}?waitMs=soon`), 422, "WF_VALIDATION_FAILED");
    await closeSession(session.workflowId);
  });

  it("404 unknown session and step; 409 after close; 429 when the pool is full, with Retry-After", async () => {
    expectProblem(await call("POST", routePath(ROUTES.stepRun, { id: "feedbeef" }), { step: "reload", type: "ACT" }), 404, "WF_SESSION_NOT_FOUND");
    expectProblem(await call("GET", routePath(ROUTES.stepStatus, { stepId: "feedbeef" })), 404, "WF_STEP_NOT_FOUND");
    expectProblem(await call("GET", routePath(ROUTES.sessionStatus, { id: "feedbeef" })), 404, "WF_SESSION_NOT_FOUND");
    expectProblem(await call("POST", routePath(ROUTES.stepClose, { id: "feedbeef" })), 404, "WF_SESSION_NOT_FOUND");

    const sessions = [await createSession(), await createSession(), await createSession()];
    const full = await call("POST", ROUTES.stepCreate, {});
    expectProblem(full, 429, "WF_TOO_MANY_SESSIONS");
    expect(Number(full.headers.get("retry-after"))).toBeGreaterThan(0);

    for (const s of sessions) await closeSession(s.workflowId);
    const closed = sessions[0]!.workflowId;
    expectProblem(await call("POST", routePath(ROUTES.stepRun, { id: closed }), { step: "reload", type: "ACT" }), 409, "WF_SESSION_CLOSED");
    expectProblem(await call("POST", routePath(ROUTES.stepClose, { id: closed }), undefined), 409, "WF_SESSION_CLOSED");
    const status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id: closed }))).json);
    expect(status.status).toBe("SUCCEEDED");
  });
});

describe("steps", () => {
  it("runs ACT and ASK steps; step and session status report results, timings and the page URL", async () => {
    const session = await createSession();
    const id = session.workflowId;
    const goto = await runStep(id, { step: `go to "${pages.url}/form.html"`, type: "ACT" });
    const fill = await runStep(id, { step: 'type "apples" into "Item name"', type: "ACT", currentDom: "", currentPageURL: "" });
    const click = await runStep(id, { step: 'click "Add item"', type: "ACT" });
    const ask = await runStep(id, {
      step: "What is the page title?",
      type: "ASK",
      schema: { type: "json_schema", json_schema: { name: "page", strict: true, schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"], additionalProperties: false } } },
    });
    expect(new Set([goto.jobTaskId, fill.jobTaskId, click.jobTaskId, ask.jobTaskId]).size).toBe(1);

    const answer = await waitStep(ask.stepId);
    expect(answer).toMatchObject({ status: "SUCCEEDED", type: "ASK", index: 3, sessionId: id, result: { title: "Item form" }, error: null });
    // No model configured: the grammar answered, at no token cost; an ASK resolves no instruction.
    expect(answer).toMatchObject({ interpreter: "grammar", usage: null });
    expect(answer).not.toHaveProperty("resolved");
    expect(answer.durationMs).toBeGreaterThanOrEqual(0);
    expect(answer.startedAt).not.toBeNull();

    const clicked = StepStatus.parse((await call("GET", routePath(ROUTES.stepStatus, { stepId: click.stepId }))).json);
    expect(clicked.status).toBe("SUCCEEDED");
    expect(clicked.result).toMatchObject({ url: `${pages.url}/form.html`, element: { role: "button", name: "Add item" } });
    expect(clicked).toMatchObject({ interpreter: "grammar", resolved: 'click "Add item"', usage: null });
    expect(clicked.pageUrl).toBe(`${pages.url}/form.html`);

    const status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id }))).json);
    expect(status).toMatchObject({ kind: "STEP", workflowId: null, status: "RUNNING", currentUrl: `${pages.url}/form.html` });
    expect(status.steps.map((s) => s.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    await closeSession(id);
  });

  it("a failing step reports its code and message; the session goes on", async () => {
    const session = await createSession();
    const goto = await runStep(session.workflowId, { step: `go to "${pages.url}/index.html"`, type: "ACT" });
    const missing = await runStep(session.workflowId, { step: 'click "No such button"', type: "ACT", timeoutMs: 3_000 });
    const failed = await waitStep(missing.stepId);
    expect(failed.status).toBe("FAILED");
    expect(failed.error?.code).toMatch(/^WF_/);
    expect(failed.error?.message.length).toBeGreaterThan(0);
    expect((await waitStep(goto.stepId)).status).toBe("SUCCEEDED");
    const next = await runStep(session.workflowId, { step: "What is the main heading?", type: "ASK" });
    expect(await waitStep(next.stepId)).toMatchObject({ status: "SUCCEEDED", result: "Fixture home" });
    await closeSession(session.workflowId);
  });

  it("a step that runs past its timeoutMs fails with WF_STEP_TIMEOUT", async () => {
    const session = await createSession();
    const slow = await runStep(session.workflowId, { step: "wait 5 seconds", type: "ACT", timeoutMs: 300 });
    expect(await waitStep(slow.stepId)).toMatchObject({ status: "FAILED", error: { code: "WF_STEP_TIMEOUT" } });
    await closeSession(session.workflowId);
  });

  it("long-poll: step status with waitMs answers when the step finishes; session status with since answers on change", async () => {
    const session = await createSession();
    const id = session.workflowId;
    const first = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id }))).json);
    const sessionPoll = call("GET", `${routePath(ROUTES.sessionStatus, { id })}?since=${first.version}&waitMs=20000`);
    const step = await runStep(id, { step: "wait 1 seconds", type: "ACT" });
    const changed = SessionStatus.parse((await sessionPoll).json);
    expect(changed.version).toBeGreaterThan(first.version);

    const polled = StepStatus.parse((await call("GET", `${routePath(ROUTES.stepStatus, { stepId: step.stepId })}?waitMs=20000`)).json);
    expect(polled.status).toBe("SUCCEEDED");

    // Without waitMs the status answers at once, whatever the state.
    const other = await runStep(id, { step: "wait 1 seconds", type: "ACT" });
    const now = StepStatus.parse((await call("GET", routePath(ROUTES.stepStatus, { stepId: other.stepId }))).json);
    expect(["QUEUED", "RUNNING"]).toContain(now.status);
    // waitMs=0 answers at once too; the final state arrives by long-poll.
    expect((await waitStep(other.stepId)).status).toBe("SUCCEEDED");

    // Session long-poll without since waits for the end of the session.
    const ended = call("GET", `${routePath(ROUTES.sessionStatus, { id })}?waitMs=20000`);
    await closeSession(id);
    const final = SessionStatus.parse((await ended).json);
    expect(final.status).toBe("SUCCEEDED");

    // With since, an ended session answers at once: no change can come, so the poll is not held
    // for its waitMs (regression: it used to hold the whole wait).
    const held = Symbol("held");
    const afterEnd = await Promise.race([
      call("GET", `${routePath(ROUTES.sessionStatus, { id })}?since=${final.version}&waitMs=30000`),
      new Promise<typeof held>((resolve) => setTimeout(() => resolve(held), 15_000).unref()),
    ]);
    expect(afterEnd).not.toBe(held);
  });

  it("step run with waitMs answers once the step ended, with its status; without, at once with the ids only", async () => {
    const session = await createSession();
    const id = session.workflowId;
    const run = (body: Record<string, unknown>, query = "", headers: Record<string, string> = {}) => call("POST", `${routePath(ROUTES.stepRun, { id })}${query}`, body, headers);

    const opened = await run({ step: `go to "${pages.url}/form.html"`, type: "ACT" }, "?waitMs=20000");
    expect(opened.status).toBe(200);
    const answer = RunStepResponse.parse(opened.json);
    expect(answer.stepStatus).toMatchObject({ stepId: answer.stepId, jobTaskId: answer.jobTaskId, status: "SUCCEEDED", pageUrl: `${pages.url}/form.html` });
    // The same status the status route gives.
    expect(StepStatus.parse((await call("GET", routePath(ROUTES.stepStatus, { stepId: answer.stepId }))).json)).toEqual(answer.stepStatus);

    // A failure comes in the answer too, and an ASK's answer.
    const missing = RunStepResponse.parse((await run({ step: 'click "No such button"', type: "ACT", timeoutMs: 15_000 }, "?waitMs=20000")).json);
    expect(missing.stepStatus).toMatchObject({ status: "FAILED", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    const title = RunStepResponse.parse((await run({ step: "What is the page title?", type: "ASK" }, "?waitMs=20000")).json);
    expect(title.stepStatus).toMatchObject({ status: "SUCCEEDED", type: "ASK" });
    expect(typeof title.stepStatus?.result).toBe("string");

    // A step longer than the wait: the answer comes at waitMs with the step still running.
    const slow = RunStepResponse.parse((await run({ step: "wait 1 seconds", type: "ACT" }, "?waitMs=100")).json);
    expect(["QUEUED", "RUNNING"]).toContain(slow.stepStatus?.status);
    expect((await waitStep(slow.stepId)).status).toBe("SUCCEEDED");

    // Without waitMs (or 0): the ids alone, at once, as the spec's answer.
    const plain = await run({ step: "wait 1 seconds", type: "ACT" });
    expect(Object.keys(plain.json).sort()).toEqual(["jobTaskId", "stepId"]);
    expect(Object.keys((await run({ step: "wait 1 seconds", type: "ACT" }, "?waitMs=0")).json).sort()).toEqual(["jobTaskId", "stepId"]);

    // A retry under the same idempotency key waits for and answers the first step.
    const headers = { "Idempotency-Key": "wait-retry-1" };
    const first = RunStepResponse.parse((await run({ step: "wait 100 ms", type: "ACT" }, "?waitMs=20000", headers)).json);
    const retried = RunStepResponse.parse((await run({ step: "wait 100 ms", type: "ACT" }, "?waitMs=20000", headers)).json);
    expect(retried).toEqual(first);
    expect(first.stepStatus?.status).toBe("SUCCEEDED");

    expectProblem(await run({ step: "wait 1 ms", type: "ACT" }, "?waitMs=soon"), 422, "WF_VALIDATION_FAILED");
    await closeSession(id);
  });

  it("idempotency: the same key returns the first step without running again, even while it runs; another body is a 422", async () => {
    const session = await createSession();
    const id = session.workflowId;
    await waitStep((await runStep(id, { step: `go to "${pages.url}/form.html"`, type: "ACT" })).stepId);
    await waitStep((await runStep(id, { step: 'type "pears" into "Item name"', type: "ACT" })).stepId);

    const body = { step: 'click "Add item"', type: "ACT" };
    const headers = { "Idempotency-Key": "add-pears-1" };
    const [a, b] = await Promise.all([runStep(id, body, headers), runStep(id, body, headers)]);
    expect(b).toEqual(a);
    await waitStep(a.stepId);
    const again = await runStep(id, body, headers);
    expect(again).toEqual(a);

    const reused = await call("POST", routePath(ROUTES.stepRun, { id }), { step: 'click "Other"', type: "ACT" }, headers);
    expectProblem(reused, 422, "WF_IDEMPOTENCY_KEY_REUSED");

    // The click ran once: one item in the list.
    const count = await runStep(id, { step: "What is the count?", type: "ASK", schema: { type: "object", properties: { count: { type: "number" } }, required: ["count"] } });
    expect((await waitStep(count.stepId)).result).toEqual({ count: 1 });
    const status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id }))).json);
    expect(status.steps).toHaveLength(4);
    await closeSession(id);
  });

  it("refuses file: URLs unless the server allows them (anyone with a key could read its files)", async () => {
    const session = await createSession();
    const refused = await waitStep((await runStep(session.workflowId, { step: "go to file:///etc/hostname", type: "ACT" })).stepId);
    expect(refused).toMatchObject({ status: "FAILED", error: { code: "WF_NAVIGATION_REFUSED" } });
    expect(refused.error!.message).toMatch(/allow-file-urls|allowFileUrls|WF_ALLOW_FILE_URLS/);
    await closeSession(session.workflowId);
  });

  it("redact: secret values reach the page but never the step's status, result or the records", async () => {
    const session = await createSession();
    const id = session.workflowId;
    await waitStep((await runStep(id, { step: `go to "${pages.url}/form.html"`, type: "ACT" })).stepId);
    const typed = await waitStep((await runStep(id, { step: 'type "hunter2-secret" into "Item name"', type: "ACT", redact: ["hunter2-secret"] })).stepId);
    expect(typed.status).toBe("SUCCEEDED");
    expect(typed.step).toBe('type "[secret]" into "Item name"');
    const asked = await waitStep(
      (await runStep(id, { step: "the value of Item name", type: "ASK", schema: { type: "object", properties: { itemName: { type: "string" } }, required: ["itemName"], additionalProperties: false }, redact: ["hunter2-secret"] })).stepId,
    );
    // The field really holds the secret (the interpreter got the real text) but the answer is masked.
    expect(asked.status, JSON.stringify(asked.error)).toBe("SUCCEEDED");
    expect(asked.result).toEqual({ itemName: "[secret]" });
    const status = (await call("GET", routePath(ROUTES.sessionStatus, { id }))).json;
    expect(JSON.stringify(status)).not.toContain("hunter2");
    await closeSession(id);
    const records = JSON.stringify(await server.context.store.getSession(id));
    expect(records).toContain(typed.stepId);
    expect(records).not.toContain("hunter2");
  });

  it("sessions run concurrently; steps within a session keep their order", async () => {
    const [s1, s2] = [await createSession(), await createSession()];
    const plan = (id: string, items: string[]) =>
      (async () => {
        const ids = [(await runStep(id, { step: `go to "${pages.url}/form.html"`, type: "ACT" })).stepId];
        for (const item of items) {
          ids.push((await runStep(id, { step: `type "${item}" into "Item name"`, type: "ACT" })).stepId);
          ids.push((await runStep(id, { step: 'click "Add item"', type: "ACT" })).stepId);
        }
        ids.push((await runStep(id, { step: "list the items", type: "ASK", schema: { type: "object", properties: { items: { type: "array", items: { type: "string" } } }, required: ["items"] } })).stepId);
        return ids;
      })();
    const [ids1, ids2] = await Promise.all([plan(s1.workflowId, ["a1", "a2", "a3"]), plan(s2.workflowId, ["b1", "b2"])]);
    const last1 = await waitStep(ids1.at(-1)!);
    const last2 = await waitStep(ids2.at(-1)!);
    expect(last1.result).toEqual({ items: ["a1", "a2", "a3"] });
    expect(last2.result).toEqual({ items: ["b1", "b2"] });

    for (const [session, ids] of [[s1, ids1], [s2, ids2]] as const) {
      const status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id: session.workflowId }))).json);
      expect(status.steps.map((s) => s.stepId)).toEqual(ids);
      // One at a time in arrival order: each step started after the previous one finished.
      for (let i = 1; i < status.steps.length; i++) {
        expect(Date.parse(status.steps[i]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(status.steps[i - 1]!.finishedAt!));
      }
    }
    await closeSession(s1.workflowId);
    await closeSession(s2.workflowId);
  });

  it("currentDom: an ASK reads the HTML sent, not the live page", async () => {
    const session = await createSession();
    await waitStep((await runStep(session.workflowId, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId);
    const html = "<html><head><title>Snapshot page</title></head><body><h1>Snapshot heading</h1><a href='next.html'>Next</a></body></html>";
    const ask = await runStep(session.workflowId, {
      step: "What are the title and heading?",
      type: "ASK",
      currentDom: html,
      currentPageURL: `${pages.url}/snap/`,
      schema: { type: "object", properties: { title: { type: "string" }, heading: { type: "string" } }, required: ["title", "heading"] },
    });
    expect((await waitStep(ask.stepId)).result).toEqual({ title: "Snapshot page", heading: "Snapshot heading" });
    // The live page is untouched.
    const live = await runStep(session.workflowId, { step: "What is the page title?", type: "ASK" });
    expect((await waitStep(live.stepId)).result).toBe("Fixture home");
    await closeSession(session.workflowId);
  });
});

describe("debugger page", () => {
  // A context of the server's own browser: one browser process for the whole file.
  let viewer: BrowserContext;
  beforeAll(async () => {
    viewer = await server.context.browser.newContext();
  });
  afterAll(async () => {
    await viewer?.close();
  });

  it("loads with the session token, shows the steps live and the screenshot after each step", async () => {
    const session = await createSession();
    const id = session.workflowId;
    await waitStep((await runStep(id, { step: `go to "${pages.url}/form.html"`, type: "ACT" })).stepId);

    const page = await viewer.newPage();
    // The page's script and style load under its policy: nothing blocked, nothing thrown.
    const problems: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && problems.push(`${message.text()} ${message.location().url}`)));
    page.on("pageerror", (error) => void problems.push(error.message));
    page.on("response", (response) => void (response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`)));
    await page.goto(session.debuggerUrl);
    await page.locator("li.step").first().waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(246, 246, 247)");
    expect(await page.locator("#session-id").textContent()).toBe(id);
    expect(await page.locator("#session-status").textContent()).toBe("RUNNING");
    expect(await page.locator("#current-url").textContent()).toBe(`${pages.url}/form.html`);

    // A new step appears without reloading.
    const typed = await runStep(id, { step: 'type "kiwi" into "Item name"', type: "ACT" });
    await waitStep(typed.stepId);
    await page.locator('li.step[data-status="SUCCEEDED"]').nth(1).waitFor();
    expect(await page.locator("li.step").nth(1).textContent()).toContain('type "kiwi" into "Item name"');
    // The picture taken after that step: it is saved just after the step's status says SUCCEEDED,
    // so the page shows it once the next update names it.
    const img = page.locator(`#shot img[src*="${typed.stepId}"]`);
    await img.waitFor();
    await expect.poll(() => img.evaluate((e) => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    // A step's text is shown as text: markup in it is not parsed, so no script of it runs.
    const marked = await runStep(id, { step: 'click "<img src=x onerror=document.title=1>"', type: "ACT" });
    await waitStep(marked.stepId);
    await page.locator("li.step").nth(2).waitFor();
    expect(await page.locator("li.step").nth(2).textContent()).toContain("<img src=x onerror=document.title=1>");
    expect(await page.locator("#steps img").count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();

    // Screenshots: PNG with the token, 401 without.
    const shot = await fetch(`${server.url}${routePath(ROUTES.sessionView, { id })}/screenshots/${typed.stepId}?token=${encodeURIComponent(session.sessionToken)}`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/png");
    expect((await shot.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const noToken = await fetch(`${server.url}${routePath(ROUTES.sessionView, { id })}/screenshots/${typed.stepId}`);
    expect(noToken.status).toBe(401);
    const wrongToken = await fetch(`${server.url}${routePath(ROUTES.sessionView, { id })}?token=nope`);
    expect(wrongToken.status).toBe(401);
    // The token is the handler's to check: a query the documented schema does not take (the token twice) is a 401, not a 422.
    for (const path of [routePath(ROUTES.sessionView, { id }), VIEW_ROUTES.events.replace("{id}", id), routePath(ROUTES.sessionTrace, { id })]) {
      const twice = await fetch(`${server.url}${path}?token=${encodeURIComponent(session.sessionToken)}&token=nope`);
      expect(twice.status, path).toBe(401);
      expect(twice.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
    }
    await closeSession(id);
  });
});
