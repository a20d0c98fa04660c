/**
 * Benchmark (not a test): what records cost in the database, over both drivers. Writes go through
 * the store directly, as the session manager makes them (no browser): per step a create (QUEUED),
 * RUNNING, and the end with its session's version in one transaction; every 5th step is an ASK
 * with the same 1 KB schema (stored once). Two workloads:
 * - sessions of 1,000 steps;
 * - 100,000 steps in sessions of 20.
 * At each quarter it prints the bytes the records take (tables, indexes, dead row versions:
 * `SqlStore.tableBytes`) per step so far, to show the growth is linear, and the size of the
 * database on disk (with the write-ahead log and catalogs); then the restart time: opening the store and failing what was unfinished (the last
 * session is left open), as the server does at start.
 *
 * Run: `pnpm --filter @wf/server bench:storage`. `WF_BENCH_STEPS=20000` scales the second
 * workload; `WF_BENCH_DRIVERS=pglite` runs one driver. PostgreSQL: `WF_BENCH_DATABASE_URL`, else a
 * throwaway cluster from Debian's binaries (tests/helpers/postgres.ts).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openStore, PGLITE_DIR, type SqlStore } from "../src/index.js";
import type { SessionRecord, StepRecord } from "../src/store/store.js";
import { startPostgres } from "../tests/helpers/postgres.js";

const TOTAL_STEPS = Number(process.env.WF_BENCH_STEPS ?? 100_000);
const DRIVERS = (process.env.WF_BENCH_DRIVERS ?? "pglite,postgres").split(",");
const SCHEMA = {
  type: "object",
  properties: Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`field${i}`, { type: "string", description: `The value of column ${i} of the table` }])),
  required: Array.from({ length: 24 }, (_, i) => `field${i}`),
  additionalProperties: false,
};

interface Target {
  name: string;
  open(): Promise<SqlStore>;
  size(store: SqlStore): Promise<number>;
  cleanup(): Promise<void>;
}

async function pgliteTarget(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-storage-"));
  return {
    name: "PGlite",
    open: () => openStore({ dataDir }) as Promise<SqlStore>,
    // The database folder on disk (du: allocated bytes).
    size: async () => Number(execFileSync("du", ["-sb", join(dataDir, PGLITE_DIR)], { encoding: "utf8" }).split("\t")[0]),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function postgresTarget(): Promise<Target> {
  const configured = process.env.WF_BENCH_DATABASE_URL;
  const cluster = configured ? undefined : await startPostgres();
  const url = configured ?? (await cluster!.createDatabase());
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-storage-"));
  const { default: pg } = await import("pg");
  return {
    name: "PostgreSQL",
    open: () => openStore({ dataDir, databaseUrl: url }) as Promise<SqlStore>,
    size: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("CHECKPOINT").catch(() => undefined);
        return Number((await client.query("SELECT pg_database_size(current_database()) AS n")).rows[0].n);
      } finally {
        await client.end();
      }
    },
    cleanup: async () => {
      await cluster?.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function newSession(): SessionRecord {
  const now = new Date().toISOString();
  return {
    sessionId: randomBytes(12).toString("hex"),
    kind: "STEP",
    workflowId: null,
    token: randomBytes(24).toString("base64url"),
    jobTaskId: randomBytes(12).toString("hex"),
    status: "RUNNING",
    version: 1,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    currentUrl: null,
    error: null,
    proxied: false,
    stepIds: [],
  };
}

async function writeStep(store: SqlStore, session: SessionRecord, index: number, finish: boolean): Promise<void> {
  const ask = index % 5 === 4;
  const step: StepRecord = {
    stepId: randomBytes(12).toString("hex"),
    jobTaskId: session.jobTaskId,
    sessionId: session.sessionId,
    index,
    type: ask ? "ASK" : "ACT",
    step: ask ? "the prices of the plans in the table" : `click "Next page" (${index})`,
    status: "QUEUED",
    createdAt: new Date().toISOString(),
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    error: null,
    pageUrl: null,
    request: ask ? { schema: SCHEMA } : {},
    idempotencyKey: null,
    requestHash: `hmac-sha256:${randomBytes(32).toString("hex")}`,
    screenshot: false,
  };
  await store.createStep(step);
  session.stepIds.push(step.stepId);
  Object.assign(step, { status: "RUNNING", startedAt: new Date().toISOString() });
  await store.saveStep(step);
  if (!finish) return;
  const now = new Date().toISOString();
  Object.assign(step, {
    status: "SUCCEEDED",
    finishedAt: now,
    durationMs: 120,
    pageUrl: "https://example.com/plans?page=2",
    result: ask ? Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`field${i}`, `value ${i}`])) : { url: "https://example.com/plans?page=2" },
    interpreter: "grammar",
    screenshot: true,
  });
  session.version += 1;
  session.updatedAt = now;
  session.currentUrl = step.pageUrl as string;
  await store.saveStep(step, session);
}

async function workload(target: Target, label: string, sessions: number, stepsPerSession: number): Promise<void> {
  let store = await target.open();
  const base = await target.size(store);
  const total = sessions * stepsPerSession;
  const quarters = new Set([0.25, 0.5, 0.75, 1].map((q) => Math.round(q * sessions)));
  const started = performance.now();
  let written = 0;
  process.stdout.write(`\n${target.name}, ${label}: ${sessions.toLocaleString("en-US")} × ${stepsPerSession.toLocaleString("en-US")} steps\n`);
  for (let s = 1; s <= sessions; s++) {
    const session = newSession();
    await store.createSession(session);
    const last = s === sessions;
    for (let i = 0; i < stepsPerSession; i++) await writeStep(store, session, i, !(last && i === stepsPerSession - 1));
    written += stepsPerSession;
    // Every session but the last ends, as `POST /workflow/step/close` would.
    if (!last) await store.saveSession({ ...session, status: "SUCCEEDED", finishedAt: new Date().toISOString(), version: session.version + 1 });
    if (quarters.has(s)) {
      const bytes = await store.tableBytes();
      const disk = (await target.size(store)) - base;
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `  ${written.toLocaleString("en-US").padStart(8)} steps: records ${(bytes / 1e6).toFixed(1).padStart(6)} MB = ${Math.round(bytes / written).toLocaleString("en-US").padStart(5)} bytes/step; on disk +${(disk / 1e6).toFixed(1)} MB; ${Math.round(written / seconds).toLocaleString("en-US")} steps/s\n`,
      );
    }
  }
  await store.close();
  const t0 = performance.now();
  store = await target.open();
  const opened = performance.now();
  const recovered = await store.failUnfinished({ code: "WF_SERVER_RESTARTED", message: "bench" }, () => ({ code: "WF_SERVER_RESTARTED", message: "bench" }), new Date().toISOString(), { instanceId: "bench" });
  const done = performance.now();
  process.stdout.write(
    `  restart: ${Math.round(done - t0).toLocaleString("en-US")} ms (open ${Math.round(opened - t0)} ms, failing ${recovered.sessionIds.length} session and ${recovered.stepIds.length} step ${Math.round(done - opened)} ms); total ${total.toLocaleString("en-US")} steps; RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB\n`,
  );
  await store.close();
}

// A stopped bench still stops its throwaway PostgreSQL cluster and deletes its folders.
const cleanups = new Set<() => Promise<void>>();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all([...cleanups].map((c) => c().catch(() => undefined))).finally(() => process.exit(130));
  });
}

for (const driver of DRIVERS) {
  const makeTarget = driver === "postgres" ? postgresTarget : pgliteTarget;
  for (const [label, sessions, perSession] of [
    ["1,000-step sessions", Math.max(1, Math.round(TOTAL_STEPS / 100_000 * 3)), 1_000],
    ["20-step sessions", Math.round(TOTAL_STEPS / 20), 20],
  ] as const) {
    const target = await makeTarget();
    cleanups.add(target.cleanup);
    try {
      await workload(target, label, sessions, perSession);
    } finally {
      cleanups.delete(target.cleanup);
      await target.cleanup();
    }
  }
}
