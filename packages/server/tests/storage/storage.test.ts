/**
 * The storage suite, run over both drivers (the embedded PGlite and a real PostgreSQL): what an
 * acknowledgement promises must hold whatever happens to the process or the database.
 * - kill -9 of a server process in the middle of a run loses no acknowledged session or step;
 * - a failing write (a full disk, stood for by `beforeStoreCommit`, inside the transaction) is a
 *   503 with nothing half-registered, and the server recovers once writes work;
 * - a record damaged behind the server's back is reported (logged, and a 500 naming it), not dropped;
 * - the retention sweep deletes finished sessions, their steps and screenshots, and nothing open.
 * PostgreSQL runs as a throwaway cluster (`helpers/postgres.ts`); without its binaries these
 * tests fail with the install command.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, sweepOnce, type BeforeCommit, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";
import { pgliteDatabase, postgresDatabase, prepare, type TestDatabase } from "../helpers/databases.js";
import { spawnServer } from "../helpers/server-process.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-storage";

let pages: StaticServer;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-storage-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

let dirs = 0;
async function newDataDir(database: TestDatabase): Promise<string> {
  const dir = join(root, `${database.driver}-${++dirs}`);
  await prepare(database, dir);
  return dir;
}

const drivers: Array<[string, () => Promise<TestDatabase>]> = [
  ["PGlite (embedded)", async () => pgliteDatabase()],
  ["PostgreSQL", () => postgresDatabase()],
];

describe.each(drivers)("storage over %s", (_name, open) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await open();
  }, 180_000);

  afterAll(async () => {
    await database?.stop();
  });

  it("kill -9 in the middle of a run loses no acknowledged session or step", async () => {
    const dataDir = await newDataDir(database);
    const { child, url } = await spawnServer(KEY, database.env(dataDir));
    const api = apiClient(url, KEY);
    const sessions: string[] = [];
    const acked: Array<{ sessionId: string; stepId: string; index: number }> = [];
    const succeeded = new Set<string>();
    let killed = false;
    try {
      for (let i = 0; i < 2; i++) sessions.push((await api.create()).workflowId);
      // Steps keep arriving in both sessions; the process is killed while some are in flight.
      const submit = async (sessionId: string) => {
        for (let i = 0; !killed; i++) {
          const step = i % 2 === 0 ? `go to "${pages.url}/index.html"` : "reload";
          // As the runtime sends them (a key, the answer waiting for the outcome: one commit per
          // step, or the row written before an answer that leaves first), and without.
          const waitMs = [0, 1, 30_000][i % 3]!;
          const res = await (waitMs === 0
            ? api.run(sessionId, { step, type: "ACT" })
            : api.call("POST", `${routePath(ROUTES.stepRun, { id: sessionId })}?waitMs=${waitMs}`, { step, type: "ACT" }, { "idempotency-key": `k${i}` })
          ).catch(() => undefined);
          if (!res || res.status !== 200) return;
          acked.push({ sessionId, stepId: res.json.stepId, index: i });
          if (i === 2) {
            const done = await api.call("GET", `${routePath(ROUTES.stepStatus, { stepId: res.json.stepId })}?waitMs=30000`).catch(() => undefined);
            if (done?.json.status === "SUCCEEDED") succeeded.add(res.json.stepId);
          }
        }
      };
      const running = sessions.map(submit);
      while (acked.length < 12) await new Promise((r) => setTimeout(r, 20));
      killed = true;
      child.kill("SIGKILL");
      await Promise.all(running);
    } finally {
      if (!killed) child.kill("SIGKILL");
    }
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once("exit", r)));
    expect(acked.length).toBeGreaterThanOrEqual(12);
    expect(succeeded.size).toBeGreaterThan(0);

    const server = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir) });
    try {
      const after = apiClient(server.url, KEY);
      for (const sessionId of sessions) {
        const status = await after.session(sessionId);
        expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_RESTARTED" } });
        const ackedHere = acked.filter((a) => a.sessionId === sessionId);
        // Every acknowledged step is there, in the order it was acknowledged.
        expect(status.steps.map((s) => s.stepId).slice(0, ackedHere.length)).toEqual(ackedHere.map((a) => a.stepId));
        for (const step of status.steps) {
          if (succeeded.has(step.stepId)) expect(step.status).toBe("SUCCEEDED");
          else expect(["SUCCEEDED", "FAILED"]).toContain(step.status);
        }
      }
    } finally {
      await server.close();
    }
  }, 240_000);

  it("a failing write answers 503 with nothing half-registered, then the server recovers", async () => {
    const dataDir = await newDataDir(database);
    const disk = fillableDisk();
    const server: RunningServer = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir), beforeStoreCommit: disk.beforeStoreCommit, maxSessions: 2 });
    let sessionId: string;
    let retriedStepId: string;
    try {
      const api = apiClient(server.url, KEY);
      sessionId = (await api.create()).workflowId;
      const first = await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" });
      expect((await api.finished(first.stepId)).status).toBe("SUCCEEDED");

      disk.full = true;
      for (let i = 0; i < 3; i++) {
        const created = await api.call("POST", ROUTES.stepCreate, {});
        expect(created.status).toBe(503);
        expect(created.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
        expect(created.json.code).toBe("WF_STORAGE_UNAVAILABLE");
        expect(Number(created.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(server.context.sessions.openSessionCount).toBe(1);
      const refused = await api.run(sessionId, { step: `go to "${pages.url}/form.html"`, type: "ACT" }, { "idempotency-key": "to-form" });
      expect(refused.status).toBe(503);
      expect((await api.session(sessionId)).steps).toHaveLength(1);

      disk.full = false;
      const retried = await api.runOk(sessionId, { step: `go to "${pages.url}/form.html"`, type: "ACT" }, { "idempotency-key": "to-form" });
      retriedStepId = retried.stepId;
      expect(await api.finished(retried.stepId)).toMatchObject({ status: "SUCCEEDED", index: 1 });
      await api.create();
    } finally {
      disk.full = false;
      await server.close();
    }
    // What the database holds: the two acknowledged sessions and steps, nothing of the refused writes.
    const sessions = await database.sql<{ n: number }>(dataDir, "SELECT count(*)::int AS n FROM wf_sessions");
    expect(sessions[0]!.n).toBe(2);
    const steps = await database.sql<{ step_id: string; idx: number }>(dataDir, "SELECT step_id, idx FROM wf_steps WHERE session_id = $1 ORDER BY idx", [sessionId]);
    expect(steps.map((s) => s.idx)).toEqual([0, 1]);
    expect(steps[1]!.step_id).toBe(retriedStepId);
  }, 240_000);

  it("a step whose answer waits for its outcome is one commit; answered before it ends, its row is committed before the answer", async () => {
    const dataDir = await newDataDir(database);
    const commits: Array<{ operation: string; stepId: string; status: string }> = [];
    const beforeStoreCommit: BeforeCommit = (operation, record) => {
      if (record && "stepId" in record) commits.push({ operation, stepId: record.stepId, status: record.status });
    };
    const server = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir), journalSync: false, beforeStoreCommit });
    const of = (stepId: string) => commits.filter((c) => c.stepId === stepId).map((c) => `${c.operation} ${c.status}`);
    try {
      const api = apiClient(server.url, KEY);
      const sessionId = (await api.create()).workflowId;
      const run = (waitMs: number, key?: string) =>
        api.call("POST", `${routePath(ROUTES.stepRun, { id: sessionId })}?waitMs=${waitMs}`, { step: `go to "${pages.url}/index.html"`, type: "ACT" }, key ? { "idempotency-key": key } : {});

      // (A step still running after 250 ms also commits RUNNING, decision 0035: on a loaded
      // machine a navigation may, so those writes are left out of the comparisons.)
      const quick = (stepId: string) => of(stepId).filter((c) => !c.endsWith(" RUNNING"));

      // Keyed, answered with its outcome: no QUEUED commit, the outcome's transaction creates the row.
      const once = await run(30_000, "once");
      expect(once.json.stepStatus.status).toBe("SUCCEEDED");
      expect(quick(once.json.stepId)).toEqual(["saveStep SUCCEEDED"]);
      expect(of(once.json.stepId)).not.toContain("saveStep RUNNING");

      // Without a key, a 503 could not be retried safely: QUEUED is committed first, as before.
      const keyless = await run(30_000);
      expect(keyless.json.stepStatus.status).toBe("SUCCEEDED");
      expect(quick(keyless.json.stepId)).toEqual(["createStep QUEUED", "saveStep SUCCEEDED"]);

      // The answer leaves while the step still runs (a navigation takes more than 1 ms): its row
      // was committed before the answer left, then its outcome updates it.
      const early = await run(1, "early");
      expect(["QUEUED", "RUNNING"]).toContain(early.json.stepStatus.status);
      expect(of(early.json.stepId)).toEqual([expect.stringMatching(/^createStep (QUEUED|RUNNING)$/)]);
      expect((await api.finished(early.json.stepId)).status).toBe("SUCCEEDED");
      expect(of(early.json.stepId).filter((c) => c !== "saveStep RUNNING")).toEqual([expect.stringMatching(/^createStep (QUEUED|RUNNING)$/), "saveStep SUCCEEDED"]);

      // A retry with the same key gets the same step; the session lists every step, in order.
      const retry = await run(30_000, "once");
      expect(retry.json.stepId).toBe(once.json.stepId);
      expect((await api.session(sessionId)).steps.map((s) => s.stepId)).toEqual([once.json.stepId, keyless.json.stepId, early.json.stepId]);
    } finally {
      await server.close();
    }
    const steps = await database.sql<{ step_id: string; status: string }>(dataDir, "SELECT step_id, status FROM wf_steps ORDER BY idx");
    expect(steps.map((s) => s.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  }, 240_000);

  it("a step whose row could not be written when its answer had to leave is answered 503, and its key's retry gets it once the store works", async () => {
    const dataDir = await newDataDir(database);
    const disk = fillableDisk();
    const server = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir), journalSync: false, beforeStoreCommit: disk.beforeStoreCommit });
    let sessionId: string;
    let stepId: string;
    try {
      const api = apiClient(server.url, KEY);
      sessionId = (await api.create()).workflowId;
      const path = (waitMs: number) => `${routePath(ROUTES.stepRun, { id: sessionId })}?waitMs=${waitMs}`;
      const body = { step: `go to "${pages.url}/form.html"`, type: "ACT" };
      disk.full = true;
      const refused = await api.call("POST", path(1), body, { "idempotency-key": "to-form" });
      expect(refused.status).toBe(503);
      expect(refused.json.code).toBe("WF_STORAGE_UNAVAILABLE");
      // Nothing answers with a step that has no row: the session's status is refused too.
      expect((await api.call("GET", routePath(ROUTES.sessionStatus, { id: sessionId }))).status).toBe(503);

      disk.full = false;
      const retried = await api.call("POST", path(30_000), body, { "idempotency-key": "to-form" });
      expect(retried.status).toBe(200);
      stepId = retried.json.stepId;
      expect(await api.finished(stepId)).toMatchObject({ status: "SUCCEEDED", index: 0 });
      expect((await api.session(sessionId)).steps.map((s) => s.stepId)).toEqual([stepId]);
    } finally {
      disk.full = false;
      await server.close();
    }
    const steps = await database.sql<{ step_id: string; status: string }>(dataDir, "SELECT step_id, status FROM wf_steps WHERE session_id = $1", [sessionId]);
    expect(steps).toEqual([{ step_id: stepId, status: "SUCCEEDED" }]);
  }, 240_000);

  it("a record damaged behind the server's back is logged and answered WF_RECORD_CORRUPTED, not dropped", async () => {
    const dataDir = await newDataDir(database);
    let sessionId: string;
    let stepId: string;
    const first = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir), journalSync: false });
    try {
      const api = apiClient(first.url, KEY);
      sessionId = (await api.create()).workflowId;
      stepId = (await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId;
      await api.finished(stepId);
    } finally {
      await first.close();
    }
    await database.sql(dataDir, "UPDATE wf_sessions SET record = '{\"sessionId\": \"' || session_id WHERE session_id = $1", [sessionId]);

    const logs: string[] = [];
    const second = await startServer({
      port: 0,
      apiKeys: [KEY],
      ...database.serverOptions(dataDir),
      journalSync: false,
      logger: { level: "warn", stream: { write: (line: string) => void logs.push(line) } },
    });
    try {
      const api = apiClient(second.url, KEY);
      // The restart reported it (the session was open, so the restart had to read it).
      const atStart = logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
      expect(atStart.map((l) => l.msg).join("\n")).toContain(`session record ${sessionId}`);
      const res = await api.call("GET", routePath(ROUTES.sessionStatus, { id: sessionId }));
      expect(res.status).toBe(500);
      expect(res.json).toMatchObject({ code: "WF_RECORD_CORRUPTED", record: { kind: "session", id: sessionId } });
      expect(res.json.detail).toContain(sessionId);
      // Its step is intact and still readable on its own.
      expect((await api.finished(stepId)).status).toBe("SUCCEEDED");
    } finally {
      await second.close();
    }
  }, 240_000);

  it("the retention sweep deletes finished sessions older than retentionDays, with their steps and screenshots, and nothing open", async () => {
    const dataDir = await newDataDir(database);
    const server = await startServer({ port: 0, apiKeys: [KEY], ...database.serverOptions(dataDir), journalSync: false, retentionDays: 1 });
    try {
      const api = apiClient(server.url, KEY);
      const old = (await api.create({ screenshot: "on" })).workflowId;
      const oldStep = (await api.runOk(old, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId;
      await api.finished(oldStep);
      // The screenshot is written after the answer; wait for it (a loaded machine can take seconds).
      let shot: string | undefined;
      for (const deadline = Date.now() + 60_000; !shot && Date.now() < deadline; ) {
        shot = await server.context.sessions.screenshotPath(oldStep);
        if (!shot) await new Promise((r) => setTimeout(r, 50));
      }
      expect(shot && existsSync(shot)).toBe(true);
      expect((await api.call("POST", routePath(ROUTES.stepClose, { id: old }))).status).toBe(200);
      const open = (await api.create()).workflowId;

      // Just now finished: kept. Two days later: deleted (retention is one day).
      expect(await sweepOnce(server.context, 1)).toMatchObject({ sessions: 0, steps: 0 });
      const swept = await sweepOnce(server.context, 1, new Date(Date.now() + 2 * 24 * 3_600_000));
      expect(swept).toMatchObject({ sessions: 1, steps: 1, stepIds: [oldStep] });
      expect((await api.call("GET", routePath(ROUTES.sessionStatus, { id: old }))).status).toBe(404);
      expect((await api.call("GET", routePath(ROUTES.stepStatus, { stepId: oldStep }))).status).toBe(404);
      expect(existsSync(shot!)).toBe(false);
      expect((await api.session(open)).status).toBe("RUNNING");
    } finally {
      await server.close();
    }
  }, 240_000);
});

/** A disk that fills on demand: while `full`, every commit fails inside its transaction as PostgreSQL's "disk full" (SQLSTATE 53100) does. */
function fillableDisk(): { full: boolean; beforeStoreCommit: BeforeCommit } {
  const disk = {
    full: false,
    beforeStoreCommit: (() => {
      if (disk.full) throw Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" });
    }) as BeforeCommit,
  };
  return disk;
}
