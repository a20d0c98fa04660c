/**
 * `wf store backup` and `wf store restore`: the programmatic side. The data folder is resolved as
 * `wf serve` resolves it (flag > WF_DATA_DIR > wf.config.ts `server.dataDir` > `.wf`); a store on
 * PostgreSQL (WF_DATABASE_URL) is refused with the pointer to `pg_dump`.
 */
import { resolve } from "node:path";
import { CliUsageError } from "./errors.js";
import { parseCliEnv, resolveCliConfig } from "./config.js";

/** Options of {@link backupStoreFile} and {@link restoreStoreFile}. */
export interface StoreFileOptions {
  /** The backup file. */
  file: string;
  /** The server's data folder. @default WF_DATA_DIR, else wf.config.ts `server.dataDir`, else `.wf` */
  dataDir?: string | undefined;
  /** Restore only: move a database already there aside (never deleted). @default false */
  force?: boolean;
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/**
 * Backs up the embedded store of the data folder to `file`.
 * @returns the backup file, its size in bytes, and the data folder it came from.
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for a PostgreSQL store; the server's
 *   `WF_STORE_DAMAGED` / `WF_STORE_NOT_FOUND`.
 */
export async function backupStoreFile(options: StoreFileOptions): Promise<{ file: string; bytes: number; dataDir: string }> {
  const { dataDir, cwd } = await dataDirOf(options);
  const { backupStore } = await import("@wf/server");
  return { ...(await backupStore({ dataDir, file: resolve(cwd, options.file) })), dataDir };
}

/**
 * Restores the embedded store of the data folder from `file`.
 * @returns where the database was made and where the one it replaced went (with `force`).
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for a PostgreSQL store; the server's
 *   `WF_STORE_EXISTS` (a database is there and `force` is not set), `WF_BACKUP_INVALID`.
 */
export async function restoreStoreFile(options: StoreFileOptions): Promise<{ databaseDir: string; movedAside: string | undefined; dataDir: string }> {
  const { dataDir, cwd } = await dataDirOf(options);
  const { restoreStore } = await import("@wf/server");
  return { ...(await restoreStore({ dataDir, file: resolve(cwd, options.file), force: options.force ?? false })), dataDir };
}

async function dataDirOf(options: StoreFileOptions): Promise<{ dataDir: string; cwd: string }> {
  const cwd = options.cwd ?? process.cwd();
  const config = await resolveCliConfig({ cwd, env: options.env ?? process.env, flags: { dataDir: options.dataDir } });
  const databaseUrl = parseCliEnv(config.env, ["WF_DATABASE_URL"]).WF_DATABASE_URL;
  if (databaseUrl && databaseUrl !== "memory:") {
    throw new CliUsageError(
      "WF_CLI_USAGE",
      "WF_DATABASE_URL is set: the records are in PostgreSQL, not in the data folder. Back them up with `pg_dump --format=custom --file=wf.dump <url>` and restore with `pg_restore --clean --dbname=<url> wf.dump` (see docs/server/records.md, Backups and damage).",
    );
  }
  return { dataDir: resolve(cwd, config.server.dataDir ?? ".wf"), cwd };
}
