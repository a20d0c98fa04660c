/**
 * Backup and restore of the embedded store (`<dataDir>/db`) with PGlite's own dump and load: a
 * backup is PGlite's `dumpDataDir` (a gzipped tar of the database folder, taken from a cleanly
 * opened database), a restore is a new PGlite database made from it with `loadDataDir`. Both need
 * the store closed: stop every server on the data folder first (PGlite is single-process).
 * PostgreSQL stores are backed up with `pg_dump` instead.
 *
 * A backup holds the records only: the data folder's `secret.key` (idempotency keys of earlier
 * steps), `screenshots/` and `traces/` are files to copy beside it.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { WfError } from "@wf/core";
import { StoreDamagedError } from "../errors.js";
import { INITDB_PARAMS, PGLITE_DIR, pgliteAssets, pgliteStartParams } from "./drivers.js";
import { inspectPgliteFolder, PgliteLog, verifyPgliteTables } from "./pglite-folder.js";
import type { SqlQueryable } from "./sql-store.js";
import { assertStoreNotInUse } from "./in-use.js";

/** What {@link backupStore} wrote. */
export interface BackupResult {
  /** The backup file (absolute). */
  file: string;
  /** Its size in bytes. */
  bytes: number;
}

/**
 * Writes a backup of the embedded store of `dataDir` to `file` (written aside, then renamed into
 * place: an existing file is replaced only by a whole backup). The store is opened and checked
 * as a server start checks it, so a damaged store is never backed up as if it were good.
 * @throws {@link StoreDamagedError} when the store is damaged; `WF_STORE_NOT_FOUND` when `dataDir` holds no store;
 *   `WF_STORE_IN_USE` while a server has it open.
 */
export async function backupStore(options: { dataDir: string; file: string }): Promise<BackupResult> {
  const dataDir = resolve(options.dataDir);
  const file = resolve(options.file);
  const dbDir = join(dataDir, PGLITE_DIR);
  await assertStoreNotInUse(dataDir, "back up");
  if ((await inspectPgliteFolder(dataDir, dbDir)) === "new") {
    throw new WfError("WF_STORE_NOT_FOUND", `There is no wf store in ${dataDir} (no ${PGLITE_DIR} folder): nothing to back up. Pass the data folder of the server (--data-dir, WF_DATA_DIR; default .wf).`);
  }
  const a = await pgliteAssets();
  const log = new PgliteLog();
  const pg = await a.PGlite.create(dbDir, { ...a.options, startParams: pgliteStartParams(a.PGlite), onStderr: log.write }).catch((error: unknown) => {
    throw new StoreDamagedError(dataDir, dbDir, `PostgreSQL could not start on it: ${log.explain() || (error as Error).message}`, { cause: error });
  });
  let blob: Blob;
  try {
    await verifyPgliteTables({ transaction: (fn) => pg.transaction((tx) => fn(tx as SqlQueryable)) }, dataDir, dbDir);
    blob = await pg.dumpDataDir("gzip");
  } finally {
    await pg.close();
  }
  const partial = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { file, bytes: (await stat(file)).size };
}

/** What {@link restoreStore} did. */
export interface RestoreResult {
  /** The database folder made from the backup (`<dataDir>/db`). */
  databaseDir: string;
  /** Where the database folder that was there before went (with `force`), or undefined. */
  movedAside: string | undefined;
}

/**
 * Makes `<dataDir>/db` from a backup made by {@link backupStore}. The backup is loaded into a
 * scratch folder and checked before it takes the place of anything. A data folder whose `db` holds
 * files is refused unless `force`, which moves that folder aside to `db.replaced-<time>` (never
 * deletes it). An empty `db` folder, or none, is simply filled; a missing data folder is made.
 * @throws `WF_STORE_EXISTS` when `db` holds files and `force` is not set; `WF_BACKUP_INVALID` when
 *   the file is not a backup PGlite can load; `WF_STORE_IN_USE` while a server has the store open.
 */
export async function restoreStore(options: { dataDir: string; file: string; force?: boolean }): Promise<RestoreResult> {
  const dataDir = resolve(options.dataDir);
  const file = resolve(options.file);
  const dbDir = join(dataDir, PGLITE_DIR);
  if (!existsSync(file)) throw new WfError("WF_BACKUP_INVALID", `The backup file ${file} does not exist.`);
  await assertStoreNotInUse(dataDir, "restore");
  const occupied = existsSync(dbDir) && (await readdir(dbDir)).length > 0;
  if (occupied && !options.force) {
    throw new WfError(
      "WF_STORE_EXISTS",
      `${dbDir} already holds a database; restoring over it is refused. Pass --force to move it aside (to ${PGLITE_DIR}.replaced-<time>, not deleted) and restore, after stopping every server on ${dataDir}.`,
    );
  }
  // A data folder that does not exist yet is made: a restore onto a new machine.
  await mkdir(dataDir, { recursive: true });
  const a = await pgliteAssets();
  const scratch = `${dbDir}.tmp-${randomBytes(4).toString("hex")}`;
  const log = new PgliteLog();
  try {
    const bytes = await readFile(file);
    const pg = await a.PGlite.create(scratch, { ...a.options, startParams: pgliteStartParams(a.PGlite), loadDataDir: new Blob([new Uint8Array(bytes)]), initDbStartParams: INITDB_PARAMS, onStderr: log.write }).catch((error: unknown) => {
      throw new WfError("WF_BACKUP_INVALID", `${file} is not a wf store backup PGlite can load (${log.explain() || (error as Error).message}). Use a file written by \`wf store backup\`.`, { cause: error });
    });
    try {
      await verifyPgliteTables({ transaction: (fn) => pg.transaction((tx) => fn(tx as SqlQueryable)) }, dataDir, scratch);
      const { rows } = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'wf_sessions'");
      if (rows[0]?.n !== 1) throw new WfError("WF_BACKUP_INVALID", `${file} is a PostgreSQL database but not a wf store (it has no wf_sessions table).`);
    } finally {
      await pg.close();
    }
  } catch (error) {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  let movedAside: string | undefined;
  if (occupied) {
    movedAside = join(dirname(dbDir), `${PGLITE_DIR}.replaced-${new Date().toISOString().replace(/[:.]/g, "-")}`);
    await rename(dbDir, movedAside);
  } else if (existsSync(dbDir)) {
    await rmdir(dbDir);
  }
  await rename(scratch, dbDir);
  return { databaseDir: dbDir, movedAside };
}
