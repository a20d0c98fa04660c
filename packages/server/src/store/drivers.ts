/**
 * The two database drivers under the {@link SqlStore}, and {@link openStore}, which picks one:
 * PGlite (PostgreSQL in WebAssembly, in-process, file-backed in `<dataDir>/db`) by default,
 * PostgreSQL through `pg` when a `postgres://` URL is given.
 *
 * Start cost of PGlite: `initdb` of a new database takes 6–25 s on a busy 2-core machine, so a
 * new `<dataDir>/db` is a copy of a template database made once per PGlite version and schema in
 * `~/.cache/wf/` (or the temp folder), then opened (≈2 s); the WebAssembly modules are compiled
 * once per process.
 */
import { createHash, randomBytes } from "node:crypto";
import { constants as fsConstants, existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { setFlagsFromString } from "node:v8";
import { dirname, join, relative } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { Pool } from "pg";
import { SCHEMA_SQL, SqlStore, type BeforeCommit, type SqlDatabase, type SqlQueryable } from "./sql-store.js";
import { MEMORY_DATABASE_URL, MemoryStore } from "./memory-store.js";
import type { CorruptRecord, Store } from "./store.js";
import { markStoreInUse } from "./in-use.js";
import { inspectPgliteFolder, PgliteLog, preserveStartFiles, verifyPgliteTables } from "./pglite-folder.js";
import { StoreDamagedError } from "../errors.js";
import { timingMark } from "../observability/timing.js";

/** The folder of the embedded database inside the data directory. */
export const PGLITE_DIR = "db";

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Where the records go: unset for the embedded PGlite in `<dataDir>/db`;
   * `postgres://user:pass@host:port/db` (or `postgresql://`) for a PostgreSQL server; `memory:`
   * for records held by the process alone (`memory-store.ts`: `wf run`'s throwaway server).
   */
  databaseUrl?: string | undefined;
  /** The server's data directory (absolute). */
  dataDir: string;
  /**
   * Durable commits: on, a commit is on disk before it resolves. Off (tests), PGlite runs with
   * `relaxedDurability` and PostgreSQL with `synchronous_commit = off`. @default true
   */
  sync?: boolean;
  onCorrupt?: (record: CorruptRecord) => void;
  beforeCommit?: BeforeCommit;
  /** How V8 compiles PGlite's WebAssembly: see {@link PgliteWasmTier}. @default "optimizing" */
  pgliteWasmTier?: PgliteWasmTier | undefined;
}

/**
 * How V8 compiles PGlite's WebAssembly (PostgreSQL), chosen before it is first compiled in the process:
 * - `"optimizing"`: V8's default, its baseline compiler (Liftoff) first, then its optimising one
 *   (TurboFan) for the functions that run hot.
 * - `"baseline"`: Liftoff only (V8's `--liftoff-only`, set with `v8.setFlagsFromString` just before
 *   the compile). Measured (issue 26, load 20): the idle process ~70 MB smaller (PGlite open 250 →
 *   180 MB RSS) and the open faster, as no optimising compile competes for the CPU at start; writes,
 *   once the optimising tier would have caught up, about half as fast (storage bench: 110–130
 *   against 180–270 steps/s, ~4 ms more per step at that load). The flag is **process-wide**: every
 *   WebAssembly module compiled afterwards (undici's HTTP parser in `fetch`) is baseline-only too,
 *   which is why only the processes wf owns ask for it (`wf serve`, `pnpm start`), not the library's
 *   default. Once PGlite is compiled, a later store in the same process keeps that compile.
 */
export type PgliteWasmTier = "baseline" | "optimizing";

/**
 * Opens the store and creates its tables when missing.
 * @throws {@link Error} for a `databaseUrl` of another scheme, or when the database can't be opened or reached.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const url = options.databaseUrl;
  if (url === MEMORY_DATABASE_URL) return new MemoryStore();
  const sync = options.sync ?? true;
  let db: SqlDatabase;
  let driver: SqlStore["driver"];
  let location: string;
  if (url === undefined) {
    driver = "pglite";
    location = join(options.dataDir, PGLITE_DIR);
    db = await openPglite(options.dataDir, location, sync, options.pgliteWasmTier ?? "optimizing");
  } else if (/^postgres(ql)?:\/\//i.test(url)) {
    driver = "postgres";
    location = redactDatabaseUrl(url);
    db = await openPostgres(url, sync, location);
  } else {
    throw new Error(`WF_DATABASE_URL must be a postgres:// URL, got ${JSON.stringify(redactDatabaseUrl(url))}. Unset it to use the embedded database in the data directory.`);
  }
  const store = new SqlStore(db, { driver, location, ...(options.onCorrupt ? { onCorrupt: options.onCorrupt } : {}), ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}) });
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new Error(`Could not create the tables in ${location}: ${(error as Error).message}`, { cause: error });
  }
  return store;
}

/**
 * Options of `initdb` for a new embedded store: data checksums, so a page damaged on disk is an
 * error naming its block when read rather than wrong rows (PostgreSQL 18, which PGlite 0.5 runs,
 * turns them on by default; said here so that stays true whatever the default).
 */
export const INITDB_PARAMS = ["--data-checksums"];

/**
 * PostgreSQL's buffer pool of the embedded store (`shared_buffers`), in MB. PostgreSQL's default
 * (128 MB) is memory the WebAssembly heap touches at start: 128 MB made the idle server ~100 MB
 * larger than 32 MB, and 16 MB is another ~18 MB less than 32 (measured, issue 26: a process
 * opening the template store, baseline-compiled, 175 → 157 MB; 8 MB 150). wf's records are small
 * rows written once and read by id, and PGlite's files are read through the operating system's
 * cache anyway, so a page not in the pool costs a read from memory, not from the disk.
 */
export const PGLITE_SHARED_BUFFERS_MB = 16;

/** PGlite's own start parameters, with wf's buffer pool size ({@link PGLITE_SHARED_BUFFERS_MB}). */
export function pgliteStartParams(pglite: { readonly defaultStartParams: readonly string[] }): string[] {
  return [...pglite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS_MB}MB`];
}

export interface PgliteAssets {
  PGlite: typeof PGlite;
  version: string;
  options: { pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module; fsBundle: Blob };
}

let assets: Promise<PgliteAssets> | undefined;

/**
 * PGlite's class and its WebAssembly modules and file bundle, compiled and read once per process.
 * @param tier - how the first call compiles them ({@link PgliteWasmTier}); later calls reuse that compile.
 */
export function pgliteAssets(tier: PgliteWasmTier = "optimizing"): Promise<PgliteAssets> {
  // Before the first compile: V8 reads the flag when it compiles a module.
  if (!assets && tier === "baseline") setFlagsFromString("--liftoff-only");
  assets ??= (async () => {
    // The files are read and compiled (off the main thread) while PGlite's JavaScript is imported,
    // not after: that import queues behind whatever else the process is loading (issue 26).
    const dist = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    const [{ PGlite }, version, pgliteWasmModule, initdbWasmModule, bundle] = await Promise.all([
      import("@electric-sql/pglite"),
      readFile(join(dist, "..", "package.json"), "utf8").then((text) => (JSON.parse(text) as { version: string }).version),
      readFile(join(dist, "pglite.wasm")).then((b) => WebAssembly.compile(b)),
      readFile(join(dist, "initdb.wasm")).then((b) => WebAssembly.compile(b)),
      readFile(join(dist, "pglite.data")),
    ]);
    return { PGlite, version, options: { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([bundle]) } };
  })();
  assets.catch(() => (assets = undefined));
  return assets;
}

/**
 * The folder of a template database (initialised, with the schema), made once per PGlite version
 * and schema. Made in a scratch folder and renamed into place, so a half-made one is never used.
 */
async function pgliteTemplate(a: PgliteAssets): Promise<string> {
  const key = createHash("sha256").update(a.version).update(SCHEMA_SQL).update(INITDB_PARAMS.join(" ")).digest("hex").slice(0, 16);
  const bases = [join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "wf"), join(tmpdir(), `wf-${process.getuid?.() ?? "user"}`)];
  let lastError: unknown;
  for (const base of bases) {
    const dir = join(base, `pglite-template-${a.version}-${key}`);
    if (existsSync(join(dir, "READY"))) return dir;
    const scratch = `${dir}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await mkdir(scratch, { recursive: true, mode: 0o700 });
      const pg = await a.PGlite.create(scratch, { ...a.options, startParams: pgliteStartParams(a.PGlite), initDbStartParams: INITDB_PARAMS });
      await pg.exec(SCHEMA_SQL);
      await pg.close();
      await writeFile(join(scratch, "READY"), "");
      await rename(scratch, dir).catch(async (error: NodeJS.ErrnoException) => {
        // Another process made it first: use theirs.
        if (!existsSync(join(dir, "READY"))) throw error;
        await rm(scratch, { recursive: true, force: true });
      });
      return dir;
    } catch (error) {
      lastError = error;
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  throw lastError;
}

/** How many files {@link copyFolder} copies at once. */
const COPY_WIDTH = 16;

/**
 * Copies the folder `from` to `to` (which must not exist yet): its folders first, then its files
 * {@link COPY_WIDTH} at a time, each file and folder with its mode (copyFile keeps a file's); a file
 * is cloned where the file system can (copy-on-write: btrfs, XFS, APFS), else copied.
 * `fs.cp` copies one entry after the other: 550–600 ms for the template database's ~1,000 files
 * (39 MB) against ~150 ms here on this machine's ext4 with the disk quiet, and 1.28 s against
 * 1.00 s (medians of 6) with it busy (issue 26): the copy is most of a fresh folder's extra start.
 * @param skip - files to leave out, by their path relative to `from` (`/`-separated on POSIX).
 */
async function copyFolder(from: string, to: string, skip: (file: string) => boolean): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const folders = ["", ...entries.filter((e) => e.isDirectory()).map((e) => relative(from, join(e.parentPath, e.name)))].sort((a, b) => a.length - b.length);
  for (const folder of folders) {
    const { mode } = await stat(join(from, folder));
    await mkdir(join(to, folder), { mode: mode & 0o777 });
    await chmod(join(to, folder), mode & 0o777); // mkdir's mode is masked by the umask
  }
  const files = entries.filter((e) => e.isFile()).map((e) => relative(from, join(e.parentPath, e.name))).filter((file) => !skip(file));
  let next = 0;
  const copyNext = async (): Promise<void> => {
    for (let file = files[next++]; file !== undefined; file = files[next++]) await copyFile(join(from, file), join(to, file), fsConstants.COPYFILE_FICLONE);
  };
  await Promise.all(Array.from({ length: COPY_WIDTH }, copyNext));
}

/**
 * PGlite runs PostgreSQL in single-user mode: no checkpointer and no autovacuum. Without a
 * checkpoint the write-ahead log is never recycled (measured: 97 MB of WAL after 60,000 small
 * transactions, 33 MB with a checkpoint every 2,000), so the driver asks for one itself every
 * this many write transactions.
 */
export const PGLITE_CHECKPOINT_EVERY = 1_000;

async function openPglite(dataDir: string, dir: string, sync: boolean, tier: PgliteWasmTier): Promise<SqlDatabase> {
  const a = await pgliteAssets(tier);
  timingMark("store: PGlite loaded and compiled");
  // A data folder that is not a valid store is refused before anything is written into it.
  const state = await inspectPgliteFolder(dataDir, dir);
  timingMark("store: folder checked");
  if (state === "new") {
    await mkdir(dirname(dir), { recursive: true });
    const template = await pgliteTemplate(a).catch(() => undefined);
    if (template) {
      const scratch = `${dir}.tmp-${randomBytes(4).toString("hex")}`;
      await copyFolder(template, scratch, (file) => file === "READY");
      await rename(scratch, dir);
    }
    timingMark("store: template copied");
  }
  const log = new PgliteLog();
  const preserved = state === "existing" ? await preserveStartFiles(dir) : undefined;
  let pg: PGlite;
  try {
    // An existing store has PG_VERSION (checked above), so PGlite resumes it and never runs initdb
    // over it. (Its `noInitDb` option can't say so: in Node it ends the process.)
    pg = await a.PGlite.create(dir, {
      ...a.options,
      startParams: pgliteStartParams(a.PGlite),
      relaxedDurability: !sync,
      onStderr: log.write,
      ...(state === "new" ? { initDbStartParams: INITDB_PARAMS } : {}),
    });
  } catch (error) {
    if (!preserved) throw error;
    await preserved.restore().catch(() => undefined);
    const said = log.explain();
    throw new StoreDamagedError(dataDir, dir, `PostgreSQL could not start on it${said ? `: ${said}` : ` (${(error as Error).message})`}`, { cause: error });
  }
  timingMark("store: PostgreSQL started");
  if (preserved) {
    try {
      await verifyPgliteTables(pg, dataDir, dir);
    } catch (error) {
      // Left open, not closed: a clean close writes a checkpoint into the damaged files.
      await preserved.restore().catch(() => undefined);
      throw error;
    }
    timingMark("store: tables verified");
  }
  // Told to `wf store backup`/`restore`, which refuse while it is open (`in-use.ts`).
  const unmark = await markStoreInUse(dataDir);
  let writes = 0;
  return {
    query: (text, params) => pg.query(text, params),
    transaction: async (fn) => {
      const result = await pg.transaction((tx) => fn(tx as SqlQueryable));
      // Queued behind the statements already waiting (PGlite runs one at a time); a failed one waits for the next count.
      if (++writes % PGLITE_CHECKPOINT_EVERY === 0) void pg.query("CHECKPOINT").catch(() => undefined);
      return result;
    },
    exec: async (sql) => {
      await pg.exec(sql);
    },
    compact: async () => {
      await pg.exec("VACUUM wf_steps, wf_sessions, wf_logs, wf_payloads; CHECKPOINT");
    },
    close: async () => {
      try {
        await pg.close();
      } finally {
        await unmark();
      }
    },
  };
}

async function openPostgres(url: string, sync: boolean, location: string): Promise<SqlDatabase> {
  const { default: pg } = await import("pg");
  const pool: Pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000, ...(sync ? {} : { options: "-c synchronous_commit=off" }) });
  // An idle connection that drops (a restarted database) must not crash the server; the next query reconnects.
  pool.on("error", () => undefined);
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`Could not connect to the database ${location}: ${(error as Error).message}. Check WF_DATABASE_URL and that the database is running.`, { cause: error });
  }
  return {
    query: async (text, params) => ({ rows: (await pool.query(text, params)).rows }),
    transaction: async (fn) => {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("BEGIN");
        const result = await fn({ query: async (text, params) => ({ rows: (await client.query(text, params)).rows }) });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}
