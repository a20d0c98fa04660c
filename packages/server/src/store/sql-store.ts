/**
 * The one SQL implementation of {@link Store}: the schema and every query, written once in the
 * PostgreSQL dialect that both drivers speak (PGlite is PostgreSQL compiled to WebAssembly).
 * A driver only provides an {@link SqlDatabase}: `query`, `transaction`, `close`.
 *
 * Layout: one row per session and per step; a step's state change rewrites that step's row only.
 * A step's schema is stored once per distinct schema in `wf_payloads` (keyed by its SHA-256) and
 * the step row refers to it. Records are JSON text (`record text`), parsed on read: a row that
 * does not parse is reported (`onCorrupt`) and answered as `WF_RECORD_CORRUPTED`, never skipped.
 */
import { createHash } from "node:crypto";
import type { WireError } from "@wf/core/protocol";
import { HttpProblem } from "../errors.js";
import type { CorruptRecord, RecoveredWork, SaveStepOptions, SessionOwner, SessionRecord, StepRecord, Store, StoredSession, SweepResult, UnfinishedScope } from "./store.js";

/** Something that runs one SQL statement with `$1`-style parameters. */
export interface SqlQueryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/** What a driver gives the SQL store. */
export interface SqlDatabase extends SqlQueryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Runs several `;`-separated statements (the schema). */
  exec(sql: string): Promise<void>;
  /**
   * Makes the space of deleted rows reusable and trims the write-ahead log, where the database
   * does not do it by itself (PGlite runs no autovacuum). Called after a sweep deleted rows.
   */
  compact?(): Promise<void>;
  close(): Promise<void>;
}

/** How long a client is asked to wait after a failed write, in ms. */
export const STORAGE_RETRY_AFTER_MS = 5_000;

/**
 * Called inside every write transaction just before it commits, with the operation's name
 * (`createSession`, `saveStep`, …) and the record written (a session or step, when there is one). Throwing fails the write as a full disk would: the
 * transaction rolls back and the caller gets `WF_STORAGE_UNAVAILABLE`. For tests.
 */
export type BeforeCommit = (operation: string, record: SessionRecord | StepRecord | undefined) => void | Promise<void>;

/** Options of {@link SqlStore}. */
export interface SqlStoreOptions {
  driver: Store["driver"];
  location: string;
  /** Told about every row that could not be read. @default writes to stderr */
  onCorrupt?: (record: CorruptRecord) => void;
  beforeCommit?: BeforeCommit;
}

/** The schema, created when missing. Version 2 (version 1 had no instances; it is upgraded in place). */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS wf_sessions (
  session_id text PRIMARY KEY,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  record text NOT NULL
);
CREATE INDEX IF NOT EXISTS wf_sessions_running ON wf_sessions (session_id) WHERE status = 'RUNNING';
CREATE INDEX IF NOT EXISTS wf_sessions_finished_at ON wf_sessions (finished_at);
CREATE TABLE IF NOT EXISTS wf_payloads (
  hash text PRIMARY KEY,
  body text NOT NULL
);
CREATE TABLE IF NOT EXISTS wf_steps (
  step_id text PRIMARY KEY,
  session_id text NOT NULL,
  idx integer NOT NULL,
  status text NOT NULL,
  idempotency_key text,
  schema_hash text,
  record text NOT NULL
);
CREATE INDEX IF NOT EXISTS wf_steps_session ON wf_steps (session_id, idx);
CREATE UNIQUE INDEX IF NOT EXISTS wf_steps_idempotency ON wf_steps (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS wf_steps_unfinished ON wf_steps (step_id) WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX IF NOT EXISTS wf_steps_schema ON wf_steps (schema_hash) WHERE schema_hash IS NOT NULL;
CREATE TABLE IF NOT EXISTS wf_logs (
  seq bigserial PRIMARY KEY,
  session_id text NOT NULL,
  at timestamptz NOT NULL,
  type text NOT NULL,
  record text NOT NULL
);
CREATE INDEX IF NOT EXISTS wf_logs_session ON wf_logs (session_id);
ALTER TABLE wf_sessions ADD COLUMN IF NOT EXISTS instance_id text;
CREATE TABLE IF NOT EXISTS wf_instances (
  instance_id text PRIMARY KEY,
  url text NOT NULL,
  lease_until timestamptz NOT NULL,
  started_at timestamptz NOT NULL
);
`;

/** The 503 problem of a write that failed; `cause` is the driver's error. */
export function storageUnavailable(location: string, cause: unknown): HttpProblem {
  const reason = (cause as NodeJS.ErrnoException)?.code ?? (cause as Error)?.message ?? String(cause);
  const message = (cause as Error)?.message && (cause as Error).message !== reason ? `${reason}: ${(cause as Error).message}` : reason;
  return new HttpProblem(
    "WF_STORAGE_UNAVAILABLE",
    `The server could not record this change in its database (${location}: ${message}), so nothing was done. Free disk space on the server or bring the database back, then retry.`,
    { retryAfterMs: STORAGE_RETRY_AFTER_MS, cause },
  );
}

/**
 * The 500 problem of a database read or write that failed because its files are damaged
 * (SQLSTATE `XX001` data corrupted, `XX002` index corrupted: a page that fails its checksum, a
 * table file shorter than its index says). Not retryable: no amount of waiting or disk space
 * brings the bytes back.
 */
export function storageCorrupt(driver: Store["driver"], location: string, cause: unknown): HttpProblem {
  const what = driver === "postgres" ? "restore the database from your PostgreSQL backup (pg_dump / pg_restore)" : `stop the server and restore a backup (\`wf store restore <backup file> --data-dir <data folder> --force\`), or move the data folder away to start empty`;
  return new HttpProblem(
    "WF_STORAGE_CORRUPT",
    `The database ${location} is damaged and could not read a record (${(cause as Error)?.message ?? String(cause)}). This is not a full disk and retrying will not help: ${what}.`,
    { cause },
  );
}

/** {@link Store} over any {@link SqlDatabase}. */
export class SqlStore implements Store {
  readonly driver: Store["driver"];
  readonly location: string;
  private readonly onCorrupt: (record: CorruptRecord) => void;
  private readonly beforeCommit: BeforeCommit | undefined;
  private closed = false;

  constructor(
    private readonly db: SqlDatabase,
    options: SqlStoreOptions,
  ) {
    this.driver = options.driver;
    this.location = options.location;
    this.onCorrupt = options.onCorrupt ?? ((r) => process.stderr.write(`wf server: ${corruptMessage(this.location, r)}\n`));
    this.beforeCommit = options.beforeCommit;
  }

  /** Creates the tables when missing. */
  async migrate(): Promise<void> {
    await this.db.exec(SCHEMA_SQL);
  }

  createSession(session: SessionRecord): Promise<void> {
    return this.write("createSession", async (tx) => {
      await tx.query("INSERT INTO wf_sessions (session_id, status, created_at, finished_at, instance_id, record) VALUES ($1, $2, $3, $4, $5, $6)", [
        session.sessionId,
        session.status,
        session.createdAt,
        session.finishedAt,
        session.instanceId ?? null,
        sessionJson(session),
      ]);
    }, session);
  }

  saveSession(session: SessionRecord): Promise<void> {
    return this.write("saveSession", (tx) => this.updateSession(tx, session), session);
  }

  createStep(step: StepRecord): Promise<void> {
    return this.write("createStep", (tx) => this.insertStep(tx, step), step);
  }

  saveStep(step: StepRecord, session?: SessionRecord, options: SaveStepOptions = {}): Promise<void> {
    return this.write("saveStep", async (tx) => {
      if (options.insert) await this.insertStep(tx, step);
      else await tx.query("UPDATE wf_steps SET status = $2, record = $3 WHERE step_id = $1", [step.stepId, step.status, stepJson(step).json]);
      if (session) await this.updateSession(tx, session);
    }, step);
  }

  async getSession(sessionId: string): Promise<StoredSession | undefined> {
    const { rows } = await this.read(() => this.db.query<{ record: string }>("SELECT record FROM wf_sessions WHERE session_id = $1", [sessionId]));
    if (rows.length === 0) return undefined;
    const session = this.parse<SessionRecord>("session", sessionId, rows[0]!.record);
    const stepRows = await this.read(() =>
      this.db.query<StepRow>(
        "SELECT s.step_id, s.record, p.body AS schema FROM wf_steps s LEFT JOIN wf_payloads p ON p.hash = s.schema_hash WHERE s.session_id = $1 ORDER BY s.idx",
        [sessionId],
      ),
    );
    const steps = stepRows.rows.map((row) => this.stepFromRow(row));
    return { session: { ...session, stepIds: steps.map((s) => s.stepId) }, steps };
  }

  async getStep(stepId: string): Promise<StepRecord | undefined> {
    const { rows } = await this.read(() =>
      this.db.query<StepRow>("SELECT s.step_id, s.record, p.body AS schema FROM wf_steps s LEFT JOIN wf_payloads p ON p.hash = s.schema_hash WHERE s.step_id = $1", [stepId]),
    );
    return rows.length === 0 ? undefined : this.stepFromRow(rows[0]!);
  }

  async findStepByIdempotencyKey(sessionId: string, key: string): Promise<StepRecord | undefined> {
    const { rows } = await this.read(() =>
      this.db.query<StepRow>(
        "SELECT s.step_id, s.record, p.body AS schema FROM wf_steps s LEFT JOIN wf_payloads p ON p.hash = s.schema_hash WHERE s.session_id = $1 AND s.idempotency_key = $2",
        [sessionId, key],
      ),
    );
    return rows.length === 0 ? undefined : this.stepFromRow(rows[0]!);
  }

  failUnfinished(sessionError: WireError, stepError: (step: StepRecord) => WireError, now: string, scope: UnfinishedScope): Promise<RecoveredWork> {
    // Which sessions are in scope, as a condition on `wf_sessions s` (its parameters follow).
    const [inScope, params] =
      "instanceId" in scope
        ? ["(s.instance_id = $1 OR s.instance_id IS NULL)", [scope.instanceId]]
        : ["(s.instance_id IS NOT NULL AND s.instance_id NOT IN (SELECT instance_id FROM wf_instances WHERE lease_until >= now()))", []];
    return this.write("failUnfinished", async (tx) => {
      const recovered: RecoveredWork = { sessionIds: [], stepIds: [], corrupt: [] };
      // Starts from the few unfinished steps (a partial index) and looks up each one's session.
      const steps = await tx.query<{ step_id: string; record: string }>(
        `SELECT st.step_id, st.record FROM wf_steps st JOIN wf_sessions s ON s.session_id = st.session_id WHERE st.status IN ('QUEUED', 'RUNNING') AND ${inScope} FOR UPDATE OF st SKIP LOCKED`,
        params,
      );
      for (const row of steps.rows) {
        const step = this.tryParse<StepRecord>("step", row.step_id, row.record, recovered.corrupt);
        if (!step) continue;
        const failed: StepRecord = {
          ...step,
          status: "FAILED",
          error: stepError(step),
          finishedAt: now,
          durationMs: step.startedAt ? Math.max(0, Date.parse(now) - Date.parse(step.startedAt)) : null,
        };
        await tx.query("UPDATE wf_steps SET status = 'FAILED', record = $2 WHERE step_id = $1", [row.step_id, JSON.stringify(failed)]);
        recovered.stepIds.push(row.step_id);
      }
      // Rows another instance is ending right now are skipped: it ends them.
      const sessions = await tx.query<{ session_id: string; record: string }>(
        `SELECT s.session_id, s.record FROM wf_sessions s WHERE s.status = 'RUNNING' AND ${inScope} FOR UPDATE OF s SKIP LOCKED`,
        params,
      );
      for (const row of sessions.rows) {
        const session = this.tryParse<SessionRecord>("session", row.session_id, row.record, recovered.corrupt);
        if (!session) continue;
        const failed: SessionRecord = { ...session, status: "FAILED", error: sessionError, finishedAt: now, updatedAt: now, version: session.version + 1 };
        await this.updateSession(tx, failed);
        recovered.sessionIds.push(row.session_id);
      }
      if (!("instanceId" in scope)) {
        // Registrations of lost instances with nothing left running are dropped.
        await tx.query(
          "DELETE FROM wf_instances i WHERE i.lease_until < now() AND NOT EXISTS (SELECT 1 FROM wf_sessions s WHERE s.instance_id = i.instance_id AND s.status = 'RUNNING')",
        );
      }
      return recovered;
    });
  }

  renewInstance(instanceId: string, url: string, leaseMs: number): Promise<boolean> {
    return this.write("renewInstance", async (tx) => {
      // The CTE reads the row as it was before this statement's upsert.
      const { rows } = await tx.query<{ alive: boolean | null }>(
        `WITH previous AS (SELECT lease_until >= now() AS alive FROM wf_instances WHERE instance_id = $1)
         INSERT INTO wf_instances (instance_id, url, lease_until, started_at) VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond', now())
         ON CONFLICT (instance_id) DO UPDATE SET url = EXCLUDED.url, lease_until = EXCLUDED.lease_until
         RETURNING (SELECT alive FROM previous) AS alive`,
        [instanceId, url, leaseMs],
      );
      return rows[0]?.alive === true;
    });
  }

  async sessionOwner(id: { sessionId: string } | { stepId: string }): Promise<SessionOwner | undefined> {
    const select = "SELECT s.session_id, s.instance_id, i.url, coalesce(i.lease_until >= now(), false) AS alive";
    const join = "LEFT JOIN wf_instances i ON i.instance_id = s.instance_id";
    const { rows } = await this.read(() =>
      "sessionId" in id
        ? this.db.query<OwnerRow>(`${select} FROM wf_sessions s ${join} WHERE s.session_id = $1`, [id.sessionId])
        : this.db.query<OwnerRow>(`${select} FROM wf_steps st JOIN wf_sessions s ON s.session_id = st.session_id ${join} WHERE st.step_id = $1`, [id.stepId]),
    );
    const row = rows[0];
    return row ? { sessionId: row.session_id, instanceId: row.instance_id ?? undefined, url: row.url ?? undefined, alive: row.alive === true } : undefined;
  }

  appendLog(sessionId: string, type: string, record: Record<string, unknown>): Promise<void> {
    return this.write("appendLog", async (tx) => {
      await tx.query("INSERT INTO wf_logs (session_id, at, type, record) VALUES ($1, $2, $3, $4)", [sessionId, new Date().toISOString(), type, JSON.stringify(record)]);
    });
  }

  async getLogs(sessionId: string, type: string): Promise<Array<Record<string, unknown>>> {
    const { rows } = await this.read(() => this.db.query<{ record: string }>("SELECT record FROM wf_logs WHERE session_id = $1 AND type = $2 ORDER BY seq", [sessionId, type]));
    return rows.flatMap((row) => {
      try {
        const record = JSON.parse(row.record) as unknown;
        return record !== null && typeof record === "object" ? [record as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  }

  async sweep(before: Date): Promise<SweepResult> {
    const result = await this.write("sweep", async (tx) => {
      const old = "SELECT session_id FROM wf_sessions WHERE status <> 'RUNNING' AND finished_at < $1";
      const steps = await tx.query<{ step_id: string }>(`DELETE FROM wf_steps WHERE session_id IN (${old}) RETURNING step_id`, [before.toISOString()]);
      await tx.query(`DELETE FROM wf_logs WHERE session_id IN (${old})`, [before.toISOString()]);
      const sessions = await tx.query<{ session_id: string }>(`DELETE FROM wf_sessions WHERE session_id IN (${old}) RETURNING session_id`, [before.toISOString()]);
      if (steps.rows.length > 0) {
        await tx.query("DELETE FROM wf_payloads p WHERE NOT EXISTS (SELECT 1 FROM wf_steps s WHERE s.schema_hash = p.hash)");
      }
      return { sessions: sessions.rows.length, steps: steps.rows.length, stepIds: steps.rows.map((r) => r.step_id), sessionIds: sessions.rows.map((r) => r.session_id) };
    });
    // The deletion is committed; reclaiming its space is best effort (the next sweep tries again).
    if (result.sessions > 0 || result.steps > 0) await this.db.compact?.().catch(() => undefined);
    return result;
  }

  /**
   * Bytes the records take in the database: tables, their indexes and TOAST, dead row versions
   * included (`pg_total_relation_size` of each `wf_` table). The database's files also hold the
   * write-ahead log and PostgreSQL's own catalogs, not counted here.
   */
  async tableBytes(): Promise<number> {
    const { rows } = await this.read(() =>
      this.db.query<{ n: string | number }>(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE c.relkind = 'r' AND c.relname LIKE 'wf\\_%' AND ns.nspname = current_schema()",
      ),
    );
    return Number(rows[0]!.n);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  // -------------------------------------------------------------------------------------------

  /** Inserts a step's row (and its schema, once per distinct schema). */
  private async insertStep(tx: SqlQueryable, step: StepRecord): Promise<void> {
    const { json, schemaHash, schemaJson } = stepJson(step);
    if (schemaHash !== null) await tx.query("INSERT INTO wf_payloads (hash, body) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING", [schemaHash, schemaJson]);
    await tx.query("INSERT INTO wf_steps (step_id, session_id, idx, status, idempotency_key, schema_hash, record) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      step.stepId,
      step.sessionId,
      step.index,
      step.status,
      step.idempotencyKey,
      schemaHash,
      json,
    ]);
  }

  private async updateSession(tx: SqlQueryable, session: SessionRecord): Promise<void> {
    await tx.query("UPDATE wf_sessions SET status = $2, finished_at = $3, record = $4 WHERE session_id = $1", [
      session.sessionId,
      session.status,
      session.finishedAt,
      sessionJson(session),
    ]);
  }

  /** Runs a write transaction; a failure becomes the 503 problem, or the 500 `WF_STORAGE_CORRUPT` for damaged files (the transaction rolled back). */
  private async write<T>(operation: string, fn: (tx: SqlQueryable) => Promise<T>, record?: SessionRecord | StepRecord): Promise<T> {
    if (this.closed) throw new Error(`The store ${this.location} is closed; the change (${operation}) was not recorded.`);
    try {
      return await this.db.transaction(async (tx) => {
        const result = await fn(tx);
        if (this.beforeCommit) await this.beforeCommit(operation, record);
        return result;
      });
    } catch (error) {
      throw this.problemOf(error);
    }
  }

  /** Runs a read; a failure of the database (not of a row) is the 503 problem too, or `WF_STORAGE_CORRUPT` for damaged files. */
  private async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error(`The store ${this.location} is closed; nothing can be read.`);
    try {
      return await fn();
    } catch (error) {
      throw this.problemOf(error);
    }
  }

  /** A driver's error as the caller sees it: a refused value as is, damage as 500, anything else as the retryable 503. */
  private problemOf(error: unknown): unknown {
    if (isDataException(error)) return error;
    if (isCorruption(error)) return storageCorrupt(this.driver, this.location, error);
    return storageUnavailable(this.location, error);
  }

  private stepFromRow(row: StepRow): StepRecord {
    const step = this.parse<StepRecord>("step", row.step_id, row.record);
    if (row.schema !== null && row.schema !== undefined) {
      step.request = { ...step.request, schema: this.parse<Record<string, unknown>>("payload", row.step_id, row.schema) };
    }
    return step;
  }

  /** Parses a row's JSON. @throws the 500 problem `WF_RECORD_CORRUPTED` (and reports the row). */
  private parse<T>(kind: CorruptRecord["kind"], id: string, text: string): T {
    const corrupt: CorruptRecord[] = [];
    const value = this.tryParse<T>(kind, id, text, corrupt);
    if (value === undefined) {
      throw new HttpProblem("WF_RECORD_CORRUPTED", `${corruptMessage(this.location, corrupt[0]!)}. Restore it from a backup, or delete the row.`, {
        extra: { record: { kind, id } },
      });
    }
    return value;
  }

  private tryParse<T>(kind: CorruptRecord["kind"], id: string, text: string, corrupt: CorruptRecord[]): T | undefined {
    try {
      const value = JSON.parse(text) as unknown;
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("the record is not a JSON object");
      return value as T;
    } catch (error) {
      const record: CorruptRecord = { kind, id, reason: (error as Error).message };
      corrupt.push(record);
      this.onCorrupt(record);
      return undefined;
    }
  }
}

/**
 * A value the database refused (SQLSTATE class 22: a NUL byte in text, a bad timestamp): a bug of
 * the caller, not the database being unavailable, so it stays a 500 rather than a 503 that asks
 * to free disk space.
 */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("22");
}

/** Damaged files (SQLSTATE `XX001` data corrupted, `XX002` index corrupted), never a full disk. */
function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "XX001" || code === "XX002";
}

interface OwnerRow {
  session_id: string;
  instance_id: string | null;
  url: string | null;
  alive: boolean | null;
}

interface StepRow {
  step_id: string;
  record: string;
  schema: string | null;
}

/** The message naming a corrupted row. */
export function corruptMessage(location: string, record: CorruptRecord): string {
  return `the ${record.kind} record ${record.id} in ${location} is corrupted and cannot be read (${record.reason})`;
}

function sessionJson(session: SessionRecord): string {
  const { stepIds: _stepIds, ...rest } = session;
  return JSON.stringify(rest);
}

/** A step's row text without its schema, and the schema as a payload stored once. */
function stepJson(step: StepRecord): { json: string; schemaHash: string | null; schemaJson: string | null } {
  const { schema, ...request } = step.request;
  const json = JSON.stringify({ ...step, request });
  if (schema === undefined) return { json, schemaHash: null, schemaJson: null };
  const schemaJson = JSON.stringify(schema);
  return { json, schemaHash: createHash("sha256").update(schemaJson).digest("hex"), schemaJson };
}
