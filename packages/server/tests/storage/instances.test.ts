/**
 * Several server instances on one PostgreSQL (`src/cluster/instances.ts`): two server processes on a
 * throwaway cluster share the work. A session created on A is answered by B (status, long-poll,
 * debugger screenshot); a step submitted through B runs in A's browser; a retry through the other
 * instance finds the first step; A killed with SIGKILL → once its lease runs out, B reports A's
 * session and its unfinished step FAILED `WF_SERVER_LOST`. And a restart of one instance ends only
 * its own open sessions, never the other's.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, routePath, SessionStatus } from "@wf/core/protocol";
import { startServer } from "../../src/index.js";
import { apiClient, type ApiClient } from "../helpers/api.js";
import { postgresDatabase, prepare, type TestDatabase } from "../helpers/databases.js";
import { exited, spawnServer } from "../helpers/server-process.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-instances";
/**
 * Short leases so a lost instance is noticed within seconds; not so short that a live instance
 * whose thread a loaded machine holds up for a second or two (Chromium starting beside a test
 * suite) is taken for lost (it is renewed every third of the lease).
 */
const LEASE_MS = "6000";

let pages: StaticServer;
let root: string;
let database: TestDatabase;
const children: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-instances-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
  database = await postgresDatabase();
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(children.map(exited));
  await database?.stop();
  await pages?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Data folders of instances sharing the first one's database. */
async function sharedDatabase(count: number): Promise<Array<{ dataDir: string; env: Record<string, string> }>> {
  const dirs = Array.from({ length: count }, (_, i) => join(root, `${Date.now()}-${i}`));
  await prepare(database, dirs[0]!);
  const url = database.env(dirs[0]!).WF_DATABASE_URL!;
  return dirs.map((dataDir) => ({ dataDir, env: { WF_DATA_DIR: dataDir, WF_DATABASE_URL: url, WF_INSTANCE_LEASE_MS: LEASE_MS } }));
}

async function spawnInstance(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; api: ApiClient }> {
  const { child, url } = await spawnServer(KEY, env);
  children.push(child);
  return { child, url, api: apiClient(url, KEY) };
}

/** Polls until `check` returns a value (or the deadline passes, then fails with the last answer). */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("several instances on one PostgreSQL", () => {
  it("share the work: create on A, status, long-poll and a step through B run in A's browser; A killed → WF_SERVER_LOST on B", async () => {
    const [a, b] = await sharedDatabase(2);
    const A = await spawnInstance(a!.env);
    const B = await spawnInstance(b!.env);

    const { workflowId: sessionId } = await A.api.create({ screenshot: "on" });
    // B answers for a session it does not hold.
    const first = await B.api.session(sessionId);
    expect(first).toMatchObject({ sessionId, status: "RUNNING", steps: [] });

    // A long-poll on B wakes when the session changes; the step is submitted through B.
    const polled = B.api.session(sessionId, `?since=${first.version}&waitMs=25000`);
    const run = await B.api.runOk(sessionId, { type: "ACT", step: `go to "${pages.url}/form.html"` }, { "Idempotency-Key": "step-1" });
    expect((await polled).version).toBeGreaterThan(first.version);
    const done = await B.api.finished(run.stepId);
    expect(done, JSON.stringify(done.error)).toMatchObject({ status: "SUCCEEDED", pageUrl: `${pages.url}/form.html` });

    // The same key through A finds B's step: one step, run once.
    const retry = await A.api.runOk(sessionId, { type: "ACT", step: `go to "${pages.url}/form.html"` }, { "Idempotency-Key": "step-1" });
    expect(retry.stepId).toBe(run.stepId);

    // It ran in A's browser: the picture after it is on A's disk, none on B's, and B serves it.
    const picture = await eventually("the step's screenshot on A's disk", async () =>
      existsSync(join(a!.dataDir, "screenshots", `${run.stepId}.png`)) ? true : undefined,
    );
    expect(picture).toBe(true);
    expect(existsSync(join(b!.dataDir, "screenshots")) ? readdirSync(join(b!.dataDir, "screenshots")) : []).toEqual([]);
    const view = await A.api.session(sessionId);
    const shot = await B.api.call(
      "GET",
      `${routePath(ROUTES.sessionView, { id: sessionId })}/screenshots/${run.stepId}?token=${encodeURIComponent(new URL(viewUrlOf(view)).searchParams.get("token")!)}`,
    );
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toContain("image/png");
    // The debugger page itself, opened through B with the session token.
    const page = await fetch(`${B.url}${new URL(viewUrlOf(view)).pathname}${new URL(viewUrlOf(view)).search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("debugger.js");
    // The page is the same for every session: what it shows of this one comes from its event stream, through B too.
    const events = await fetch(`${B.url}${new URL(viewUrlOf(view)).pathname}/events${new URL(viewUrlOf(view)).search}`);
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(`"sessionId":"${sessionId}"`);
    await reader.cancel();

    // A second step through B sees the page the first left in A's browser.
    const second = await B.api.runOk(sessionId, { type: "ACT", step: "reload" });
    const reloaded = await B.api.finished(second.stepId);
    expect(reloaded, JSON.stringify(reloaded.error)).toMatchObject({ status: "SUCCEEDED", pageUrl: `${pages.url}/form.html` });

    // A step still waiting when A dies: a long wait on the page.
    const waiting = await B.api.runOk(sessionId, { type: "ACT", step: "wait for 30000 ms", timeoutMs: 60_000 });
    await eventually("the waiting step running", async () => ((await B.api.call("GET", routePath(ROUTES.stepStatus, { stepId: waiting.stepId }))).json.status === "RUNNING" ? true : undefined));
    A.child.kill("SIGKILL");
    await exited(A.child);

    // Until A's lease runs out B answers from the database or says A is unreachable (503); then A's session is lost.
    const lost = await eventually("A's session ended as lost", async () => {
      const res = await B.api.call("GET", `${routePath(ROUTES.sessionStatus, { id: sessionId })}?waitMs=5000`);
      if (res.status === 503) {
        expect(res.json.code).toBe("WF_INSTANCE_UNREACHABLE");
        return undefined;
      }
      expect(res.status).toBe(200);
      const status = SessionStatus.parse(res.json);
      return status.status === "RUNNING" ? undefined : status;
    });
    expect(lost).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_LOST" } });
    expect(lost.steps.map((s) => s.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "FAILED"]);
    expect(lost.steps[2]!.error?.code).toBe("WF_SERVER_LOST");
    // B keeps its own sessions and takes new work.
    const own = await B.api.create();
    const step = await B.api.runOk(own.workflowId, { type: "ACT", step: `go to "${pages.url}/index.html"` });
    expect(await B.api.finished(step.stepId)).toMatchObject({ status: "SUCCEEDED" });
  }, 180_000);

  it("a restarted instance ends only its own open sessions (WF_SERVER_RESTARTED), not another instance's", async () => {
    const [a, b] = await sharedDatabase(2);
    const B = await spawnInstance(b!.env);
    // A's lease (the default 30 s) outlasts its restart: B must not take A's sessions for lost meanwhile.
    const first = await startServer({ port: 0, apiKeys: [KEY], dataDir: a!.dataDir, databaseUrl: a!.env.WF_DATABASE_URL });
    const onA = await apiClient(first.url, KEY).create();
    const onB = await B.api.create();
    await first.close();
    // Same data folder, so the same instance id: its session from before ends at start.
    const again = await startServer({ port: 0, apiKeys: [KEY], dataDir: a!.dataDir, databaseUrl: a!.env.WF_DATABASE_URL });
    try {
      const api = apiClient(again.url, KEY);
      expect(await api.session(onA.workflowId)).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_RESTARTED" } });
      // B's session is untouched and still runs steps, also when asked through the restarted instance.
      const step = await api.runOk(onB.workflowId, { type: "ACT", step: `go to "${pages.url}/index.html"` });
      expect(await api.finished(step.stepId)).toMatchObject({ status: "SUCCEEDED" });
      expect(await B.api.session(onB.workflowId)).toMatchObject({ status: "RUNNING" });
    } finally {
      await again.close();
    }
  }, 180_000);
});

describe("a request forwarded to the instance holding its session", () => {
  it("is answered as the holder answers it: a deeply nested body, an undecodable query, an event stream the client leaves; nothing fails on the forwarding instance", async () => {
    const [a, b] = await sharedDatabase(2);
    const errors: string[] = [];
    const logger = { level: "error", stream: { write: (line: string) => void errors.push(line) } };
    const start = (dataDir: string) => startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: a!.env.WF_DATABASE_URL, journalSync: false, logger });
    const holder = await start(a!.dataDir);
    const other = await start(b!.dataDir);
    try {
      const direct = apiClient(holder.url, KEY);
      const forwarded = apiClient(other.url, KEY);
      const session = await direct.create();
      const id = session.workflowId;
      const same = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
        const there = await direct.call(method, path, body, headers);
        const here = await forwarded.call(method, path, body, headers);
        expect(here.status, `${method} ${path.slice(0, 80)}`).toBe(there.status);
        expect(here.status).toBeLessThan(500);
        return here;
      };
      // 50,000 levels of nesting: the forward must not re-encode the body (that overflowed the stack).
      const deep = `{"type":"ASK","step":"the title","schema":${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}}`;
      await same("POST", routePath(ROUTES.stepRun, { id }), deep);
      // A body whose content type has parameters reaches the holder as sent.
      const step = await same("POST", routePath(ROUTES.stepRun, { id }), JSON.stringify({ type: "ACT", step: `go to "${pages.url}/index.html"` }), {
        "content-type": "application/json; charset=utf-8",
        "idempotency-key": "same-step",
      });
      expect((await forwarded.finished(step.json.stepId)).status).toBe("SUCCEEDED");
      await same("GET", `${routePath(ROUTES.sessionStatus, { id })}?%zz&waitMs=0`);
      // The debugger's event stream, left by the client after its first event.
      const events = await fetch(`${other.url}${routePath(ROUTES.sessionView, { id })}/events?token=${encodeURIComponent(session.sessionToken)}`);
      expect(events.status).toBe(200);
      const reader = events.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: status");
      await reader.cancel();
      // Requests after it are answered, and neither instance logged an error.
      expect((await forwarded.session(id)).status).toBe("RUNNING");
      expect((await forwarded.call("GET", ROUTES.health)).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await other.close();
      await holder.close();
    }
  }, 180_000);
});

function viewUrlOf(status: SessionStatus): string {
  if (!status.viewUrl) throw new Error("the session status has no viewUrl");
  return status.viewUrl;
}
