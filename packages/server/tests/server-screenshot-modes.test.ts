/**
 * A session's `screenshot` mode (Playwright Test's values): `only-on-failure` takes the picture of
 * failed steps only, `off` none, and while a debugger page watches the session (its event stream
 * is open) every step gets one whatever the mode. Real Chromium, pages from disk.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, routePath, type CreateSessionResponse } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { VIEW_ROUTES } from "../src/http/view.js";
import { apiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-screenshot-modes";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-screenshot-modes-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:" });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function create(screenshot?: string): Promise<CreateSessionResponse> {
  const res = await apiClient(server.url, KEY).call("POST", ROUTES.stepCreate, screenshot === undefined ? {} : { screenshot });
  expect(res.status).toBe(200);
  return res.json as CreateSessionResponse;
}

/** Runs one step to its end; `ok` says whether it should succeed. @returns its step id */
async function step(sessionId: string, instruction: string, ok: boolean): Promise<string> {
  const api = apiClient(server.url, KEY);
  const { stepId } = await api.runOk(sessionId, { type: "ACT", step: instruction });
  expect((await api.finished(stepId)).status).toBe(ok ? "SUCCEEDED" : "FAILED");
  return stepId;
}

/** The HTTP status of a step's screenshot (200: there is one; 404: none). */
async function shot(session: CreateSessionResponse, stepId: string): Promise<number> {
  const res = await fetch(`${server.url}${routePath(VIEW_ROUTES.screenshot, { id: session.workflowId, stepId })}?token=${encodeURIComponent(session.sessionToken)}`);
  await res.arrayBuffer();
  return res.status;
}

/** Closes a session: the close waits for the last step's picture, so every answer after it is final. */
async function close(session: CreateSessionResponse): Promise<void> {
  expect((await apiClient(server.url, KEY).call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {})).status).toBe(200);
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !check(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

describe("screenshot modes", () => {
  it("only-on-failure: the failed step has a picture, the steps that succeeded have none", async () => {
    const session = await create("only-on-failure");
    const passed = await step(session.workflowId, `go to "${pages.url}/form.html"`, true);
    const failed = await step(session.workflowId, 'click "No such button anywhere"', false);
    const after = await step(session.workflowId, 'type "Ada" into "Item name"', true);
    await close(session);
    expect([await shot(session, passed), await shot(session, failed), await shot(session, after)]).toEqual([404, 200, 404]);
  });

  it("on: every step has a picture", async () => {
    const session = await create("on");
    const first = await step(session.workflowId, `go to "${pages.url}/form.html"`, true);
    const second = await step(session.workflowId, 'type "Ada" into "Item name"', true);
    await close(session);
    expect([await shot(session, first), await shot(session, second)]).toEqual([200, 200]);
  });

  it("only-on-failure by default, as Playwright Test: a step that succeeded has no picture, a failed one has", async () => {
    const session = await create();
    const passed = await step(session.workflowId, `go to "${pages.url}/form.html"`, true);
    const failed = await step(session.workflowId, 'click "No such button anywhere"', false);
    await close(session);
    expect([await shot(session, passed), await shot(session, failed)]).toEqual([404, 200]);
  });

  it("off, but a debugger page watching gets every step's picture while it is open", async () => {
    const session = await create("off");
    const before = await step(session.workflowId, `go to "${pages.url}/form.html"`, true);
    const failedUnwatched = await step(session.workflowId, 'click "No such button anywhere"', false);

    const watching = new AbortController();
    const stream = await fetch(`${server.url}${routePath(VIEW_ROUTES.events, { id: session.workflowId })}?token=${encodeURIComponent(session.sessionToken)}`, { signal: watching.signal });
    expect(stream.status).toBe(200);
    await until(() => server.context.sessions.viewCount(session.workflowId) === 1, "the debugger page watches");
    const watched = await step(session.workflowId, 'type "Ada" into "Item name"', true);
    watching.abort();
    await stream.body?.cancel().catch(() => undefined);
    await until(() => server.context.sessions.viewCount(session.workflowId) === 0, "the debugger page left");
    const afterwards = await step(session.workflowId, 'type "Grace" into "Item name"', true);
    await close(session);
    expect([await shot(session, before), await shot(session, failedUnwatched), await shot(session, watched), await shot(session, afterwards)]).toEqual([404, 404, 200, 404]);
  });

  it("refuses an unknown mode with a 422 naming the field", async () => {
    const res = await apiClient(server.url, KEY).call("POST", ROUTES.stepCreate, { screenshot: "sometimes" });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.json)).toContain("screenshot");
  });
});
