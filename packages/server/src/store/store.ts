/**
 * The storage interface of the server (records of sessions, steps and stored-run logs) and the
 * record types it keeps. Two drivers implement it with the same SQL (`sql-store.ts`): PGlite,
 * embedded, and PostgreSQL through `pg` (`drivers.ts`). Every write is one transaction; a write
 * that fails rejects with the 503 problem `WF_STORAGE_UNAVAILABLE` and leaves nothing behind.
 */
import type { CheckRecipe, ReadRecipe, SessionKind, SessionState, StepDialog, StepDownload, StepInterpreterKind, StepSettle, StepState, StepType, StepUsage, WireError } from "@wf/core/protocol";

/** The public record of a session (what the session manager keeps and stores; `stepIds` is derived from the step rows, not stored). */
export interface SessionRecord {
  sessionId: string;
  kind: SessionKind;
  workflowId: string | null;
  /** Token that opens the session's debugger page and its live updates without the API key. */
  token: string;
  /** The job id reported with every step of the session. */
  jobTaskId: string;
  status: SessionState;
  version: number;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  currentUrl: string | null;
  output?: unknown;
  error: WireError | null;
  /** Whether the context runs behind a proxy. */
  proxied: boolean;
  stepIds: string[];
  /**
   * The server instance that holds the session's browser context (see `cluster/instances.ts`). Absent in
   * records of servers from before several instances could share a database.
   */
  instanceId?: string;
}

/** The record of a step: its wire status plus what the server keeps about the request. */
export interface StepRecord {
  stepId: string;
  jobTaskId: string;
  sessionId: string;
  index: number;
  type: StepType;
  step: string;
  status: StepState;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  result?: unknown;
  error: WireError | null;
  pageUrl: string | null;
  /** The request without `currentDom` (recorded by length and SHA-256 instead). */
  request: {
    schema?: Record<string, unknown>;
    currentPageURL?: string;
    currentDomBytes?: number;
    /** HMAC-SHA-256 of `currentDom` with the server's secret (see `config/request-secret.ts`). */
    currentDomHmac?: string;
    timeoutMs?: number;
  };
  idempotencyKey: string | null;
  /**
   * `hmac-sha256:<hex>`: HMAC-SHA-256 of the canonical request body with the server's secret, to
   * tell a reused idempotency key from a retry. Never a bare digest: the body may carry secrets.
   * Empty for records of older servers (their bare SHA-256 is dropped at start).
   */
  requestHash: string;
  /** True when a screenshot was taken after the step. */
  screenshot: boolean;
  /** What the interpreter reported (see `StepReport`), once the step ran. */
  interpreter?: StepInterpreterKind;
  resolved?: string;
  usage?: StepUsage;
  pageReduced?: boolean;
  replayed?: boolean;
  /** ASK answered by the model: its verified read recipe, or why none (see `StepReport`). */
  recipe?: ReadRecipe;
  /** A check the model decided: its verified check recipe. */
  checkRecipe?: CheckRecipe;
  noRecipe?: string;
  /** How the step waited for the page to settle (see `StepReport.settle`). */
  settle?: StepSettle;
  /** The files the step downloaded (see `sessions/downloads.ts`). */
  downloads?: StepDownload[];
  /** The JavaScript dialogs the page opened during the step (see `sessions/dialogs.ts`). */
  dialogs?: StepDialog[];
}

/** Options of {@link Store.saveStep}. */
export interface SaveStepOptions {
  /** Whether the step's row is created by this write (it has none yet). @default false */
  insert?: boolean;
}

/** A session read back from the store with its steps, in index order. */
export interface StoredSession {
  session: SessionRecord;
  steps: StepRecord[];
}

/** What {@link Store.failUnfinished} changed at start-up. */
export interface RecoveredWork {
  sessionIds: string[];
  stepIds: string[];
  /** Unfinished records whose row could not be read (each also reported through `onCorrupt`). */
  corrupt: CorruptRecord[];
}

/** A row whose JSON payload could not be read back. */
export interface CorruptRecord {
  /** `session`, `step` or `payload`. */
  kind: "session" | "step" | "payload";
  id: string;
  /** Why it could not be read (the JSON parser's message). */
  reason: string;
}

/** Where a session lives: the instance holding its browser context, as {@link Store.sessionOwner} reads it. */
export interface SessionOwner {
  sessionId: string;
  /** Undefined for records of servers from before instances. */
  instanceId: string | undefined;
  /** The instance's internal URL, when it is registered. */
  url: string | undefined;
  /** Whether the instance's lease is still running (it renewed it in time). */
  alive: boolean;
}

/** Which unfinished records {@link Store.failUnfinished} ends. */
export type UnfinishedScope =
  /** At start-up: this instance's sessions (and those of records without an instance). */
  | { instanceId: string }
  /** Sessions of instances whose lease expired (or that are not registered): ended by whichever instance gets there first. */
  | { lostInstances: true };

/** What a retention sweep deleted. */
export interface SweepResult {
  sessions: number;
  steps: number;
  /** Ids of the deleted steps (their screenshot files are deleted by the caller). */
  stepIds: string[];
  /** Ids of the deleted sessions (their trace files are deleted by the caller). */
  sessionIds: string[];
}

/** The records of the server. Create with `openStore` (`drivers.ts`). */
export interface Store {
  /** `pglite`, `postgres`, or `memory` (see `memory-store.ts`). */
  readonly driver: "pglite" | "postgres" | "memory";
  /** Where the records are, for messages: a folder, `memory`, or a URL without its password. */
  readonly location: string;
  /** Records a new session. */
  createSession(session: SessionRecord): Promise<void>;
  /** Replaces a session's record (its status, version, output, …). */
  saveSession(session: SessionRecord): Promise<void>;
  /**
   * Records a new step; its schema is stored once per distinct schema (`wf_payloads`).
   * @throws the 409-free `WF_STORAGE_UNAVAILABLE` problem on a failed write; a duplicate
   *   idempotency key in the same session is a failed write too (the caller checks first).
   */
  createStep(step: StepRecord): Promise<void>;
  /**
   * Replaces a step's record and, when given, its session's, in one transaction. With
   * `insert`, the step's row is created instead (its first write: a step whose `QUEUED` commit was
   * deferred, docs/decisions/0068-one-commit-per-step.md); a duplicate idempotency key fails the write.
   */
  saveStep(step: StepRecord, session?: SessionRecord, options?: SaveStepOptions): Promise<void>;
  /** A session and its steps, or undefined. @throws `WF_RECORD_CORRUPTED` (500) when a row can't be read. */
  getSession(sessionId: string): Promise<StoredSession | undefined>;
  /** A step, or undefined. @throws `WF_RECORD_CORRUPTED` (500) when its row can't be read. */
  getStep(stepId: string): Promise<StepRecord | undefined>;
  /** The step of a session made with an idempotency key, or undefined. */
  findStepByIdempotencyKey(sessionId: string, key: string): Promise<StepRecord | undefined>;
  /**
   * Every `RUNNING` session in `scope`, and the `QUEUED`/`RUNNING` steps of sessions that are not
   * still running on another live instance, become `FAILED` with `error` (one transaction; only
   * those rows are read; rows another instance is ending at the same moment are skipped).
   */
  failUnfinished(sessionError: WireError, stepError: (step: StepRecord) => WireError, now: string, scope: UnfinishedScope): Promise<RecoveredWork>;
  /**
   * Registers (or re-registers) a server instance with its internal URL and a lease of `leaseMs`
   * from now, by the database's clock.
   * @returns whether the instance's previous lease was still running (false on first registration,
   *   and when it had expired: its sessions may have been ended by another instance meanwhile).
   */
  renewInstance(instanceId: string, url: string, leaseMs: number): Promise<boolean>;
  /** The instance holding a session (`{ sessionId }`) or a step's session (`{ stepId }`), or undefined when there is no such record. */
  sessionOwner(id: { sessionId: string } | { stepId: string }): Promise<SessionOwner | undefined>;
  /** Appends a log record of a stored run. */
  appendLog(sessionId: string, type: string, record: Record<string, unknown>): Promise<void>;
  /** The log records of `type` of a session, in the order they were appended (a record that does not parse is left out). */
  getLogs(sessionId: string, type: string): Promise<Array<Record<string, unknown>>>;
  /** Deletes finished sessions (and their steps and logs) that finished before `before`, and payloads no step uses. */
  sweep(before: Date): Promise<SweepResult>;
  /** Closes the connection (or the embedded database). Idempotent. */
  close(): Promise<void>;
}
