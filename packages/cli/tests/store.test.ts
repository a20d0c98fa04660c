/**
 * `wf store backup` / `wf store restore` (issue 25): a backup made with PGlite's own dump, the
 * store damaged, the damaged store refused by `wf serve` by name (not blamed on the port or
 * Chromium), then restored from the backup with the records back and the damaged database kept
 * aside. Everything runs through `runCli`, as a user types it.
 */
import { existsSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, PGLITE_DIR, type SessionRecord } from "@wf/server";
import { runCli } from "../src/index.js";
import { scratchDir } from "./_helpers.js";

let scratch: { dir: string; remove(): Promise<void> };

beforeAll(async () => {
  scratch = await scratchDir();
});

afterAll(async () => {
  await scratch?.remove();
});

/** Runs `wf …` in the scratch folder; resolves with the exit code and what it printed. */
async function wf(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    cwd: scratch.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdout: { write: (s: string) => ((stdout += s), true) } as never,
    stderr: { write: (s: string) => ((stderr += s), true) } as never,
  });
  return { code, stdout, stderr };
}

it("backs up a store, refuses it once damaged, and restores it with its records; the damaged one is kept aside", async () => {
  const dataDir = join(scratch.dir, "data");
  const store = await openStore({ dataDir, sync: true });
  try {
    for (let i = 0; i < 5; i++) await store.createSession(session(`s${i}`));
  } finally {
    await store.close();
  }

  const backup = await wf("store", "backup", "wf-store.tar.gz", "--data-dir", "data");
  expect(backup.stderr).toBe("");
  expect(backup.code).toBe(0);
  expect(backup.stdout).toMatch(/^backed up data to wf-store\.tar\.gz \(\d+ bytes\)\n$/);
  expect((await stat(join(scratch.dir, "wf-store.tar.gz"))).size).toBeGreaterThan(1000);

  // A crash, a bad disk, or a wrong rm: PG_VERSION is gone.
  await rm(join(dataDir, PGLITE_DIR, "PG_VERSION"));
  const serve = await wf("serve", "--port", "0", "--data-dir", "data");
  expect(serve.code).not.toBe(0);
  expect(serve.stderr).toContain(`The wf data folder ${dataDir} is not a valid store: its database is damaged (db/PG_VERSION is missing`);
  expect(serve.stderr).toContain("wf store restore");
  expect(serve.stderr).not.toMatch(/--port|Chromium|install-browser|disk space/);
  // Nothing was initialised over it.
  expect(existsSync(join(dataDir, PGLITE_DIR, "PG_VERSION"))).toBe(false);
  // Nor can a damaged store be backed up as if it were good.
  const badBackup = await wf("store", "backup", "bad.tar.gz", "--data-dir", "data");
  expect(badBackup.code).toBe(1);
  expect(badBackup.stderr).toContain("PG_VERSION is missing");
  expect(existsSync(join(scratch.dir, "bad.tar.gz"))).toBe(false);

  // Restore refuses to go over a database folder that holds files…
  const refused = await wf("store", "restore", "wf-store.tar.gz", "--data-dir", "data");
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("already holds a database");
  expect(refused.stderr).toContain("--force");
  // …and with --force moves it aside, never deletes it.
  const restored = await wf("store", "restore", "wf-store.tar.gz", "--data-dir", "data", "--force");
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  expect(restored.stdout).toMatch(/^restored data\/db from wf-store\.tar\.gz; the database that was there is in data\/db\.replaced-[\dT-]+Z\n$/);
  const aside = (await readdir(dataDir)).filter((n) => n.startsWith("db.replaced-"));
  expect(aside).toHaveLength(1);
  expect(existsSync(join(dataDir, aside[0]!, "global", "pg_control"))).toBe(true);

  const reopened = await openStore({ dataDir, sync: false });
  try {
    for (let i = 0; i < 5; i++) expect((await reopened.getSession(`s${i}`))?.session.sessionId).toBe(`s${i}`);
  } finally {
    await reopened.close();
  }
}, 300_000);

it("restores into a data folder that does not exist yet; refuses to back up or restore a store a server has open, naming the process to stop", async () => {
  const dataDir = join(scratch.dir, "source");
  const store = await openStore({ dataDir, sync: true });
  try {
    await store.createSession(session("kept"));
    // Open in this process, as in a running server: refused, with what to do.
    const busy = await wf("store", "backup", "busy.tar.gz", "--data-dir", "source");
    expect(busy.code).not.toBe(0);
    expect(busy.stderr).toContain(`The store in ${dataDir} is open in process ${process.pid}`);
    expect(busy.stderr).toContain("Stop that server first");
    expect(existsSync(join(scratch.dir, "busy.tar.gz"))).toBe(false);
    const busyRestore = await wf("store", "restore", "wf-store.tar.gz", "--data-dir", "source", "--force");
    expect(busyRestore.code).not.toBe(0);
    expect(busyRestore.stderr).toContain("is open in process");
  } finally {
    await store.close();
  }
  // Closed: the mark is gone and the backup goes through.
  const backup = await wf("store", "backup", "source.tar.gz", "--data-dir", "source");
  expect(backup.stderr).toBe("");
  expect(backup.code).toBe(0);

  const restored = await wf("store", "restore", "source.tar.gz", "--data-dir", "new/machine/data");
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  const reopened = await openStore({ dataDir: join(scratch.dir, "new", "machine", "data"), sync: false });
  try {
    expect((await reopened.getSession("kept"))?.session.sessionId).toBe("kept");
  } finally {
    await reopened.close();
  }
}, 300_000);

it("restore needs --data-dir; a PostgreSQL store points to pg_dump", async () => {
  const noDir = await wf("store", "restore", "wf-store.tar.gz");
  expect(noDir.code).toBe(2);
  expect(noDir.stderr).toContain("needs --data-dir");
  let stderr = "";
  const code = await runCli(["store", "backup", "x.tar.gz"], {
    cwd: scratch.dir,
    env: { PATH: process.env.PATH, WF_DATABASE_URL: "postgres://wf@127.0.0.1:1/wf" },
    stdout: { write: () => true } as never,
    stderr: { write: (s: string) => ((stderr += s), true) } as never,
  });
  expect(code).toBe(2);
  expect(stderr).toContain("pg_dump");
});

function session(sessionId: string): SessionRecord {
  const now = new Date().toISOString();
  return { sessionId, kind: "STEP", workflowId: null, token: "t", jobTaskId: "j", status: "SUCCEEDED", version: 1, createdAt: now, updatedAt: now, finishedAt: now, currentUrl: null, error: null, proxied: false, stepIds: [] };
}
