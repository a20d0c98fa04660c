/**
 * A throwaway PostgreSQL cluster for tests: `initdb` in a temp folder, `pg_ctl start` on a free
 * port on 127.0.0.1 with its socket in that folder, one database per test run, stopped and deleted
 * by `stop()`. As root (CI machines), the cluster runs as the `postgres` user through `runuser`.
 * Without the server binaries (Debian's `postgresql` package), {@link startPostgres} throws: the
 * PostgreSQL tests fail with that message rather than skip.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A running cluster. */
export interface TestPostgres {
  /** Port on 127.0.0.1. */
  port: number;
  /** Creates a new empty database and returns its `postgres://` URL. */
  createDatabase(): Promise<string>;
  /** Stops the cluster and deletes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** The folder of `initdb`/`pg_ctl`: `WF_TEST_PG_BIN`, else the newest `/usr/lib/postgresql/<v>/bin`. */
export function findPostgresBin(): string {
  const configured = process.env.WF_TEST_PG_BIN;
  if (configured && existsSync(join(configured, "initdb"))) return configured;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) {
    throw new Error(
      "The PostgreSQL tests need the PostgreSQL server binaries (initdb, pg_ctl) and found none in /usr/lib/postgresql/*/bin. " +
        "Install them (`pnpm test:postgres`, i.e. `apt-get install -y postgresql` on Debian/Ubuntu; .ci/run does) or set WF_TEST_PG_BIN to their folder.",
    );
  }
  return join(root, versions[0]!, "bin");
}

/** Starts a cluster. @throws {@link Error} when the binaries are missing or the cluster won't start. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  const dir = await mkdtemp(join(tmpdir(), "wf-pg-"));
  const asRoot = process.getuid?.() === 0;
  const as = async (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]] : [join(bin, command), args];
    return run(file, argv, { cwd: dir, timeout: 120_000 });
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const data = join(dir, "data");
  await as("initdb", ["-D", data, "-A", "trust", "-U", "wf", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  await as("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, "start"]);
  let stopped = false;
  let databases = 0;
  const { default: pg } = await import("pg");
  return {
    port,
    async createDatabase() {
      const name = `wf_test_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: `postgres://wf@127.0.0.1:${port}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://wf@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
