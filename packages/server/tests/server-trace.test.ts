/**
 * Playwright traces of sessions over real HTTP with a real Chromium: a session created with
 * `trace: true` has its trace saved when it is closed and served (token or key) as a zip; one
 * created without has none; one still open when the server stops keeps it over the restart. And
 * the evidence a closed session keeps: the screenshot of a step that failed just before the close.
 * `wf run`'s server (`prelaunchBrowser` with `openPage` and `trace`): the context opened ahead
 * records the trace before the session is created; a session without `trace` on it has none.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, StepStatus, routePath } from "@wf/core/protocol";
import { unzipSync } from "fflate";
import { startServer, type RunningServer } from "../src/index.js";
import { prelaunchBrowser } from "../src/browser/prelaunch.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-trace";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;

const headers = { "api-key": KEY, "content-type": "application/json" };
async function post(path: string, body: unknown = {}): Promise<any> {
  const res = await fetch(server.url + path, { method: "POST", headers, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
async function step(sessionId: string, body: Record<string, unknown>): Promise<StepStatus> {
  const { stepId } = RunStepResponse.parse(await post(routePath(ROUTES.stepRun, { id: sessionId }), body));
  for (;;) {
    const res = await fetch(`${server.url}${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`, { headers });
    const status = StepStatus.parse(await res.json());
    if (status.status === "SUCCEEDED" || status.status === "FAILED") return status;
  }
}
const traceUrl = (id: string) => server.url + routePath(ROUTES.sessionTrace, { id });

/** A call as a saved trace records it when it begins (Playwright's `before` event). */
interface TraceCall {
  type: string;
  callId?: string;
  method?: string;
  title?: string;
  params?: { name?: string; url?: string; expression?: string };
  parentId?: string;
}

/** The calls the saved trace of session `id` records, in order (its `before` events). */
async function traceCalls(id: string): Promise<TraceCall[]> {
  const zip = unzipSync(new Uint8Array(await (await fetch(traceUrl(id), { headers })).arrayBuffer()));
  return new TextDecoder()
    .decode(zip["trace.trace"])
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TraceCall)
    .filter((e) => e.type === "before");
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-server-trace-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
});
afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("session traces", () => {
  it("trace: true records the session; the zip is served once it is closed, with the token or the key", async () => {
    const session = CreateSessionResponse.parse(await post(ROUTES.stepCreate, { browserMode: "REMOTE", trace: true }));
    const id = session.workflowId;
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/index.html` })).status).toBe("SUCCEEDED");

    const running = await fetch(traceUrl(id), { headers });
    expect(running.status).toBe(404);
    expect(await running.json()).toMatchObject({ code: "WF_TRACE_NOT_FOUND", detail: expect.stringContaining("still running") });

    await post(routePath(ROUTES.stepClose, { id }));
    expect((await fetch(traceUrl(id))).status).toBe(401);
    const byToken = await fetch(`${traceUrl(id)}?token=${encodeURIComponent(session.sessionToken)}`);
    expect(byToken.status).toBe(200);
    expect(byToken.headers.get("content-type")).toBe("application/zip");
    const zip = Buffer.from(await byToken.arrayBuffer());
    expect(zip.subarray(0, 2).toString("latin1")).toBe("PK");
    // The zip holds Playwright's trace events, with the navigation the step made.
    expect(zip.includes(Buffer.from("trace.trace"))).toBe(true);
    const byKey = await fetch(traceUrl(id), { headers });
    expect(byKey.status).toBe(200);
    expect(Buffer.from(await byKey.arrayBuffer()).equals(zip)).toBe(true);
  });

  it("a step's groups (step() of @wf/core) become nested trace groups around its actions; a later step outside them closes them", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, { trace: true }));
    const checkout = { id: "1", title: "checkout" };
    const signIn = { id: "2", title: "sign in" };
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/index.html`, groups: [checkout, signIn] })).status).toBe("SUCCEEDED");
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/form.html`, groups: [checkout] })).status).toBe("SUCCEEDED");
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/visits.html` })).status).toBe("SUCCEEDED");
    await post(routePath(ROUTES.stepClose, { id }));
    const befores = await traceCalls(id);
    const group = (name: string) => befores.find((e) => e.method === "tracingGroup" && e.title === name);
    const navigation = (page: string) => befores.find((e) => e.method === "goto" && e.params?.url?.endsWith(page));
    expect(group("checkout")).toBeDefined();
    expect(group("sign in")?.parentId).toBe(group("checkout")!.callId);
    expect(navigation("index.html")?.parentId).toBe(group("sign in")!.callId);
    expect(navigation("form.html")?.parentId).toBe(group("checkout")!.callId);
    expect(navigation("visits.html")?.parentId).toBeUndefined();
  });

  it("shows the steps' actions and reads, not wf's own probes of the page around them (decision 0074)", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, { trace: true }));
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/form.html` })).status).toBe("SUCCEEDED");
    expect((await step(id, { type: "ACT", step: 'fill "Item name" with "Milk"' })).status).toBe("SUCCEEDED");
    expect((await step(id, { type: "ACT", step: 'click "Add item"' })).status).toBe("SUCCEEDED");
    const asked = await step(id, { type: "ASK", step: "the count", schema: { type: "object", properties: { count: { type: "string" } }, required: ["count"], additionalProperties: false } });
    expect(asked, JSON.stringify(asked.error)).toMatchObject({ status: "SUCCEEDED", result: { count: "1" } });
    await post(routePath(ROUTES.stepClose, { id }));
    const befores = await traceCalls(id);
    const methods = befores.map((e) => e.method);
    // The actions, each with its snapshots, the grammar's looks for their targets (what a failed step's
    // trace shows: what was looked for), and the ASK's read of the page.
    expect(methods).toEqual(expect.arrayContaining(["goto", "fill", "click", "evalOnSelectorAll", "evaluateExpression"]));
    // The settle's probes (its DOM observer, `__wfQuiet`) are wf's own: not in the trace.
    const probes = befores.filter((e) => e.params?.expression?.includes("__wfQuiet"));
    expect(probes.map((e) => e.params!.expression!.slice(0, 80))).toEqual([]);
  });

  it("a traced session closed with discardTrace: true keeps no trace (the client drops a passing run's); a bad body is a 422", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, { trace: true }));
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/index.html` })).status).toBe("SUCCEEDED");
    const refused = await fetch(server.url + routePath(ROUTES.stepClose, { id }), { method: "POST", headers, body: JSON.stringify({ discardTrace: "yes" }) });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ code: "WF_VALIDATION_FAILED", errors: [{ path: "/discardTrace" }] });

    expect(await post(routePath(ROUTES.stepClose, { id }), { discardTrace: true })).toMatchObject({ status: "SUCCEEDED" });
    const res = await fetch(traceUrl(id), { headers });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "WF_TRACE_NOT_FOUND", detail: expect.stringContaining("discardTrace") });
    // Nothing was written for it.
    expect(existsSync(join(dataDir, "traces", `${id}.zip`))).toBe(false);
  });

  it("a session created without trace has none (404 WF_TRACE_NOT_FOUND); an unknown one is 404 with a key, 401 without", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, {}));
    await post(routePath(ROUTES.stepClose, { id }));
    const res = await fetch(traceUrl(id), { headers });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "WF_TRACE_NOT_FOUND" });
    expect((await fetch(traceUrl("nosuchsession"), { headers })).status).toBe(404);
    expect((await fetch(traceUrl("nosuchsession"))).status).toBe(401);
  });

  it("the screenshot of a step that failed is kept when the session is closed right after it", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, {}));
    await step(id, { type: "ACT", step: `go to ${pages.url}/index.html` });
    const failed = await step(id, { type: "ACT", step: 'click "No such button anywhere"' });
    expect(failed.status).toBe("FAILED");
    // As the runtime does: the failure ends the workflow, the session is closed at once.
    await post(routePath(ROUTES.stepClose, { id }));
    const shot = await fetch(`${server.url}${routePath(ROUTES.sessionView, { id })}/screenshots/${failed.stepId}`, { headers });
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/png");
  });

  it("a traced session still open when the server stops keeps its trace: after the restart it reads FAILED and the zip is served", async () => {
    const { workflowId: id } = CreateSessionResponse.parse(await post(ROUTES.stepCreate, { trace: true }));
    expect((await step(id, { type: "ACT", step: `go to ${pages.url}/index.html` })).status).toBe("SUCCEEDED");
    await server.close();
    server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
    const status = await (await fetch(server.url + routePath(ROUTES.sessionStatus, { id }), { headers })).json();
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_RESTARTED" } });
    const res = await fetch(traceUrl(id), { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    // A zip file starts with "PK".
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 2).toString("latin1")).toBe("PK");
  });
});

/** The `context-options` event of the trace in `zip` (its title and start time). */
function traceStart(zip: Buffer): { title?: string; wallTime: number } {
  const files = unzipSync(new Uint8Array(zip));
  const events = new TextDecoder().decode(files["trace.trace"]).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string });
  return events.find((e) => e.type === "context-options") as unknown as { title?: string; wallTime: number };
}

describe("traces of wf run's server (the context opened ahead records the trace)", () => {
  async function aheadServer(name: string): Promise<RunningServer> {
    const options = { port: 0, apiKeys: [KEY], dataDir: join(dataDir, name), databaseUrl: "memory:", warmSessions: "first" as const };
    const browser = prelaunchBrowser(options, process.env, { openPage: true, trace: true });
    return startServer(options, process.env, { browser });
  }
  const at = (running: RunningServer) => ({
    post: async (path: string, body: unknown = {}) => {
      const res = await fetch(running.url + path, { method: "POST", headers, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json();
    },
    trace: (id: string) => fetch(running.url + routePath(ROUTES.sessionTrace, { id }), { headers }),
  });

  it("a trace: true session keeps the trace its context started before the session was asked for, titled as any session's", async () => {
    const ahead = await aheadServer("ahead-traced");
    try {
      const api = at(ahead);
      // Created once the context opened ahead is ready: its page open and its trace started (the
      // context alone existing says neither; on a loaded machine both can take seconds more).
      expect(await ahead.context.browser.openedAheadReady()).toBe(true);
      const asked = Date.now();
      const session = CreateSessionResponse.parse(await api.post(ROUTES.stepCreate, { trace: true }));
      const id = session.workflowId;
      await api.post(routePath(ROUTES.stepClose, { id }));
      // Its context closes with it (the close may finish just after the answer on a loaded machine).
      for (const deadline = Date.now() + 10_000; ahead.context.browser.contextCount > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
      expect(ahead.context.browser.contextCount).toBe(0);
      const res = await api.trace(id);
      expect(res.status).toBe(200);
      const start = traceStart(Buffer.from(await res.arrayBuffer()));
      expect(start.title).toBe("wf session (STEP)");
      // Recording since before the session was asked for: the session ran on the context opened ahead.
      expect(start.wallTime).toBeLessThan(asked);
    } finally {
      await ahead.close();
    }
  });

  it("a session created without trace on that context has none (its recording is stopped unsaved)", async () => {
    const ahead = await aheadServer("ahead-untraced");
    try {
      const api = at(ahead);
      const { workflowId: id } = CreateSessionResponse.parse(await api.post(ROUTES.stepCreate, {}));
      await api.post(routePath(ROUTES.stepClose, { id }));
      const res = await api.trace(id);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: "WF_TRACE_NOT_FOUND" });
    } finally {
      await ahead.close();
    }
  });
});
