/**
 * A damaged embedded store is refused by name, and never initialised over (issue 25). Before, a
 * data folder missing `PG_VERSION`, or an emptied `db/` beside the key and screenshots, silently
 * started as a new, empty store (every record gone); a damaged `pg_control` or a truncated WAL
 * segment said "PGlite failed to initialize properly" or "Aborted()"; damaged table pages were
 * blamed on disk space, the port or Chromium; a truncated steps table started "healthy" and showed
 * every session with 0 steps.
 *
 * One store with real records (made by the store itself, no browser needed) is copied and damaged
 * one way per test, as a bad disk, a crash or a wrong `rm` would. Each start must throw
 * `StoreDamagedError` (`WF_STORE_DAMAGED`) naming the folder and what is damaged, saying what to do,
 * not blaming disk space, the port or Chromium, and leave every byte of the folder as it was.
 */
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, open, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isWfError } from "@wf/core";
import { isHttpProblem, loadServerSecret, openStore, PGLITE_DIR, SqlStore, startServer, StoreDamagedError, type SessionRecord, type SqlQueryable, type StepRecord } from "../../src/index.js";
import { pgliteDatabase } from "../helpers/databases.js";

let root: string;
/** A healthy data folder: database with a session and 40 steps, the key, a screenshot. */
let healthy: string;
/** Path of the `wf_steps` table's file inside `db/`. */
let stepsFile: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-damaged-"));
  healthy = join(root, "healthy");
  const store = await openStore({ dataDir: healthy, sync: true });
  try {
    await store.createSession(session("s1"));
    for (let i = 0; i < 40; i++) await store.createStep(step("s1", i));
  } finally {
    await store.close();
  }
  await loadServerSecret(healthy);
  await mkdir(join(healthy, "screenshots"));
  await writeFile(join(healthy, "screenshots", "st0.png"), Buffer.from("89504e470d0a1a0a", "hex"));
  const [row] = await pgliteDatabase().sql<{ file: string }>(healthy, "SELECT pg_relation_filepath('wf_steps') AS file");
  stepsFile = row!.file;
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

let copies = 0;
/** A copy of the healthy folder, damaged by `damage`. */
async function damagedCopy(damage: (dataDir: string) => Promise<void>): Promise<string> {
  const dataDir = join(root, `copy-${++copies}`);
  await cp(healthy, dataDir, { recursive: true });
  await damage(dataDir);
  return dataDir;
}

/** Every file and folder under `dir` with the SHA-256 of its bytes. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        out[`${relative(dir, path)}/`] = "dir";
        await walk(path);
      } else out[relative(dir, path)] = createHash("sha256").update(await readFile(path)).digest("hex");
    }
  };
  await walk(dir);
  return out;
}

/** Starts a server on the folder: it must be refused as damaged, with `damage` in the message, and the folder unchanged. */
async function expectRefused(dataDir: string, damage: RegExp): Promise<void> {
  const before = await fingerprint(dataDir);
  const error = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: true }).then(
    async (server) => {
      await server.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreDamagedError);
  expect(isWfError(error)).toBe(true);
  const refused = error as StoreDamagedError;
  expect(refused.code).toBe("WF_STORE_DAMAGED");
  expect(refused.dataDir).toBe(dataDir);
  expect(refused.message).toContain(dataDir);
  expect(refused.message).toContain("damaged");
  expect(refused.damage).toMatch(damage);
  // What to do: restore a backup, or move the folder away to start empty.
  expect(refused.message).toContain(`wf store restore <backup file> --data-dir ${dataDir}`);
  expect(refused.message).toContain(`mv ${dataDir} ${dataDir}.damaged`);
  // Not blamed on anything else.
  expect(refused.message).not.toMatch(/disk space|--port|Chromium|initdb/i);
  // Nothing initialised over it, nothing written into it.
  expect(await fingerprint(dataDir)).toEqual(before);
}

it("a truncated table file (wf_steps cut to its first page) is refused, naming the table and its file", async () => {
  const dataDir = await damagedCopy((d) => truncate(join(d, PGLITE_DIR, stepsFile), 8192));
  await expectRefused(dataDir, new RegExp(`the table wf_steps \\(db/${stepsFile}\\) (has lost rows|can't be read)`));
}, 120_000);

it("a table file cut in the middle of a page is refused before PostgreSQL starts", async () => {
  const dataDir = await damagedCopy((d) => truncate(join(d, PGLITE_DIR, stepsFile), 8192 + 100));
  await expectRefused(dataDir, new RegExp(`the relation file db/${stepsFile} is 8292 bytes, not a whole number of 8192-byte pages`));
}, 120_000);

it("an overwritten pg_control is refused, naming the control file", async () => {
  const dataDir = await damagedCopy(async (d) => {
    const file = await open(join(d, PGLITE_DIR, "global", "pg_control"), "r+");
    await file.write(Buffer.alloc(512, 0x41), 0, 512, 0);
    await file.close();
  });
  await expectRefused(dataDir, /db\/global\/pg_control \(the control file\) fails its CRC check/);
}, 120_000);

it("a truncated WAL segment is refused, naming the segment", async () => {
  const dataDir = await damagedCopy(async (d) => {
    const wal = join(d, PGLITE_DIR, "pg_wal");
    const [segment] = (await readdir(wal)).filter((n) => /^[0-9A-F]{24}$/.test(n));
    await truncate(join(wal, segment!), 1000);
  });
  await expectRefused(dataDir, /the write-ahead log segment db\/pg_wal\/[0-9A-F]{24} is 1000 bytes, not 16777216: it was cut short/);
}, 120_000);

it("a database folder missing PG_VERSION is refused, not initialised anew", async () => {
  const dataDir = await damagedCopy((d) => rm(join(d, PGLITE_DIR, "PG_VERSION")));
  await expectRefused(dataDir, /db\/PG_VERSION is missing/);
}, 120_000);

it("an emptied db/ beside the key and screenshots is refused, not started as a new store", async () => {
  const dataDir = await damagedCopy(async (d) => {
    await rm(join(d, PGLITE_DIR), { recursive: true });
    await mkdir(join(d, PGLITE_DIR));
  });
  await expectRefused(dataDir, /the database folder db is empty, beside (screenshots, secret\.key|secret\.key, screenshots)/);
}, 120_000);

it("a missing db/ beside the key and screenshots is refused too", async () => {
  const dataDir = await damagedCopy((d) => rm(join(d, PGLITE_DIR), { recursive: true }));
  await expectRefused(dataDir, /there is no database folder db, yet the data folder holds/);
}, 120_000);

it("a read error on an existing record is WF_STORAGE_CORRUPT (500, not retryable), never \"free disk space … retry\"", async () => {
  // Damage that happens while the store is open is met by reads, not by the start's checks: the
  // store runs over the damaged folder opened directly.
  const dataDir = await damagedCopy((d) => truncate(join(d, PGLITE_DIR, stepsFile), 8192));
  const { PGlite } = await import("@electric-sql/pglite");
  const pg = await PGlite.create(join(dataDir, PGLITE_DIR));
  const location = join(dataDir, PGLITE_DIR);
  const store = new SqlStore(
    {
      query: (text, params) => pg.query(text, params),
      transaction: (fn) => pg.transaction((tx) => fn(tx as SqlQueryable)),
      exec: async (sql) => void (await pg.exec(sql)),
      close: () => pg.close(),
    },
    { driver: "pglite", location },
  );
  try {
    // The last step's row was on a page the file lost; its index entry still points there.
    const error = await store.getStep("s1-st39").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isHttpProblem(error)).toBe(true);
    const problem = error as { code: string; status: number; retryAfterMs?: number; message: string };
    expect(problem.code).toBe("WF_STORAGE_CORRUPT");
    expect(problem.status).toBe(500);
    expect(problem.retryAfterMs).toBeUndefined();
    expect(problem.message).toContain(location);
    expect(problem.message).toMatch(/could not read blocks? .* in file "base\/\d+\/\d+"/);
    expect(problem.message).toContain("wf store restore");
    expect(problem.message).not.toMatch(/free disk space/i);
  } finally {
    await store.close();
  }
}, 120_000);

it("the healthy folder opens with its records, and new stores have data checksums on", async () => {
  const dataDir = await damagedCopy(async () => undefined);
  const store = await openStore({ dataDir, sync: false });
  try {
    expect((await store.getSession("s1"))?.steps).toHaveLength(40);
  } finally {
    await store.close();
  }
  const [row] = await pgliteDatabase().sql<{ data_checksums: string }>(dataDir, "SHOW data_checksums");
  expect(row!.data_checksums).toBe("on");
}, 120_000);

function session(sessionId: string): SessionRecord {
  const now = new Date().toISOString();
  return { sessionId, kind: "STEP", workflowId: null, token: "t", jobTaskId: "j", status: "SUCCEEDED", version: 1, createdAt: now, updatedAt: now, finishedAt: now, currentUrl: null, error: null, proxied: false, stepIds: [] };
}

function step(sessionId: string, index: number): StepRecord {
  const now = new Date().toISOString();
  return {
    stepId: `${sessionId}-st${index}`,
    jobTaskId: "j",
    sessionId,
    index,
    type: "ACT",
    // Long enough that the table spans several pages.
    step: `type "${"x".repeat(1500)}" into "Notes" (${index})`,
    status: "SUCCEEDED",
    createdAt: now,
    startedAt: now,
    finishedAt: now,
    durationMs: 1,
    error: null,
    pageUrl: null,
    request: {},
    idempotencyKey: null,
    requestHash: "",
    screenshot: false,
  };
}
