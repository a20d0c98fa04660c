/**
 * The seam between the DSL and whatever runs steps. `act`/`ask` build a {@link StepRequest} and
 * hand it to the {@link Executor} bound to the run in progress; the executor does the I/O (the
 * runtime's HTTP client, or the server's in-process interpreter) and returns the raw result.
 * `@wf/core` itself does no I/O.
 */
import type { ResponseFormat, StepDownload } from "./protocol/index.js";

/** Per-step options of `act` and `ask`. */
export interface StepOptions {
  /** How long the step may take in the service, in ms. @default the executor's default (30_000 in the runtime) */
  timeoutMs?: number;
  /**
   * How many more times to try the step after it fails (a failed step in the service, or an ASK
   * answer that does not match its schema). @default 0
   */
  retries?: number;
}

/** Options of `check` and `check.soft`. */
export interface CheckOptions {
  /**
   * How long the statement is retried until it holds, in ms (like Playwright's `expect`); 0
   * evaluates it once. @default 5_000
   */
  timeoutMs?: number;
}

/** One step as the DSL hands it to the executor. */
export interface StepRequest {
  /** `CHECK`: an assertion (`check()`), sent to the service as an ASK with `check` (docs/protocol.md). */
  type: "ACT" | "ASK" | "CHECK";
  /** The instruction (ACT), question (ASK) or statement (CHECK), as the user wrote it. */
  instruction: string;
  /** For an ASK with a schema: the strict structured-output form of it (see `toResponseFormat`). */
  responseFormat?: ResponseFormat;
  /** Step timeout in ms, if the user set one. */
  timeoutMs?: number;
  /** Position of this step in the run, from 1. */
  index: number;
  /** Attempt number of this step, from 1 (more than 1 when `retries` re-runs it). */
  attempt: number;
  /** Where the step was called in the workflow file: `path:line:column`, when known. */
  callSite?: string;
  /** CHECK only: how long the service retries the statement (ms), and whether a failure is soft (`check.soft`). */
  check?: { timeoutMs: number; soft: boolean };
  /** The innermost {@link StepGroup} (`step()`) the step runs in; absent outside any. */
  groupId?: number;
}

/**
 * A group of steps: one call of `step(title, fn)` (Playwright Test's `test.step`). Groups nest;
 * `parentId` is the enclosing group's id.
 */
export interface StepGroup {
  /** The group's number in its run, from 1, in the order groups open. */
  id: number;
  /** The title given to `step()`. */
  title: string;
  /** The enclosing group's id; absent at the top level. */
  parentId?: number;
  /** Where the workflow file called `step()`: `path:line:column`, when known. */
  callSite?: string;
}

/** What the executor returns for a step that succeeded. */
export interface StepOutcome {
  /** The service's raw result: for an ASK, the answer JSON (still wrapped, not yet decoded). */
  result: unknown;
  /** The service's step id, if any. */
  stepId?: string;
  /** The files the step downloaded, as the service kept them (absent or empty: none). */
  downloads?: StepDownload[];
}

/**
 * Runs steps for the DSL. Implementations throw `StepFailedError` when the service reports the step
 * as failed, and `RunAbortedError` when `signal` aborts.
 */
export interface Executor {
  runStep(step: StepRequest, signal: AbortSignal): Promise<StepOutcome>;
  /**
   * Told when the DSL has decoded an ASK answer (or failed to): lets the executor record the typed
   * answer beside the raw one. Optional.
   */
  onStepDecoded?(step: StepRequest, outcome: { value?: unknown; error?: Error }): void;
  /** Told when a `step()` group opens, before any step in it. Optional. */
  onGroupStart?(group: StepGroup): void;
  /**
   * Told when a `step()` group closes: `error` is what its function threw; `softFailed` is true
   * when a `check.soft` in it failed (the group failed, the run went on). Optional.
   */
  onGroupEnd?(group: StepGroup, outcome: { error?: unknown; softFailed?: boolean }): void;
}

/** The log function a workflow handler receives: a message and optional structured data. */
export type Logger = (message: string, data?: Record<string, unknown>) => void;
