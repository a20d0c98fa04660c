/**
 * Checks of the embedded database's folder (`<dataDir>/db`), so that a damaged store is refused by
 * name and never initialised over:
 * - {@link inspectPgliteFolder}, before PGlite starts: is this a new store (the data folder is
 *   missing or empty) or an existing one, and are the files PostgreSQL needs first whole
 *   (`PG_VERSION`, `global/pg_control` and its CRC, the WAL segments' sizes, relation files made
 *   of whole 8 KiB pages)?
 * - {@link verifyPgliteTables}, once it started: does every `wf_` table read whole, by a
 *   sequential scan (which checks each page's checksum) and through an index (which finds rows the
 *   table file lost)?
 * - {@link PgliteLog} keeps what PostgreSQL printed, to say why a start failed.
 * - {@link preserveStartFiles}: the few files a PostgreSQL start writes (`pg_control`, the relation
 *   cache files, `postmaster.pid`), put back as they were when the store is refused.
 * Every failure is a {@link StoreDamagedError} naming the data folder and what is damaged.
 */
import { existsSync } from "node:fs";
import { open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { StoreDamagedError } from "../errors.js";
import type { SqlQueryable } from "./sql-store.js";

/** PostgreSQL's page size (`BLCKSZ`): every relation file is a whole number of these. */
const PAGE_BYTES = 8192;
/** Size of `global/pg_control` (`PG_CONTROL_FILE_SIZE`). */
const CONTROL_FILE_BYTES = 8192;
/** `XLP_LONG_HEADER`: the first page of a WAL segment has the long header, which holds the segment size (bytes 32–35). */
const WAL_LONG_HEADER_FLAG = 0x0002;
/** A data folder's entries that do not make it a store: an older server's record file, and our own scratch copies. */
const NOT_A_STORE = [/^journal\.ndjson$/, /^db\.tmp-/, /^db\.in-use$/];

/** What {@link inspectPgliteFolder} found. */
export type PgliteFolderState = "new" | "existing";

/**
 * Decides whether `<dataDir>/db` may be created (`new`: the data folder is missing, empty, or
 * holds only an older server's `journal.ndjson`) or holds a store whose first files are whole
 * (`existing`). Reads only; writes nothing.
 * @throws {@link StoreDamagedError} for an empty or missing `db` beside wf's other files (its key,
 *   screenshots, traces), a `db` without `PG_VERSION`, a `pg_control` that is missing, short or
 *   fails its CRC, a WAL segment shorter than the segment size, a relation file that is not whole
 *   pages.
 */
export async function inspectPgliteFolder(dataDir: string, dbDir: string): Promise<PgliteFolderState> {
  const damaged = (damage: string) => new StoreDamagedError(dataDir, dbDir, damage);
  const rel = (path: string) => relative(dataDir, path) || ".";
  const entries = existsSync(dataDir) ? await readdir(dataDir) : [];
  const dbEntries = existsSync(dbDir) ? await readdirOrFile(dbDir) : undefined;
  if (dbEntries === "file") throw damaged(`${rel(dbDir)} is a file, not the database folder`);
  if (dbEntries === undefined || dbEntries.length === 0) {
    const others = entries.filter((name) => name !== basename(dbDir) && !NOT_A_STORE.some((re) => re.test(name)));
    if (dbEntries !== undefined) throw damaged(`the database folder ${rel(dbDir)} is empty${others.length ? `, beside ${list(others)}` : ""}`);
    if (others.length > 0) throw damaged(`there is no database folder ${rel(dbDir)}, yet the data folder holds ${list(others)}`);
    return "new";
  }

  const versionFile = join(dbDir, "PG_VERSION");
  if (!existsSync(versionFile)) throw damaged(`${rel(versionFile)} is missing, so the folder is not a database PostgreSQL can open`);
  const version = (await readFile(versionFile, "utf8")).trim();
  if (!/^\d+$/.test(version)) throw damaged(`${rel(versionFile)} does not hold a PostgreSQL version (${JSON.stringify(version.slice(0, 20))})`);

  const control = join(dbDir, "global", "pg_control");
  if (!existsSync(control)) throw damaged(`${rel(control)} is missing`);
  const controlBytes = await readFile(control);
  if (controlBytes.length !== CONTROL_FILE_BYTES) throw damaged(`${rel(control)} is ${controlBytes.length} bytes, not ${CONTROL_FILE_BYTES}`);
  if (!hasValidCrc(controlBytes)) throw damaged(`${rel(control)} (the control file) fails its CRC check: it was overwritten or partly written`);

  const wal = join(dbDir, "pg_wal");
  if (!existsSync(wal)) throw damaged(`the write-ahead log folder ${rel(wal)} is missing`);
  await checkWalSegments(wal, rel, damaged);
  for (const folder of [join(dbDir, "global"), ...(await subfolders(join(dbDir, "base")))]) await checkRelationFiles(folder, rel, damaged);
  return "existing";
}

/**
 * Reads every `wf_` table whole twice: by a sequential scan (every page read, so a checksum
 * failure or a short file shows) and through one of its indexes (a table file that lost pages
 * while its index still lists their rows shows as fewer rows, or as a read error). Runs in one
 * read-only transaction; on a store of 100,000 steps (165 MB) it takes about 1 s cold, 0.2 s warm.
 * @throws {@link StoreDamagedError} naming the table and its file.
 */
export async function verifyPgliteTables(db: { transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> }, dataDir: string, dbDir: string): Promise<void> {
  const tables = await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ name: string; file: string; indexed: boolean }>(
      `SELECT c.relname AS name, pg_relation_filepath(c.oid) AS file, EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid) AS indexed
       FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
       WHERE c.relkind = 'r' AND c.relname LIKE 'wf\\_%' AND ns.nspname = current_schema() ORDER BY c.relname`,
    );
    return rows;
  });
  for (const table of tables) {
    const where = `the table ${table.name} (${join(relative(dataDir, dbDir), table.file ?? "?")})`;
    const ident = `"${table.name.replace(/"/g, '""')}"`;
    try {
      await db.transaction(async (tx) => {
        await tx.query("SET TRANSACTION READ ONLY");
        await tx.query("SET LOCAL enable_indexscan = off");
        await tx.query("SET LOCAL enable_indexonlyscan = off");
        await tx.query("SET LOCAL enable_bitmapscan = off");
        const scanned = Number((await tx.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${ident}`)).rows[0]!.n);
        if (!table.indexed) return;
        await tx.query("SET LOCAL enable_indexscan = on");
        await tx.query("SET LOCAL enable_indexonlyscan = on");
        await tx.query("SET LOCAL enable_seqscan = off");
        const indexed = Number((await tx.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${ident}`)).rows[0]!.n);
        if (indexed !== scanned) {
          throw new StoreDamagedError(dataDir, dbDir, `${where} has lost rows: its index lists ${indexed}, the table file holds ${scanned}; the file was cut short or overwritten`);
        }
      });
    } catch (error) {
      if (error instanceof StoreDamagedError) throw error;
      throw new StoreDamagedError(dataDir, dbDir, `${where} can't be read: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** The last lines PostgreSQL printed (its log goes to PGlite's `onStderr`), to explain a failed start. */
export class PgliteLog {
  private readonly lines: string[] = [];

  /** For PGlite's `onStderr`/`onStdout`: keeps the line, returns false (PGlite's own handling goes on). */
  readonly write = (text: string): boolean => {
    for (const line of text.split("\n")) {
      const trimmed = line.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \w+ \[\d+\] /, "").trim();
      if (trimmed) this.lines.push(trimmed);
    }
    if (this.lines.length > 40) this.lines.splice(0, this.lines.length - 40);
    return false;
  };

  /**
   * What PostgreSQL said went wrong: its `PANIC`, `FATAL`, `ERROR`, `DETAIL` and `LOG` lines, without
   * routine ones and without its `HINT` (which may say to run initdb, which would wipe the store).
   */
  explain(): string {
    const wanted = this.lines.filter(
      (l) => /^(PANIC|FATAL|ERROR|DETAIL|LOG|WARNING):/.test(l) && !/shutting down|shut down|database system is ready|STATEMENT:/.test(l),
    );
    return wanted.slice(-6).join("; ");
  }
}

/**
 * What a PostgreSQL start writes before it can fail or be refused (`global/pg_control`, the
 * relation cache files `pg_internal.init`, `postmaster.pid`), read before the start, so that
 * {@link PreservedFiles.restore} puts the folder's bytes back as they were.
 */
export interface PreservedFiles {
  restore(): Promise<void>;
}

/** Reads the files a start writes; see {@link PreservedFiles}. */
export async function preserveStartFiles(dbDir: string): Promise<PreservedFiles> {
  const paths = [join(dbDir, "global", "pg_control"), join(dbDir, "global", "pg_internal.init"), join(dbDir, "postmaster.pid")];
  for (const db of await subfolders(join(dbDir, "base"))) paths.push(join(db, "pg_internal.init"));
  const saved = await Promise.all(paths.map(async (path) => ({ path, bytes: existsSync(path) ? await readFile(path) : undefined })));
  return {
    async restore() {
      for (const { path, bytes } of saved) {
        if (bytes) await writeFile(path, bytes);
        else await rm(path, { force: true });
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function readdirOrFile(path: string): Promise<string[] | "file"> {
  return (await stat(path)).isDirectory() ? readdir(path) : "file";
}

async function subfolders(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  return (await readdir(path, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(path, e.name));
}

function list(names: string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * Whether the control file's CRC-32C holds. Its layout differs between PostgreSQL versions, but
 * the CRC is always stored right after the bytes it covers, so any 4-byte-aligned position where
 * the CRC of the bytes before it matches the value there is the one (a chance match is 1 in 2³²
 * per position).
 */
function hasValidCrc(bytes: Buffer): boolean {
  let crc = 0xffffffff;
  for (let offset = 0; offset + 4 <= 1024; offset += 4) {
    for (let i = offset === 0 ? 0 : offset - 4; i < offset; i++) crc = CRC32C_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
    if (offset > 0 && ((crc ^ 0xffffffff) >>> 0) === bytes.readUInt32LE(offset)) return true;
  }
  return false;
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** Each WAL segment is as long as its first page's header says segments are (PostgreSQL writes them whole). */
async function checkWalSegments(wal: string, rel: (p: string) => string, damaged: (d: string) => StoreDamagedError): Promise<void> {
  const segments = (await readdir(wal)).filter((n) => /^[0-9A-F]{24}$/.test(n)).sort();
  let segmentBytes: number | undefined;
  const sizes: Array<[string, number]> = [];
  for (const name of segments) {
    const path = join(wal, name);
    const size = (await stat(path)).size;
    sizes.push([path, size]);
    if (size < 40) continue;
    const handle = await open(path, "r");
    try {
      const header = Buffer.alloc(40);
      await handle.read(header, 0, 40, 0);
      if ((header.readUInt16LE(2) & WAL_LONG_HEADER_FLAG) !== 0 && header.readUInt16LE(0) !== 0) segmentBytes ??= header.readUInt32LE(32);
    } finally {
      await handle.close();
    }
  }
  for (const [path, size] of sizes) {
    if (segmentBytes !== undefined ? size !== segmentBytes : size < 40 || size % PAGE_BYTES !== 0) {
      throw damaged(`the write-ahead log segment ${rel(path)} is ${size} bytes${segmentBytes !== undefined ? `, not ${segmentBytes}` : ""}: it was cut short`);
    }
  }
}

/** Relation files (`16384`, `16384_fsm`, `16384.1`) are whole pages. */
async function checkRelationFiles(folder: string, rel: (p: string) => string, damaged: (d: string) => StoreDamagedError): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (!entry.isFile() || !/^\d+(_(fsm|vm|init))?(\.\d+)?$/.test(entry.name)) continue;
    const path = join(folder, entry.name);
    const size = (await stat(path)).size;
    if (size % PAGE_BYTES !== 0) throw damaged(`the relation file ${rel(path)} is ${size} bytes, not a whole number of ${PAGE_BYTES}-byte pages: it was cut short`);
  }
}
