/**
 * Browser faults never wedge a session (issue 33), through the real server and Chromium: a page
 * that spins its main thread and a page that raises an alert every 10 ms each fail their step with
 * `WF_PAGE_UNRESPONSIVE` by the step's deadline; after it the session answers its next step at
 * once, `close` answers at once and the slot is free for the next session. Time caps here only
 * prove "did not hang"; they are far above what the steps take.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient, type ApiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-faults";
/** Far above anything here takes; reaching it means something hung. */
const HANG_CAP_MS = 20_000;
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;
let api: ApiClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-faults-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/", import.meta.url)));
  // One slot: a session that is not freed makes the next create a 429.
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", maxSessions: 1 });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Runs `promise`, failing the test when it takes over {@link HANG_CAP_MS}. */
async function answers<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${HANG_CAP_MS} ms`)), HANG_CAP_MS)));
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

async function step(id: string, instruction: string, timeoutMs = 15_000) {
  return answers(`the step ${JSON.stringify(instruction)}`, api.runOk(id, { type: "ACT", step: instruction, timeoutMs }).then((s) => api.finished(s.stepId)));
}

async function close(id: string) {
  return answers("close", api.call("POST", routePath(ROUTES.stepClose, { id }), {}));
}

it("a page spinning its main thread fails WF_PAGE_UNRESPONSIVE; the next step runs, close answers and the slot is freed", async () => {
  const { workflowId } = await api.create();
  expect((await step(workflowId, `go to "${pages.url}/faults/freeze.html"`)).status).toBe("SUCCEEDED");
  const hung = await step(workflowId, `click "Build report"`, 4_000);
  expect(hung.status).toBe("FAILED");
  expect(hung.error).toMatchObject({ code: "WF_PAGE_UNRESPONSIVE", message: expect.stringContaining("stopped responding") });
  // The hung page was closed: the session carries on in a new tab, at once.
  const next = await step(workflowId, `go to "${pages.url}/server/index.html"`);
  expect(next.status).toBe("SUCCEEDED");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("close right after an unresponsive step answers at once and frees the slot", async () => {
  const { workflowId } = await api.create();
  await step(workflowId, `go to "${pages.url}/faults/freeze.html"`);
  expect((await step(workflowId, `click "Build report"`, 4_000)).error?.code).toBe("WF_PAGE_UNRESPONSIVE");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("a page raising an alert every 10 ms fails its step WF_PAGE_UNRESPONSIVE, its dialogs listed; the next step runs, close answers and the slot is freed", async () => {
  const { workflowId } = await api.create();
  await step(workflowId, `go to "${pages.url}/faults/alerts.html"`);
  // The click that starts the loop is done; the dialogs it ran into are listed.
  const start = await step(workflowId, `click "Start warnings"`);
  expect(start.dialogs?.[0]).toMatchObject({ type: "alert", message: "Your session is about to expire.", handled: "accepted" });
  // Whatever a step does now lands between two alerts by chance: the step fails once the loop is
  // plain (10 dialogs within 5 s), saying why, and the page is closed.
  const storm = await step(workflowId, `wait for "Kept"`);
  expect(storm.status).toBe("FAILED");
  expect(storm.error).toMatchObject({ code: "WF_PAGE_UNRESPONSIVE", message: expect.stringContaining("dialogs in a loop") });
  expect(storm.dialogs?.[0]?.count).toBeGreaterThanOrEqual(1);
  const next = await step(workflowId, `go to "${pages.url}/server/index.html"`);
  expect(next.status).toBe("SUCCEEDED");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});
