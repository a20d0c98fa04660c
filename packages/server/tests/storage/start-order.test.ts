/**
 * The server's browser launches while its store opens (issue 26), and `wf run` launches it even
 * earlier, while `@wf/server` is imported (`prelaunchBrowser`). The rule of issue 25 still holds:
 * a damaged store is reported as such, never blamed on the browser, even when the browser fails
 * too; and a browser launched for a server that then refuses to start is closed, not left running.
 * A page opened with that browser (`openPage`, for `wf run`'s one session) is taken by the first
 * session that needs nothing more (no proxy, no private-network guard).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isWfError } from "@wf/core";
import { isHttpProblem, openStore, PGLITE_DIR, startServer, StoreDamagedError } from "../../src/index.js";
import { prelaunchBrowser } from "../../src/browser/prelaunch.js";

let root: string;
/** A data folder whose embedded database lost its PG_VERSION: damaged. */
let damaged: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-start-order-"));
  damaged = join(root, "data");
  const store = await openStore({ dataDir: damaged, sync: true });
  await store.close();
  await rm(join(damaged, PGLITE_DIR, "PG_VERSION"));
}, 120_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it("a damaged store and a missing browser: the store's error is the one reported", async () => {
  const error = await startServer({ port: 0, apiKeys: ["k"], dataDir: damaged, chromiumPath: join(root, "no-such-chromium") }).then(
    async (server) => {
      await server.close();
      throw new Error("the server started on a damaged store");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreDamagedError);
  expect(isWfError(error) && error.code).toBe("WF_STORE_DAMAGED");
  expect((error as Error).message).not.toMatch(/chromium|browser/i);
}, 60_000);

it("a browser launched ahead for a server that refuses its damaged store is closed", async () => {
  const options = { port: 0, apiKeys: ["k"], dataDir: damaged, chromiumPath: "/usr/bin/chromium" };
  const browser = prelaunchBrowser(options, {});
  expect(browser).toBeDefined();
  const error = await startServer(options, {}, { browser }).catch((e: unknown) => e);
  expect(isWfError(error) && error.code).toBe("WF_STORE_DAMAGED");
  // Closed for good: it opens no context any more (the server would relaunch it otherwise).
  const refused = await browser!.newContext().catch((e: unknown) => e);
  expect(isHttpProblem(refused) && refused.code).toBe("WF_BROWSER_UNAVAILABLE");
  expect(browser!.contextCount).toBe(0);
}, 60_000);

it("a browser launched ahead is the one the server runs its sessions in", async () => {
  const dataDir = join(root, "fresh");
  const options = { port: 0, apiKeys: ["k"], dataDir, databaseUrl: "memory:", chromiumPath: "/usr/bin/chromium", warmSessions: false };
  const browser = prelaunchBrowser(options, {});
  const server = await startServer(options, {}, { browser });
  try {
    expect(server.context.browser).toBe(browser);
    const session = await server.context.sessions.createSession({ kind: "STEP" });
    expect(browser!.contextCount).toBe(1);
    await server.context.sessions.finishSession(session.sessionId, { status: "SUCCEEDED" });
  } finally {
    await server.close();
  }
  const refused = await browser!.newContext().catch((e: unknown) => e);
  expect(isHttpProblem(refused) && refused.code).toBe("WF_BROWSER_UNAVAILABLE");
}, 60_000);

/** Waits until `browser` has `count` contexts open (the one ahead opens in the background). */
async function contexts(browser: { contextCount: number }, count: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; browser.contextCount !== count; ) {
    if (Date.now() > deadline) throw new Error(`expected ${count} browser contexts, found ${browser.contextCount}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it("a page opened ahead with the browser (wf run) is the one the first session takes, and only one is", async () => {
  const options = { port: 0, apiKeys: ["k"], dataDir: join(root, "ahead"), databaseUrl: "memory:", chromiumPath: "/usr/bin/chromium", warmSessions: false };
  const browser = prelaunchBrowser(options, {}, { openPage: true });
  await contexts(browser!, 1);
  const server = await startServer(options, {}, { browser });
  try {
    const first = await server.context.sessions.createSession({ kind: "STEP" });
    expect(browser!.contextCount).toBe(1);
    const second = await server.context.sessions.createSession({ kind: "STEP" });
    expect(browser!.contextCount).toBe(2);
    for (const session of [first, second]) await server.context.sessions.finishSession(session.sessionId, { status: "SUCCEEDED" });
  } finally {
    await server.close();
  }
}, 60_000);

it("a session behind the private-network guard does not take the plain page opened ahead", async () => {
  const options = { port: 0, apiKeys: ["k"], dataDir: join(root, "guarded"), databaseUrl: "memory:", chromiumPath: "/usr/bin/chromium", warmSessions: false, blockPrivateNetworks: true };
  const browser = prelaunchBrowser(options, {}, { openPage: true });
  await contexts(browser!, 1);
  const server = await startServer(options, {}, { browser });
  try {
    const session = await server.context.sessions.createSession({ kind: "STEP" });
    expect(browser!.contextCount).toBe(2);
    await server.context.sessions.finishSession(session.sessionId, { status: "SUCCEEDED" });
  } finally {
    await server.close();
  }
}, 60_000);
