/**
 * Regression (issue 11): a corrupted line in the middle of the journal was dropped for good and
 * silently: its step was 404 after a restart and nothing was logged. Records are now rows of a
 * database; a row whose JSON no longer parses (damaged behind the server's back) is reported: a
 * warning in the log naming the record, and a 500 `WF_RECORD_CORRUPTED` naming it on every read
 * of that record, never a 404 or a status without it. The other records read as before.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, ROUTES, routePath } from "@wf/core/protocol";
import { startServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";
import { pgliteDatabase } from "../helpers/databases.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-corrupt";
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-corrupt-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("a corrupted step row is logged and answered as WF_RECORD_CORRUPTED naming it, not dropped", async () => {
  const first = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  let stepId: string;
  let otherStepId: string;
  let sessionId: string;
  try {
    const api = apiClient(first.url, KEY);
    sessionId = (await api.create()).workflowId;
    stepId = (await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId;
    await api.finished(stepId);
    otherStepId = (await api.runOk(sessionId, { step: "reload", type: "ACT" })).stepId;
    await api.finished(otherStepId);
  } finally {
    await first.close();
  }
  // A bad sector or a bad hand edit: the row's JSON is cut short.
  const db = pgliteDatabase();
  const damaged = await db.sql<{ step_id: string }>(dataDir, "UPDATE wf_steps SET record = substr(record, 1, 40) WHERE step_id = $1 RETURNING step_id", [stepId]);
  expect(damaged).toHaveLength(1);

  const logs: string[] = [];
  const second = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, logger: { level: "warn", stream: { write: (line: string) => void logs.push(line) } } });
  try {
    const api = apiClient(second.url, KEY);
    const step = await api.call("GET", routePath(ROUTES.stepStatus, { stepId }));
    expect(step.status).toBe(500);
    expect(step.headers.get("content-type")).toContain(PROBLEM_CONTENT_TYPE);
    expect(step.json).toMatchObject({ code: "WF_RECORD_CORRUPTED", record: { kind: "step", id: stepId } });
    expect(step.json.detail).toContain(stepId);
    // The session holding it is not shown without it either.
    const session = await api.call("GET", routePath(ROUTES.sessionStatus, { id: sessionId }));
    expect(session.status).toBe(500);
    expect(session.json.code).toBe("WF_RECORD_CORRUPTED");
    // The other step reads as before.
    expect((await api.finished(otherStepId)).status).toBe("SUCCEEDED");

    const warnings = logs.map((l) => JSON.parse(l) as { level: number; msg: string; record?: { id: string } }).filter((l) => l.level === 40);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0]!.record?.id).toBe(stepId);
    expect(warnings[0]!.msg).toContain(`step record ${stepId}`);
    expect(warnings[0]!.msg).toMatch(/corrupted/);
  } finally {
    await second.close();
  }
});
