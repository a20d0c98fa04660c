/**
 * The browser context opened ahead of the next session (`warmSessions`, `WarmSessionBrowser`):
 * it is there before the first session, a session takes it and the next one is opened, and a
 * session on it starts clean (nothing of an earlier session's storage). Off, no context is open
 * before a session. `"first"` (`wf run`'s one-session server): one before the first session, no
 * replacement after it. A session asked for while that context is still being opened (slowly, on
 * a loaded machine) waits for it rather than open a second one. Real Chromium, pages from disk.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext } from "playwright-core";
import { startServer, type RunningServer } from "../src/index.js";
import { prelaunchBrowser } from "../src/browser/prelaunch.js";
import { apiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-warm";
let pages: StaticServer;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-warm-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Waits until the browser has `count` contexts open (they are opened in the background). */
async function contexts(server: RunningServer, count: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; server.context.browser.contextCount !== count; ) {
    if (Date.now() > deadline) throw new Error(`expected ${count} browser contexts, found ${server.context.browser.contextCount}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the context opened ahead of the next session", () => {
  it("is open before the first session, is taken by it and replaced, and a session on it starts clean", async () => {
    const server = await startServer({ port: 0, apiKeys: [KEY], dataDir: join(root, "on"), databaseUrl: "memory:" });
    try {
      const api = apiClient(server.url, KEY);
      await contexts(server, 1);
      const first = (await api.create()).workflowId;
      // The first session's context plus the next one opened ahead.
      await contexts(server, 2);
      for (const step of [`go to "${pages.url}/visits.html"`, "reload", 'click "Visits: 2"']) {
        expect(await api.finished((await api.runOk(first, { type: "ACT", step })).stepId)).toMatchObject({ status: "SUCCEEDED" });
      }
      const second = (await api.create()).workflowId;
      await contexts(server, 3);
      // Its own storage: the first session's two visits are not there.
      for (const step of [`go to "${pages.url}/visits.html"`, 'click "Visits: 1"']) {
        expect(await api.finished((await api.runOk(second, { type: "ACT", step })).stepId)).toMatchObject({ status: "SUCCEEDED" });
      }
    } finally {
      await server.close();
    }
  }, 180_000);

  it("is not opened with warmSessions off", async () => {
    const server = await startServer({ port: 0, apiKeys: [KEY], dataDir: join(root, "off"), databaseUrl: "memory:", warmSessions: false });
    try {
      const api = apiClient(server.url, KEY);
      const id = (await api.create()).workflowId;
      expect(server.context.browser.contextCount).toBe(1);
      expect((await api.session(id)).status).toBe("RUNNING");
      expect(server.context.browser.contextCount).toBe(1);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("still being opened when the server starts and when the session is asked for, is waited for and taken: no second context is opened", async () => {
    const options = { port: 0, apiKeys: [KEY], dataDir: join(root, "slow-ahead"), databaseUrl: "memory:", warmSessions: "first" as const };
    // wf run's host, whose context opened ahead is slow to get ready (as its trace's start is under load).
    const host = prelaunchBrowser(options)!;
    let ready!: () => void;
    const gate = new Promise<void>((resolve) => (ready = resolve));
    let ahead: BrowserContext | undefined;
    host.openAhead(async (context) => {
      ahead = context;
      await gate;
    });
    const server = await startServer(options, process.env, { browser: host });
    try {
      const api = apiClient(server.url, KEY);
      const creating = api.create();
      // Longer than a create or the server's warm-up ever waited for it before opening another.
      await new Promise((r) => setTimeout(r, 4_000));
      ready();
      const id = (await creating).workflowId;
      expect(await api.finished((await api.runOk(id, { type: "ACT", step: `go to "${pages.url}/visits.html"` })).stepId)).toMatchObject({ status: "SUCCEEDED" });
      // The session's page is the one opened ahead, and it is the only context.
      expect(ahead?.pages().map((page) => page.url())).toEqual([`${pages.url}/visits.html`]);
      expect(server.context.browser.contextCount).toBe(1);
    } finally {
      ready();
      await server.close();
    }
  }, 180_000);

  it("with warmSessions \"first\" is open before the first session and not replaced once taken", async () => {
    const server = await startServer({ port: 0, apiKeys: [KEY], dataDir: join(root, "first"), databaseUrl: "memory:", warmSessions: "first" });
    try {
      const api = apiClient(server.url, KEY);
      await contexts(server, 1);
      const first = (await api.create()).workflowId;
      expect(await api.finished((await api.runOk(first, { type: "ACT", step: `go to "${pages.url}/visits.html"` })).stepId)).toMatchObject({ status: "SUCCEEDED" });
      // The session runs on the one opened ahead; no other was opened in its place.
      expect(server.context.browser.contextCount).toBe(1);
      const second = (await api.create()).workflowId;
      expect(server.context.browser.contextCount).toBe(2);
      expect(await api.finished((await api.runOk(second, { type: "ACT", step: `go to "${pages.url}/visits.html"` })).stepId)).toMatchObject({ status: "SUCCEEDED" });
      expect(server.context.browser.contextCount).toBe(2);
    } finally {
      await server.close();
    }
  }, 180_000);
});
