/**
 * Regression (issue 11): a renderer crash left a zombie session: it stayed RUNNING, every later
 * step failed "Page crashed", and it held a slot for the idle timeout (300 s). Now the session
 * ends FAILED with `WF_PAGE_CRASHED` and frees its slot. The crash is real: Chromium's own
 * `Page.crash` (DevTools protocol) kills the renderer of the session's page.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_LONG_POLL_MS, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-crash";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-crash-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, maxSessions: 1 });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("a crashed page ends its session FAILED with WF_PAGE_CRASHED and frees its slot", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  const url = `${pages.url}/form.html?crash-me`;
  expect((await api.finished((await api.runOk(workflowId, { type: "ACT", step: `go to "${url}"` })).stepId)).status).toBe("SUCCEEDED");

  const browser = await server.context.browser.start();
  const page = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === url);
  expect(page).toBeDefined();
  const cdp = await page!.context().newCDPSession(page!);
  await cdp.send("Page.crash").catch(() => undefined); // the answer never comes: the renderer is gone

  const ended = await api.session(workflowId, `?waitMs=${MAX_LONG_POLL_MS}`);
  expect(ended.status).toBe("FAILED");
  expect(ended.error).toMatchObject({ code: "WF_PAGE_CRASHED", message: expect.stringContaining("crashed") });
  // Later steps are refused at once, and the one slot is free for a new session.
  const late = await api.call("POST", routePath(ROUTES.stepRun, { id: workflowId }), { type: "ACT", step: "reload" });
  expect(late.status).toBe(409);
  const fresh = await api.create();
  expect((await api.finished((await api.runOk(fresh.workflowId, { type: "ACT", step: `go to "${pages.url}/index.html"` })).stepId)).status).toBe("SUCCEEDED");
});
