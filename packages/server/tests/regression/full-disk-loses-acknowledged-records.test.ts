/**
 * Regression (issue 11): a full disk lost acknowledged records. A failed journal write left
 * partial bytes that the next batch appended onto, and `createSession`/`submitStep` registered the
 * session or step before the write and never undid it: 500s for steps that still ran, leaked
 * session slots, and a session created (200) once space was back was 404 after a restart.
 *
 * The full disk is a database write that fails on purpose (`beforeStoreCommit`): while
 * `diskFull` is set, every write transaction has made its changes and then fails with ENOSPC
 * before it commits, so the database really rolls it back, like PostgreSQL on a filling disk.
 * Everything else (the server, HTTP, the database, Chromium) is real. A tmpfs would need root and
 * a mount, which CI machines don't give. The same failure over both drivers is in
 * `tests/storage/`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type BeforeCommit, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-full-disk";
let pages: StaticServer;
let dataDir: string;
let diskFull = false;
/** Called with the record of every write refused while the disk is full. */
let onRefused: (record: Record<string, unknown> | undefined) => void = () => undefined;

const beforeStoreCommit: BeforeCommit = (_operation, record) => {
  if (!diskFull) return;
  onRefused(record as Record<string, unknown> | undefined);
  throw Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" });
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-full-disk-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a full disk", () => {
  it("answers 503 WF_STORAGE_UNAVAILABLE with nothing half-registered, and recovers when space returns", async () => {
    // No context opened ahead (warmSessions): each refused create would start opening the next one
    // in the background, and the exact count of contexts below would race with it.
    let server: RunningServer | undefined = await startServer({ port: 0, apiKeys: [KEY], dataDir, maxSessions: 2, journalSync: true, beforeStoreCommit, warmSessions: false });
    let createdAfter: string;
    let sessionId: string;
    let retriedStepId: string;
    try {
      const api = apiClient(server.url, KEY);
      const browser = await server.context.browser.start();
      const session = await api.create();
      sessionId = session.workflowId;
      const first = await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" });
      expect((await api.finished(first.stepId)).status).toBe("SUCCEEDED");

      diskFull = true;
      // More creates than there are slots: each is a 503, none leaks a slot or a browser context.
      for (let i = 0; i < 3; i++) {
        const res = await api.call("POST", ROUTES.stepCreate, {});
        expect(res.status).toBe(503);
        expect(res.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
        expect(res.json).toMatchObject({ code: "WF_STORAGE_UNAVAILABLE", status: 503 });
        expect(res.json.detail).toMatch(/disk space/);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(server.context.sessions.openSessionCount).toBe(1);
      expect(browser.contexts()).toHaveLength(1);

      // A step that can't be recorded is a 503 and does not run (the page stays where it was).
      const step = { step: `go to "${pages.url}/form.html"`, type: "ACT" };
      const refused = await api.run(sessionId, step, { "idempotency-key": "to-form" });
      expect(refused.status).toBe(503);
      expect(refused.json.code).toBe("WF_STORAGE_UNAVAILABLE");
      const during = await api.session(sessionId);
      expect(during.steps.map((s) => s.stepId)).toEqual([first.stepId]);
      expect(during.currentUrl).toBe(`${pages.url}/index.html`);
      expect(browser.contexts()[0]!.pages()[0]!.url()).toBe(`${pages.url}/index.html`);

      // Space returns: the same request (same idempotency key) now runs, once; creates work again.
      diskFull = false;
      const retried = await api.runOk(sessionId, step, { "idempotency-key": "to-form" });
      retriedStepId = retried.stepId;
      expect(await api.finished(retried.stepId)).toMatchObject({ status: "SUCCEEDED", index: 1, pageUrl: `${pages.url}/form.html` });
      createdAfter = (await api.create()).workflowId;
      expect(server.context.sessions.openSessionCount).toBe(2);
    } finally {
      diskFull = false;
      await server.close();
    }

    // After a restart, what was acknowledged is there, and what was refused is not.
    server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: true });
    try {
      const api = apiClient(server.url, KEY);
      const after = await api.session(createdAfter);
      expect(after.error?.code).toBe("WF_SERVER_RESTARTED");
      const before = await api.session(sessionId);
      expect(before.steps.map((s) => [s.stepId, s.status])).toEqual([
        [expect.any(String), "SUCCEEDED"],
        [retriedStepId, "SUCCEEDED"],
      ]);
      const again = await api.call("POST", routePath(ROUTES.stepRun, { id: sessionId }), { step: "reload", type: "ACT" });
      expect(again.status).toBe(409);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("a step that ends while the disk is full is shown finished only once its end is written, and the operator is told", async () => {
    const logs: Array<{ level: number; msg: string }> = [];
    const logger = { level: "info", stream: { write: (line: string) => void logs.push(JSON.parse(line) as { level: number; msg: string }) } };
    let server: RunningServer = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: true, beforeStoreCommit, logger });
    let sessionId: string;
    let stepId = "";
    try {
      const api = apiClient(server.url, KEY);
      sessionId = (await api.create()).workflowId;
      await api.finished((await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId);
      // The step is recorded, then the disk fills while it runs.
      const endRefused = new Promise<void>((resolve) => {
        onRefused = (record) => {
          if (record?.stepId === stepId && record.status === "SUCCEEDED") resolve();
        };
      });
      const submitted = await api.runOk(sessionId, { step: "wait 1 second", type: "ACT" });
      stepId = submitted.stepId;
      diskFull = true;
      await endRefused;
      const during = await api.call("GET", routePath(ROUTES.stepStatus, { stepId }));
      expect(during.json.status).toBe("RUNNING");
      diskFull = false;
      expect(await api.finished(stepId)).toMatchObject({ status: "SUCCEEDED" });
      // Issue 25: the retried write was silent. One warning (level 40) names the step and the
      // cause, and one line says when writes go through again.
      const warnings = logs.filter((l) => l.level === 40 && l.msg.includes("is retried every 5 s"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toContain(`the outcome of step ${stepId} could not be written`);
      expect(warnings[0]!.msg).toContain("No space left on device");
      expect(logs.filter((l) => l.level === 30 && l.msg.includes("no write waits for"))).toHaveLength(1);
    } finally {
      diskFull = false;
      onRefused = () => undefined;
      await server.close();
    }
    server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: true });
    try {
      const step = await apiClient(server.url, KEY).call("GET", routePath(ROUTES.stepStatus, { stepId }));
      expect(step.json).toMatchObject({ status: "SUCCEEDED", sessionId });
    } finally {
      await server.close();
    }
  }, 120_000);
});
