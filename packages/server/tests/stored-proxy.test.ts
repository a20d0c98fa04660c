/**
 * `proxy: true` on a stored run, over real HTTP with a real Chromium: the session's browser
 * context goes through the proxy the server is configured with (a tiny counting proxy written for
 * the test), and a run without `proxy` does not. The pages live under a made-up host that only
 * the proxy serves, so a page that loads proves the proxy carried it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, RunWorkflowResponse, SessionStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { startCountingProxy, startPageServer, WORKFLOWS_DIR, type CountingProxy, type LocalServer } from "./fixtures/stored/servers.js";

const KEY = "test-key-stored-proxy";
const PROXIED_SITE = "http://pages.wf.test/";

let proxy: CountingProxy;
let pages: LocalServer;
let dataDir: string;
let server: RunningServer;

async function run(body: Record<string, unknown>): Promise<SessionStatus> {
  const res = await fetch(server.url + ROUTES.workflowRunAlias, {
    method: "POST",
    headers: { "api-key": KEY, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const { sessionId } = RunWorkflowResponse.parse(await res.json());
  const status = await fetch(`${server.url}${routePath(ROUTES.sessionStatus, { id: sessionId })}?waitMs=30000`, { headers: { "api-key": KEY } });
  return SessionStatus.parse(await status.json());
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-stored-proxy-"));
  proxy = await startCountingProxy();
  pages = await startPageServer();
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, workflowsDir: WORKFLOWS_DIR, proxyUrl: proxy.url, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  await proxy?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("proxy", () => {
  it("runs the session's browser behind the configured proxy when the run asks for it", async () => {
    const final = await run({ workflowId: "read-title", variables: { url: `${PROXIED_SITE}page-5.html` }, proxy: true });
    expect(final.status, JSON.stringify(final.error)).toBe("SUCCEEDED");
    expect(final.output).toEqual({ title: "Page 5" });
    expect(proxy.requests).toContain(`${PROXIED_SITE}page-5.html`);
  });

  it("leaves a run without proxy off it", async () => {
    const before = proxy.requests.length;
    const final = await run({ workflowId: "read-title", variables: { url: `${pages.url}page-1.html` }, proxy: false });
    expect(final.status, JSON.stringify(final.error)).toBe("SUCCEEDED");
    expect(final.output).toEqual({ title: "Page 1" });
    expect(proxy.requests.length).toBe(before);
  });
});
