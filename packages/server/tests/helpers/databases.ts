/**
 * The two storage drivers as test parameters: what to pass `startServer` for each, and raw SQL
 * on the same database behind the server's back (to corrupt a row, or count what is there).
 */
import { join } from "node:path";
import { PGLITE_DIR, type ServerOptions } from "../../src/index.js";
import { startPostgres, type TestPostgres } from "./postgres.js";

/** One driver under test. */
export interface TestDatabase {
  driver: "pglite" | "postgres";
  /** Options for `startServer` (and the environment of a server child process) that use this database. */
  serverOptions(dataDir: string): Pick<ServerOptions, "dataDir" | "databaseUrl">;
  env(dataDir: string): Record<string, string>;
  /**
   * Runs SQL on the server's database directly. For PGlite, only while no server has it open
   * (PGlite is single-process).
   */
  sql<T = Record<string, unknown>>(dataDir: string, text: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** The embedded PGlite database in `<dataDir>/db`. */
export function pgliteDatabase(): TestDatabase {
  return {
    driver: "pglite",
    serverOptions: (dataDir) => ({ dataDir }),
    env: (dataDir) => ({ WF_DATA_DIR: dataDir }),
    async sql<T>(dataDir: string, text: string, params: unknown[] = []) {
      const { PGlite } = await import("@electric-sql/pglite");
      const db = await PGlite.create(join(dataDir, PGLITE_DIR));
      try {
        return (await db.query<T>(text, params)).rows;
      } finally {
        await db.close();
      }
    },
    async stop() {},
  };
}

/** A PostgreSQL database on a throwaway cluster (see `postgres.ts`); one database per data directory. */
export async function postgresDatabase(): Promise<TestDatabase> {
  const cluster: TestPostgres = await startPostgres();
  const urls = new Map<string, Promise<string>>();
  const urlOf = (dataDir: string) => {
    if (!urls.has(dataDir)) urls.set(dataDir, cluster.createDatabase());
    return urls.get(dataDir)!;
  };
  const { default: pg } = await import("pg");
  const known = new Map<string, string>();
  const database: TestDatabase = {
    driver: "postgres",
    serverOptions(dataDir) {
      const url = known.get(dataDir);
      if (!url) throw new Error(`call prepare(${dataDir}) first`);
      return { dataDir, databaseUrl: url };
    },
    env(dataDir) {
      const url = known.get(dataDir);
      if (!url) throw new Error(`call prepare(${dataDir}) first`);
      return { WF_DATA_DIR: dataDir, WF_DATABASE_URL: url };
    },
    async sql<T>(dataDir: string, text: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: known.get(dataDir) ?? (await urlOf(dataDir)) });
      await client.connect();
      try {
        return (await client.query(text, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    stop: () => cluster.stop(),
  };
  return Object.assign(database, {
    /** Creates the database of `dataDir` (call before `serverOptions`/`env`). */
    async prepare(dataDir: string) {
      known.set(dataDir, await urlOf(dataDir));
    },
  });
}

/** Makes `serverOptions(dataDir)` usable: creates the PostgreSQL database of `dataDir` (nothing for PGlite). */
export async function prepare(database: TestDatabase, dataDir: string): Promise<void> {
  const withPrepare = database as TestDatabase & { prepare?: (dataDir: string) => Promise<void> };
  await withPrepare.prepare?.(dataDir);
}
