/**
 * Regression (issue 11): steps could open the server's own loopback address and other local
 * services. With `blockPrivateNetworks` (env `WF_BLOCK_PRIVATE_NETWORKS`) every request of a
 * session's browser to a loopback, private or link-local address is refused by a route on the
 * browser context, so nothing reaches the local service. Off by default (covered by every other
 * server test, which opens pages on 127.0.0.1).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { resolveServerOptions, startServer, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";

const KEY = "test-key-private-networks";
let server: RunningServer;
let local: Server;
let localPort: number;
let dataDir: string;
const hits: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-private-"));
  // A "local service" that records every request it gets.
  local = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/html" }).end("<title>internal admin</title><a href='/secret'>secret</a>");
  });
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
  localPort = (local.address() as AddressInfo).port;
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, blockPrivateNetworks: true });
});

afterAll(async () => {
  await server?.close();
  local?.closeAllConnections();
  await new Promise((resolve) => local?.close(resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("steps can't open loopback addresses (the server's own port included); nothing reaches them", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  const targets = [
    `http://127.0.0.1:${localPort}/`,
    `http://localhost:${localPort}/`,
    `http://127.1.2.3:${localPort}/`,
    `http://[::ffff:127.0.0.1]:${localPort}/`,
    `${server.url}/apis/request/health`,
  ];
  for (const url of targets) {
    const step = await api.finished((await api.runOk(workflowId, { type: "ACT", step: `go to "${url}"` })).stepId);
    expect(step.status, url).toBe("FAILED");
    expect(step.error?.message, url).toContain("ERR_BLOCKED_BY_CLIENT");
  }
  // A page handed in as currentDom can't load from them either (images, frames, scripts).
  const ask = await api.finished(
    (
      await api.runOk(workflowId, {
        type: "ASK",
        step: "What is the title?",
        currentDom: `<title>outside</title><img src="http://127.0.0.1:${localPort}/pixel.png"><iframe src="http://localhost:${localPort}/frame"></iframe><script src="http://127.0.0.1:${localPort}/x.js"></script>`,
      })
    ).stepId,
  );
  expect(ask.status).toBe("SUCCEEDED");
  const after = await api.finished((await api.runOk(workflowId, { type: "ACT", step: `go to "http://127.0.0.1:${localPort}/again"` })).stepId);
  expect(after.status).toBe("FAILED");
  expect(hits).toEqual([]);
});

it("is off by default and read from WF_BLOCK_PRIVATE_NETWORKS", () => {
  expect(resolveServerOptions({}, {}).blockPrivateNetworks).toBe(false);
  expect(resolveServerOptions({}, { WF_BLOCK_PRIVATE_NETWORKS: "1" }).blockPrivateNetworks).toBe(true);
  expect(resolveServerOptions({ blockPrivateNetworks: false }, { WF_BLOCK_PRIVATE_NETWORKS: "true" }).blockPrivateNetworks).toBe(false);
});
