/**
 * The server's life cycle over real HTTP with a real Chromium: idle timeout, restart on the same
 * data directory without losing finished results (running ones become FAILED with a reason),
 * option resolution, and the start-up error for a missing browser. Servers in
 * this file run one after the other, so one browser at a time.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, SessionStatus, StepStatus, routePath } from "@wf/core/protocol";
import { isWfError } from "@wf/core";
import { resolveServerOptions, startServer, type RunningServer } from "../src/index.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-lifecycle";
let pages: StaticServer;
let dataDir: string;

function client(server: RunningServer) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "api-key": KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  return {
    call,
    async create() {
      return CreateSessionResponse.parse((await call("POST", ROUTES.stepCreate, {})).json);
    },
    async run(id: string, body: Record<string, unknown>) {
      return RunStepResponse.parse((await call("POST", routePath(ROUTES.stepRun, { id }), body)).json);
    },
    async step(stepId: string, waitMs = MAX_LONG_POLL_MS) {
      return StepStatus.parse((await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${waitMs}`)).json);
    },
    async session(id: string, query = "") {
      return SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id }) + query)).json);
    },
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-server-life-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("options", () => {
  it("resolves explicit option, then environment, then default", () => {
    const env = { WF_API_KEYS: "a, b,,", WF_PORT: "9999", WF_MAX_SESSIONS: "2", WF_PROXY_URL: "http://proxy:3128", WF_CHROMIUM_PATH: "/usr/bin/chromium" };
    const fromEnv = resolveServerOptions({}, env);
    expect(fromEnv).toMatchObject({ apiKeys: ["a", "b"], apiKeyGenerated: false, port: 9999, maxSessions: 2, proxyUrl: "http://proxy:3128", chromiumPath: "/usr/bin/chromium" });
    const explicit = resolveServerOptions({ apiKeys: ["x"], port: 0, maxSessions: 5 }, env);
    expect(explicit).toMatchObject({ apiKeys: ["x"], port: 0, maxSessions: 5 });
    const defaults = resolveServerOptions({}, {});
    expect(defaults).toMatchObject({ host: "127.0.0.1", port: 8787, maxSessions: 8, idleTimeoutMs: 300_000, stepTimeoutMs: 30_000, bodyLimitBytes: 1024 * 1024, logger: false, apiKeyGenerated: true });
    expect(defaults.apiKeys).toHaveLength(1);
    expect(defaults.dataDir.endsWith(".wf")).toBe(true);
    expect(resolveServerOptions({}, { WF_BROWSER_ENDPOINT: "http://grid:9222" })).toMatchObject({ browserEndpoint: "http://grid:9222", chromiumPath: undefined });
    // file: URLs are refused unless asked for; the option beats the environment.
    expect(defaults.allowFileUrls).toBe(false);
    expect(resolveServerOptions({}, { WF_ALLOW_FILE_URLS: "1" }).allowFileUrls).toBe(true);
    expect(resolveServerOptions({ allowFileUrls: false }, { WF_ALLOW_FILE_URLS: "true" }).allowFileUrls).toBe(false);
    expect(() => resolveServerOptions({}, { WF_ALLOW_FILE_URLS: "sometimes" })).toThrow(/WF_ALLOW_FILE_URLS="sometimes" is not a yes\/no value/);
  });

  it("a missing browser is a start-up error that says how to install one", async () => {
    const error = await startServer({ port: 0, apiKeys: [KEY], dataDir, chromiumPath: "/nonexistent/chromium" }).catch((e: unknown) => e);
    expect(isWfError(error)).toBe(true);
    expect((error as { code: string }).code).toBe("WF_BROWSER_NOT_FOUND");
    expect((error as Error).message).toContain("wf install-browser");
    expect((error as Error).message).toContain("apt-get install chromium");
    expect((error as Error).message).toContain("WF_CHROMIUM_PATH");
    expect((error as Error).message).toContain("WF_BROWSER_ENDPOINT");
  });
});

describe("restart and idle timeout", () => {
  it("a restart keeps finished results and fails what was running, with a reason", async () => {
    const first = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: true });
    let sessionId: string;
    let doneStepId: string;
    let runningStepId: string;
    let queuedStepId: string;
    try {
      const api = client(first);
      const session = await api.create();
      sessionId = session.workflowId;
      const home = await api.call("POST", routePath(ROUTES.stepRun, { id: sessionId }), { step: `go to "${pages.url}/index.html"`, type: "ACT" }, { "idempotency-key": "go-home" });
      doneStepId = RunStepResponse.parse(home.json).stepId;
      expect((await api.step(doneStepId)).status).toBe("SUCCEEDED");
      runningStepId = (await api.run(sessionId, { step: "wait 20 seconds", type: "ACT", timeoutMs: 60_000 })).stepId;
      queuedStepId = (await api.run(sessionId, { step: "reload", type: "ACT" })).stepId;
      // Wait until the long step runs.
      let status = await api.session(sessionId);
      while (status.steps[1]?.status !== "RUNNING") status = await api.session(sessionId, `?since=${status.version}&waitMs=10000`);
    } finally {
      await first.close();
    }
    const second = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: true });
    try {
      const api = client(second);
      const done = await api.step(doneStepId, 0);
      expect(done).toMatchObject({ status: "SUCCEEDED", result: { url: `${pages.url}/index.html` } });
      for (const stepId of [runningStepId, queuedStepId]) {
        const step = await api.step(stepId, 0);
        expect(step.status).toBe("FAILED");
        expect(step.error?.code).toBe("WF_SERVER_RESTARTED");
        expect(step.error?.message).toMatch(/server stopped/);
      }
      const session = await api.session(sessionId);
      expect(session).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_RESTARTED" } });
      expect(session.steps.map((s) => s.status)).toEqual(["SUCCEEDED", "FAILED", "FAILED"]);
      expect((await api.call("POST", routePath(ROUTES.stepRun, { id: sessionId }), { step: "reload", type: "ACT" })).status).toBe(409);
      // Idempotency keys survive the restart: a retry of the first step gets its ids back.
      const retry = await api.call("POST", routePath(ROUTES.stepRun, { id: sessionId }), { step: `go to "${pages.url}/index.html"`, type: "ACT" }, { "idempotency-key": "go-home" });
      expect(retry.status).toBe(200);
      expect(retry.json.stepId).toBe(doneStepId);

      // The restarted server works.
      const fresh = await api.create();
      expect((await api.step((await api.run(fresh.workflowId, { step: `go to "${pages.url}/form.html"`, type: "ACT" })).stepId)).status).toBe("SUCCEEDED");
    } finally {
      await second.close();
    }
  });

  it("the idle timeout closes a session without steps: CANCELLED with WF_SESSION_IDLE_TIMEOUT, then 409; a lost browser fails sessions, then 503", async () => {
    const server = await startServer({ port: 0, apiKeys: [KEY], dataDir, idleTimeoutMs: 1_000, journalSync: false });
    try {
      const api = client(server);
      const session = await api.create();
      const step = await api.run(session.workflowId, { step: `go to "${pages.url}/index.html"`, type: "ACT" });
      expect((await api.step(step.stepId)).status).toBe("SUCCEEDED");
      const ended = await api.session(session.workflowId, `?waitMs=${MAX_LONG_POLL_MS}`);
      expect(ended).toMatchObject({ status: "CANCELLED", error: { code: "WF_SESSION_IDLE_TIMEOUT" } });
      expect(ended.steps[0]?.status).toBe("SUCCEEDED");
      const late = await api.call("POST", routePath(ROUTES.stepRun, { id: session.workflowId }), { step: "reload", type: "ACT" });
      expect(late.status).toBe(409);
      expect(late.json.code).toBe("WF_SESSION_CLOSED");
      // Its browser context is freed: the pool counts it no more.
      expect(server.context.sessions.openSessionCount).toBe(0);

      // When the browser goes away, open sessions end FAILED and a new session is a 503 with Retry-After.
      const open = await api.create();
      // A running step keeps the session from idling: on a loaded machine the 1 s idle timeout
      // could otherwise end it (CANCELLED) before the browser is gone.
      await api.run(open.workflowId, { step: "wait 20 seconds", type: "ACT", timeoutMs: 60_000 });
      await server.context.browser.close();
      const lost = await api.session(open.workflowId, `?waitMs=${MAX_LONG_POLL_MS}`);
      expect(lost).toMatchObject({ status: "FAILED", error: { code: "WF_BROWSER_CLOSED" } });
      const res = await fetch(server.url + ROUTES.stepCreate, { method: "POST", headers: { "api-key": KEY } });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await res.json()) as { code: string }).code).toBe("WF_BROWSER_UNAVAILABLE");
    } finally {
      await server.close();
    }
  });
});
