/**
 * Public types of `@wf/runtime`: the run record `runWorkflow()` returns and the events it emits
 * for reporters.
 */
import type { StepDownload, StepInterpreterKind, StepUsage, WireError } from "@wf/core/protocol";
import type { LockEntryChange } from "./lock.js";

/** Outcome of a run. */
export type RunStatus = "succeeded" | "failed" | "cancelled";

/** One step of a run, as recorded by the runtime. Secret param values are redacted. */
export interface StepRecord {
  /** Position in the run, from 1. */
  index: number;
  /** `CHECK`: an assertion (`check()` / `check.soft()`). */
  type: "ACT" | "ASK" | "CHECK";
  /** The instruction, question or statement (secrets redacted). */
  instruction: string;
  /** Where the workflow file called it: `path:line:column`. */
  callSite?: string;
  /** The service's step id of the last attempt. */
  stepId?: string;
  status: "succeeded" | "failed";
  /** Attempts made (more than 1 with `retries`). */
  attempts: number;
  /** ISO 8601 timestamps of the first attempt's start and the last attempt's end. */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The service's raw result (for an ASK: the answer JSON before decoding). */
  result?: unknown;
  /** For an ASK: the decoded, typed answer. */
  answer?: unknown;
  /**
   * Why it failed: the service's code and message (and its `details`, e.g. the closest
   * `candidates` of `WF_ELEMENT_NOT_FOUND`), or the decoding error.
   */
  error?: WireError;
  /** The page's URL after the step (of the last attempt), as the service reported it. */
  pageUrl?: string;
  /** Who carried the step out on the service: the grammar, or the model. */
  interpreter?: StepInterpreterKind;
  /** ACT: the grammar instruction the service executed (for a model-resolved step, what the model chose). */
  resolved?: string;
  /** Tokens and time of the step's model calls, summed over its attempts; absent when it made none. */
  usage?: StepUsage;
  /**
   * The files the step downloaded (its last attempt), as the service kept them: name, size in bytes,
   * media type, the URL they came from, and the `downloadId` that fetches them
   * (`ServiceClient.getDownload`). Absent when it downloaded none.
   */
  downloads?: StepDownload[];
  /** ACT: true when the service replayed the step's lock entry (no model call). */
  replayed?: boolean;
  /**
   * ACT (`--lock heal`): true when the lock entry's instruction no longer found its element and the step
   * was healed, by finding the recorded element again (role and name, then locator; no model call) or
   * else by the model resolving the step again. The entry was rewritten in place.
   */
  healed?: boolean;
  /**
   * ACT (`--lock read`): true when the lock had no entry for the step and the model resolved it
   * (nothing is recorded in `read`; `--lock frozen` fails such a step with `WF_LOCK_MISSING`).
   */
  lockEntryMissing?: boolean;
  /**
   * CHECK: whether the statement held (✓/✗), why, and what was seen on the page (quoted text,
   * the element and its state, the URL or title). `soft`: a `check.soft`, whose failure let the
   * workflow go on and failed the run at its end.
   */
  check?: { holds: boolean; reason: string; evidence: string; soft?: true };
  /** The innermost group (`step()`) the step ran in: a {@link GroupRecord}'s `id`; absent outside any. */
  groupId?: number;
}

/**
 * One group of steps: a call of `step(title, fn)` (Playwright Test's `test.step`). Its steps name
 * it by `groupId`; a nested group names its parent by `parentId`. Secrets are redacted.
 */
export interface GroupRecord {
  /** From 1, in the order groups opened. */
  id: number;
  title: string;
  /** The enclosing group's id; absent at the top level. */
  parentId?: number;
  /** Where the workflow file called `step()`: `path:line:column`. */
  callSite?: string;
  /**
   * `failed`: its function threw (`error`), or a `check.soft` in it failed (the workflow went on);
   * `running` only while it is open (in a `group-started` event, or a run cut short).
   */
  status: "running" | "succeeded" | "failed";
  /** ISO 8601 timestamps. `finishedAt` is empty while running. */
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** What its function threw. */
  error?: WireError;
}

/** One `log()` line of a run, in the order logged. Secrets are redacted. */
export interface LogRecord {
  /** ISO 8601 timestamp. */
  at: string;
  message: string;
  data?: Record<string, unknown>;
  /** How many steps had started when it was logged: it belongs after step `afterSteps` (0: before the first). */
  afterSteps: number;
  /** The innermost group (`step()`) it was logged in. */
  groupId?: number;
}

/** Model usage of a whole run: sums over its steps. */
export interface RunUsage {
  /** The models asked. */
  models: string[];
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** HTTP requests to the model provider (the SDK's retries, re-asks and the json_object fallback each count). */
  calls: number;
  /** Time spent waiting for the model, in ms. */
  durationMs: number;
  /** Steps that called the model. */
  steps: number;
  /** True when some step's token counts are the service's estimate (its `usage.estimated`). */
  estimated?: true;
}

/**
 * Version of the {@link RunRecord} shape (docs/run-report.md), bumped on a breaking change. The
 * records of `wf run` and of `wf trigger` (a stored run) share it.
 */
export const RUN_RECORD_VERSION = 1;

/** What `runWorkflow()` returns, whatever the outcome. */
export interface RunRecord {
  /** {@link RUN_RECORD_VERSION}: the shape this record follows. */
  version: typeof RUN_RECORD_VERSION;
  workflow: string;
  status: RunStatus;
  /** The validated params, secret values redacted. */
  params: Record<string, unknown>;
  /** The workflow's output, when it succeeded. */
  output?: unknown;
  /** Why it failed or was cancelled. */
  error?: WireError & { stepIndex?: number; callSite?: string };
  sessionId?: string;
  debuggerUrl?: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  steps: StepRecord[];
  /** Model usage of the run, when any step called a model. */
  usage?: RunUsage;
  /** The run's model budget (`--max-model-calls`), when it had one: `usage.calls` is counted against it. */
  maxModelCalls?: number;
  /**
   * What the run wrote to its action lock (`--lock write` / `heal`), entry by entry: the entry
   * before (`old`, absent when added) and after (`new`); absent when nothing changed.
   */
  lockChanges?: LockEntryChange[];
  /** Set when closing the session failed (the service's idle timeout then reclaims it); the run's status is unchanged. */
  closeError?: WireError;
  /** The run's step groups (`step()`), in the order they opened; absent when it had none. */
  groups?: GroupRecord[];
  /** The run's `log()` lines (and the runtime's own notes), in order; absent when there were none. */
  logs?: LogRecord[];
}

/** Events `runWorkflow()` emits through `onEvent`, in this order per run. */
export type RunEvent =
  | { type: "run-started"; workflow: string; sessionId: string; debuggerUrl: string; params: Record<string, unknown> }
  | { type: "step-started"; index: number; stepType: "ACT" | "ASK" | "CHECK"; instruction: string; callSite?: string; attempt: number; groupId?: number }
  | { type: "step-finished"; step: StepRecord }
  | { type: "log"; message: string; data?: Record<string, unknown>; groupId?: number }
  | { type: "group-started"; group: GroupRecord }
  | { type: "group-finished"; group: GroupRecord }
  | { type: "run-finished"; record: RunRecord };
