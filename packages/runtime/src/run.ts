/**
 * `runWorkflow()`: runs a workflow's handler step by step against a wf service, through a
 * {@link ServiceClient}, and returns a {@link RunRecord}.
 */
import { forAuthor } from "./author-advice.js";
import { randomUUID } from "node:crypto";
import {
  RunAbortedError,
  StepFailedError,
  executeWorkflow,
  isWfError,
  parseParams,
  redactParams,
  redactValue,
  secretParamNames,
  secretValues,
  untilAborted,
  currentStepGroup,
  type Executor,
  type StepGroup,
  type StepOutcome,
  type StepRequest,
  type Workflow,
} from "@wf/core";
import { CheckAnswer, MAX_LONG_POLL_MS, type ScreenshotMode, type SessionContextOptions, type RunStepRequest, type StepStatus, type WireError } from "@wf/core/protocol";
import { resolve as resolvePath } from "node:path";
import { sleep } from "./_retry.js";
import { stepFiles } from "./step-files.js";
import type { ServiceClient } from "./client.js";
import { RUN_RECORD_VERSION, type GroupRecord, type LogRecord, type RunEvent, type RunRecord, type RunUsage, type StepRecord } from "./types.js";
import { openLock, runLockedAct, runLockedAsk, type FinishedStatus, type LockedAttemptOptions, type LockState, type RunLockOptions } from "./locked-steps.js";
import { diffLocks, type LockEntryChange } from "./lock.js";
import { ModelBudget } from "./model-budget.js";

/** Options of {@link runWorkflow}. */
export interface RunWorkflowOptions {
  /** Raw params, validated against the workflow's `params` schema (defaults applied). @default {} */
  params?: unknown;
  /** The service client the steps go through (see `createServiceClient`). */
  client: ServiceClient;
  /** Aborts the run: the step in flight is abandoned, the session closed, the record `cancelled`. */
  signal?: AbortSignal;
  /**
   * Receives the run's events in order (`run-started`, `group-started`, `step-started`,
   * `step-finished`, `log`, `group-finished`, `run-finished`). An exception it throws is ignored, so a reporter bug cannot leave a session open.
   */
  onEvent?: (event: RunEvent) => void;
  /** Service-side timeout of a step that sets none (`act(…, { timeoutMs })` wins), in ms. @default 30_000 */
  stepTimeoutMs?: number;
  /**
   * First delay between status polls when the service does not long-poll, in ms; doubles up to
   * 2_000. @default 250
   */
  pollIntervalMs?: number;
  /** Longest wait asked of one long-poll (`waitMs`), in ms; capped at 30_000. @default 30_000 */
  longPollMs?: number;
  /**
   * How long the runtime waits for a step's status beyond its `timeoutMs` before failing it with
   * `WF_STEP_TIMEOUT`, in ms. @default 30_000
   */
  statusGraceMs?: number;
  /** Time the closing of the session may take (a fresh timeout, not `signal`), in ms. @default 10_000 */
  closeTimeoutMs?: number;
  /**
   * The action lock: replay the ACTs it records (no model call), record those a model resolves.
   * @default none (as `off`)
   * @throws (before any session) an Error when the lock file is not valid JSON or not a wf lock.
   */
  lock?: RunLockOptions;
  /**
   * The most model calls the run may make, counted from each step's `usage.calls` (HTTP requests to
   * the provider: the SDK's retries, a retry after an invalid answer and the json_object fallback
   * each count). Once they are made, every later step is sent with `allowModel: false`, and one
   * that needs the model (an ACT the grammar cannot carry out, and, on a service with a model,
   * every ASK) fails `WF_MODEL_BUDGET_EXCEEDED`; it is never answered without the model instead.
   * 0: no model call at all. A step's own requests can take the count over: that step then fails
   * `WF_MODEL_BUDGET_EXCEEDED` too.
   * @default no limit
   * @throws (before any session) RangeError when it is not a whole number of 0 or more.
   */
  maxModelCalls?: number;
  /**
   * Ask the service to record a Playwright trace of the run's session (`trace: true` on create);
   * fetch it after the run with `client.getTrace(record.sessionId)`. `"retain-on-failure"`
   * (Playwright Test's mode): recorded too, but a run that succeeds closes its session with
   * `discardTrace: true`, so the service drops the trace unsaved (it has none to fetch). @default false
   */
  trace?: boolean | "retain-on-failure";
  /**
   * Which steps the service takes a screenshot after (`screenshot` on create; Playwright Test's
   * values): `on` every step, `only-on-failure` the failed ones, `off` none. Fewer pictures make
   * each step faster (the picture is taken before the next step may start); a debugger page
   * open on the session still gets every step's. @default the service's: `only-on-failure` (wf's own server)
   */
  screenshot?: ScreenshotMode;
  /**
   * How the files an ACT uploads (`upload "<path>" to "<field>"`) reach the service. `send`: read
   * here, relative to `uploadDir`, and sent with the step (`files`), for a service that does not
   * share this machine's disk; at most 10 MiB per step (`WF_UPLOAD_TOO_LARGE` before anything is
   * sent), a missing named file is `WF_UPLOAD_FILE_NOT_FOUND`. `local`: nothing is sent, the
   * service reads its own disk (the embedded server of `wf run`). @default "send"
   */
  uploads?: "send" | "local";
  /** Folder the paths of uploaded files resolve against with `uploads: "send"`. @default process.cwd() */
  uploadDir?: string;
  /**
   * How the session's browser context is made (`context` on create, Playwright's `use` names:
   * `baseURL`, `viewport`, `locale`, `userAgent`, a device descriptor's fields).
   * @default the service's plain context, no base URL
   */
  context?: SessionContextOptions;
  /**
   * How long a `check()` that sets no `timeoutMs` retries, in ms (Playwright's `expect: { timeout }`).
   * @default 5_000
   */
  checkTimeoutMs?: number;
  /**
   * Awaited before each step is sent (its first attempt), with what it is (the instruction
   * redacted): `wf run --debug` pauses there until the user says go on. The step's time starts
   * after it. Aborting the run's `signal` ends the wait. @default none
   */
  beforeStep?: (step: { index: number; type: StepRequest["type"]; instruction: string; callSite?: string }) => Promise<void>;
}

const MAX_POLL_INTERVAL_MS = 2_000;

/**
 * Runs `workflow` step by step: validates params, creates a step session, runs the handler with
 * `act`/`ask` sent to the service (each step run with a fresh idempotency key, its status awaited
 * by long-poll, or by polling with backoff when the service answers at once), closes the session
 * whatever happens, and returns the run record. Secret param values are redacted from the record
 * and every event (params, instructions, results, answers, output, messages).
 *
 * @returns the {@link RunRecord}: `succeeded`, `failed` (with `error`, and `stepIndex`/`callSite` when a step failed) or `cancelled`.
 * @throws `ParamsValidationError` (`WF_PARAMS_INVALID`) before any session is created.
 * @throws {@link ServiceError} when the session cannot be created, and `RunAbortedError` when
 *   `signal` aborts before it is: no run started, no events emitted.
 * @example
 * const record = await runWorkflow(wf, { params: { q: "pg" }, client, onEvent: console.log });
 */
export async function runWorkflow<P, O>(workflow: Workflow<P, O>, options: RunWorkflowOptions): Promise<RunRecord> {
  const params = parseParams(workflow, options.params);
  const secrets = secretValues(workflow, params);
  const redact = <T>(value: T): T => redactValue(value, secrets);
  const recordedParams = redact(redactParams(workflow, (params ?? {}) as Record<string, unknown>));
  const { client } = options;
  const signal = options.signal ?? new AbortController().signal;
  const emit = (event: RunEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A reporter's bug must not stop the run or leave its session open.
    }
  };

  if (signal.aborted) throw new RunAbortedError(signal.reason);
  const budget = new ModelBudget(options.maxModelCalls);
  const lock: LockState | undefined =
    options.lock && options.lock.mode !== "off" ? await openLock(options.lock, (params ?? {}) as Record<string, unknown>, secretParamNames(workflow)) : undefined;
  const startedAt = new Date();
  const t0 = performance.now();
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  // The create request gets no signal: aborting it after it was sent could orphan the session it
  // creates. On abort, wait (up to closeTimeoutMs) for its answer, close that session, then throw.
  const creating = client.createSession({
    browserMode: "REMOTE",
    ...(options.trace ? { trace: true } : {}),
    ...(options.screenshot ? { screenshot: options.screenshot } : {}),
    ...(options.context && Object.keys(options.context).length > 0 ? { context: options.context } : {}),
  });
  let session: Awaited<typeof creating>;
  try {
    session = await untilAborted(creating, signal);
  } catch (error) {
    if (signal.aborted) await closeLateSession(client, creating, closeTimeoutMs);
    throw error;
  }
  const sessionId = session.workflowId;
  emit({ type: "run-started", workflow: workflow.name, sessionId, debuggerUrl: session.debuggerUrl, params: recordedParams });

  const steps: StepRecord[] = [];
  const logs: LogRecord[] = [];
  const log = (message: string, data?: Record<string, unknown>) => {
    const groupId = currentStepGroup()?.id;
    const line: LogRecord = { at: new Date().toISOString(), message: redact(message), ...(data !== undefined ? { data: redact(data) } : {}), afterSteps: steps.length, ...(groupId !== undefined ? { groupId } : {}) };
    logs.push(line);
    emit({ type: "log", message: line.message, ...(line.data !== undefined ? { data: line.data } : {}), ...(groupId !== undefined ? { groupId } : {}) });
  };
  const executor = new ServiceExecutor({
    client,
    sessionId,
    emit,
    redact,
    secrets,
    steps,
    stepTimeoutMs: options.stepTimeoutMs ?? 30_000,
    pollIntervalMs: options.pollIntervalMs ?? 250,
    longPollMs: Math.min(options.longPollMs ?? MAX_LONG_POLL_MS, MAX_LONG_POLL_MS),
    statusGraceMs: options.statusGraceMs ?? 30_000,
    budget,
    log,
    ...(lock ? { lock } : {}),
    ...(options.uploads === "local" ? {} : { uploadDir: resolvePath(options.uploadDir ?? process.cwd()) }),
    ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
  });

  let output: unknown;
  let failure: unknown;
  let status: RunRecord["status"] = "succeeded";
  try {
    output = await untilAborted(
      executeWorkflow(workflow, {
        params,
        executor,
        signal,
        log,
        ...(options.checkTimeoutMs !== undefined ? { checkTimeoutMs: options.checkTimeoutMs } : {}),
      }),
      signal,
    );
  } catch (error) {
    failure = error;
    status = signal.aborted || (isWfError(error) && error.code === "WF_ABORTED") ? "cancelled" : "failed";
  }
  executor.finished = true;
  // On abort the handler is not awaited, but the step in flight is: its request was aborted with
  // the signal, so it settles at once, and its record and step-finished event come before the end.
  await executor.inFlight?.done;
  const groups = executor.groupRecords();

  let closeError: WireError | undefined;
  try {
    const discardTrace = options.trace === "retain-on-failure" && status === "succeeded";
    await client.closeSession(sessionId, { signal: AbortSignal.timeout(closeTimeoutMs), ...(discardTrace ? { discardTrace } : {}) });
  } catch (error) {
    const code = isWfError(error) ? (error as { problem?: { code?: string } }).problem?.code : undefined;
    if (code !== "WF_SESSION_CLOSED") closeError = toWireError(error, redact);
  }

  // What this run wrote to the lock (write, heal), entry by entry, for the report.
  const lockChanges = lock && (lock.options.mode === "write" || lock.options.mode === "heal") ? withStepIndex(diffLocks(lock.initial, lock.file), lock) : [];
  const record: RunRecord = {
    version: RUN_RECORD_VERSION,
    workflow: workflow.name,
    status,
    params: recordedParams,
    ...(status === "succeeded" && output !== undefined ? { output: redact(output) } : {}),
    ...(failure !== undefined ? { error: runError(failure, status, executor, redact) } : {}),
    sessionId,
    debuggerUrl: session.debuggerUrl,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - t0),
    steps,
    ...(totalUsage(steps) ? { usage: totalUsage(steps) } : {}),
    ...(budget.max !== undefined ? { maxModelCalls: budget.max } : {}),
    ...(lockChanges.length > 0 ? { lockChanges } : {}),
    ...(closeError ? { closeError } : {}),
    ...(groups.length > 0 ? { groups } : {}),
    ...(logs.length > 0 ? { logs } : {}),
  };
  emit({ type: "run-finished", record });
  return record;
}

interface ExecutorInit {
  client: ServiceClient;
  sessionId: string;
  emit: (event: RunEvent) => void;
  redact: <T>(value: T) => T;
  /** Secret values, sent with each step so the service keeps them out of its records too. */
  secrets: string[];
  steps: StepRecord[];
  stepTimeoutMs: number;
  pollIntervalMs: number;
  longPollMs: number;
  statusGraceMs: number;
  /** The run's model calls against `maxModelCalls`. */
  budget: ModelBudget;
  lock?: LockState;
  /** Where uploaded files are read from to be sent with their step; absent: the service reads its own disk. */
  uploadDir?: string;
  beforeStep?: RunWorkflowOptions["beforeStep"];
  /** Records and emits a log line (the runtime's own notes go here too). */
  log: (message: string, data?: Record<string, unknown>) => void;
}

interface OpenStep {
  record: StepRecord;
  t0: number;
  attemptT0: number;
  /** The service's `details` of the attempt's failure (candidates, fields, URL). */
  details?: unknown;
}

/** The runtime's {@link Executor}: each step is a run request and a wait for its status. */
class ServiceExecutor implements Executor {
  /** Set once the handler is done: a step after that is refused. */
  finished = false;
  /** The last step attempt that failed, and its error: where a run error came from. */
  lastFailure: { error: unknown; index: number; callSite: string | undefined } | undefined;
  /** The step being run, and a promise that settles when its runStep() does. */
  inFlight: { index: number; callSite: string | undefined; done: Promise<void> } | undefined;
  private longPollWorks = true;
  /** The page's URL after the last step (where the next one starts), for the lock's page check. */
  private pageUrl: string | null | undefined;
  private readonly open = new Map<number, OpenStep>();
  /** The run's step groups by id, with when each opened (`performance.now()`). */
  private readonly groups = new Map<number, { record: GroupRecord; t0: number }>();

  constructor(private readonly init: ExecutorInit) {}

  onGroupStart(group: StepGroup): void {
    const record: GroupRecord = {
      id: group.id,
      title: this.init.redact(group.title),
      ...(group.parentId !== undefined ? { parentId: group.parentId } : {}),
      ...(group.callSite ? { callSite: group.callSite } : {}),
      status: "running",
      startedAt: new Date().toISOString(),
      finishedAt: "",
      durationMs: 0,
    };
    this.groups.set(group.id, { record, t0: performance.now() });
    this.init.emit({ type: "group-started", group: { ...record } });
  }

  onGroupEnd(group: StepGroup, outcome: { error?: unknown; softFailed?: boolean }): void {
    const open = this.groups.get(group.id);
    if (!open || open.record.status !== "running") return;
    open.record.status = outcome.error !== undefined || outcome.softFailed ? "failed" : "succeeded";
    if (outcome.error !== undefined) open.record.error = toWireError(outcome.error, this.init.redact);
    open.record.finishedAt = new Date().toISOString();
    open.record.durationMs = Math.round(performance.now() - open.t0);
    this.init.emit({ type: "group-finished", group: { ...open.record } });
  }

  /** The groups in the order they opened (a group the run left open stays `running`). */
  groupRecords(): GroupRecord[] {
    return [...this.groups.values()].map((g) => g.record);
  }

  /** The titles of `groupId` and its ancestors, outermost first, as the step request's `groups`. */
  private groupPath(groupId: number | undefined): Array<{ id: string; title: string }> {
    const path: Array<{ id: string; title: string }> = [];
    for (let id = groupId; id !== undefined && path.length < 32; ) {
      const group = this.groups.get(id)?.record;
      if (!group) break;
      path.unshift({ id: String(group.id), title: group.title.slice(0, 1000) });
      id = group.parentId;
    }
    return path;
  }

  runStep(step: StepRequest, signal: AbortSignal): Promise<StepOutcome> {
    const running = this.run(step, signal);
    const inFlight = { index: step.index, callSite: step.callSite, done: running.then(() => {}, () => {}) };
    this.inFlight = inFlight;
    void inFlight.done.then(() => {
      if (this.inFlight === inFlight) this.inFlight = undefined;
    });
    return running;
  }

  private async run(step: StepRequest, signal: AbortSignal): Promise<StepOutcome> {
    if (signal.aborted) throw new RunAbortedError(signal.reason);
    if (this.finished) throw new RunAbortedError("the run is over; a step was called after the workflow finished");
    const { client, sessionId, redact } = this.init;
    const instruction = redact(step.instruction);
    if (this.init.beforeStep && step.attempt <= 1) {
      await untilAborted(this.init.beforeStep({ index: step.index, type: step.type, instruction, ...(step.callSite ? { callSite: step.callSite } : {}) }), signal);
    }
    const now = performance.now();
    let open = this.open.get(step.index);
    if (!open) {
      const record: StepRecord = {
        index: step.index,
        type: step.type,
        instruction,
        ...(step.callSite ? { callSite: step.callSite } : {}),
        ...(step.groupId !== undefined ? { groupId: step.groupId } : {}),
        status: "failed",
        attempts: 0,
        startedAt: new Date().toISOString(),
        finishedAt: "",
        durationMs: 0,
      };
      open = { record, t0: now, attemptT0: now };
      this.open.set(step.index, open);
      this.init.steps.push(record);
    }
    open.record.attempts = step.attempt;
    open.attemptT0 = now;
    delete open.record.error;
    delete open.record.result;
    delete open.record.answer;
    delete open.record.healed;
    delete open.record.lockEntryMissing;
    delete open.record.pageUrl;
    delete open.record.check;
    delete open.details;
    this.init.emit({
      type: "step-started",
      index: step.index,
      stepType: step.type,
      instruction,
      ...(step.callSite ? { callSite: step.callSite } : {}),
      attempt: step.attempt,
      ...(step.groupId !== undefined ? { groupId: step.groupId } : {}),
    });

    const timeoutMs = step.timeoutMs ?? this.init.stepTimeoutMs;
    let stepId: string | undefined;
    try {
      const files = step.type === "ACT" && this.init.uploadDir !== undefined ? await stepFiles(step.instruction, this.init.uploadDir) : undefined;
      const request: RunStepRequest = {
        step: step.instruction,
        // A check travels as an ASK with `check` (docs/protocol.md).
        type: step.type === "CHECK" ? "ASK" : step.type,
        ...(step.check ? { check: { timeoutMs: step.check.timeoutMs } } : {}),
        ...(files ? { files } : {}),
        ...(step.responseFormat ? { schema: step.responseFormat } : {}),
        timeoutMs,
        ...(this.init.secrets.length > 0 ? { redact: this.init.secrets.slice(0, 100) } : {}),
      };
      const groups = this.groupPath(step.groupId);
      if (groups.length > 0) request.groups = groups;
      const { budget } = this.init;
      const overBefore = budget.overspent;
      const attempt = async ({ replay, refind = false, allowModel = true, recipe, checkRecipe, deriveRecipe = false }: LockedAttemptOptions = {}): Promise<FinishedStatus> => {
        // The budget forbids the model once it is spent; the lock (frozen) may forbid it first.
        const budgetForbids = allowModel && !budget.allowsModel;
        const body = {
          ...request,
          ...(replay ? { replay, ...(refind ? { refind } : {}) } : {}),
          ...(recipe ? { recipe } : {}),
          ...(checkRecipe ? { checkRecipe } : {}),
          ...(deriveRecipe ? { deriveRecipe } : {}),
          ...(!allowModel || budgetForbids ? { allowModel: false } : {}),
        };
        const deadline = performance.now() + timeoutMs + this.init.statusGraceMs;
        // The run's answer waits for the step (one request for a quick step); the status route's
        // long-poll takes over when it has not ended by then, or the service answered at once.
        const waitMs = this.longPollWorks ? Math.max(1, Math.min(this.init.longPollMs, timeoutMs + this.init.statusGraceMs)) : 0;
        const started = await client.runStep(sessionId, body, { idempotencyKey: randomUUID(), signal, waitMs });
        stepId = started.stepId;
        open.record.stepId = stepId;
        const answered = started.stepStatus;
        let status = answered && isFinal(answered) ? answered : await this.waitForStep(stepId, timeoutMs, deadline, signal);
        budget.add(status.usage);
        if (budgetForbids && status.status === "FAILED" && status.error?.code === "WF_MODEL_FORBIDDEN") status = { ...status, error: budget.exceeded(status.error) };
        noteInterpretation(open.record, status, redact);
        if (status.pageUrl) open.record.pageUrl = redact(status.pageUrl);
        if (status.downloads?.length) open.record.downloads = status.downloads.map((d) => ({ ...d, name: redact(d.name), url: redact(d.url) }));
        else delete open.record.downloads;
        if (status.replayed) open.record.replayed = true;
        else delete open.record.replayed;
        return status;
      };
      let status: FinishedStatus;
      if (this.init.lock && step.type === "ACT") {
        const locked = await runLockedAct(step, this.init.lock, attempt, { pageUrl: this.pageUrl, log: (message) => this.init.log(message) });
        status = locked.status;
        if (locked.healed) open.record.healed = true;
        if (locked.unlockedModel) open.record.lockEntryMissing = true;
      } else if (this.init.lock && (step.type === "ASK" || step.type === "CHECK")) {
        const locked = await runLockedAsk(step, this.init.lock, attempt, { pageUrl: this.pageUrl, log: (message) => this.init.log(message) });
        status = locked.status;
        if (locked.healed) open.record.healed = true;
      } else {
        status = await attempt();
      }
      // This step's own calls (a retry after an invalid answer) went over the budget: it fails too.
      if (status.status === "SUCCEEDED" && budget.overspent && !overBefore) status = { ...status, status: "FAILED", error: budget.exceeded(undefined) };
      if (status.pageUrl !== undefined) this.pageUrl = status.pageUrl;
      if (status.status === "SUCCEEDED" && step.check) status = checkedAnswer(status);
      if (step.check) noteCheck(open.record, step.check.soft, status, redact);
      if (status.status === "FAILED") {
        const wire = status.error ?? { code: "WF_STEP_FAILED", message: "The service reported the step as failed without an error." };
        if (wire.details !== undefined) open.details = redact(wire.details);
        throw new StepFailedError({
          index: step.index,
          type: step.type,
          instruction,
          stepId,
          serviceCode: wire.code,
          // The service's advice is for HTTP clients; the run's reader is the workflow's author.
          serviceMessage: redact(forAuthor(wire)),
          ...(step.callSite ? { callSite: step.callSite } : {}),
        });
      }
      open.record.result = redact(status.result);
      if (step.type !== "ASK") this.finish(step, "succeeded");
      // An ASK is finished by onStepDecoded, once the DSL has decoded the answer.
      return { result: status.result, stepId, ...(status.downloads?.length ? { downloads: status.downloads } : {}) };
    } catch (error) {
      const thrown = signal.aborted && !(isWfError(error) && error.code === "WF_ABORTED") ? new RunAbortedError(signal.reason) : error;
      this.fail(step, thrown);
      throw thrown;
    }
  }

  onStepDecoded(step: StepRequest, outcome: { value?: unknown; error?: Error }): void {
    const open = this.open.get(step.index);
    if (!open) return;
    if (outcome.error) {
      this.fail(step, outcome.error);
    } else {
      open.record.answer = this.init.redact(outcome.value);
      this.finish(step, "succeeded");
    }
  }

  private fail(step: StepRequest, error: unknown): void {
    const open = this.open.get(step.index);
    if (!open) return;
    const wire = toWireError(error, this.init.redact);
    if (error instanceof StepFailedError || (isWfError(error) && error.code === "WF_STEP_FAILED")) {
      const failed = error as StepFailedError;
      open.record.error = { code: failed.serviceCode, message: failed.serviceMessage, ...(open.details !== undefined ? { details: open.details } : {}) };
    } else {
      open.record.error = { code: wire.code, message: wire.message };
    }
    this.lastFailure = { error, index: step.index, callSite: step.callSite };
    this.finish(step, "failed");
  }

  private finish(step: StepRequest, status: StepRecord["status"]): void {
    const open = this.open.get(step.index)!;
    open.record.status = status;
    open.record.finishedAt = new Date().toISOString();
    open.record.durationMs = Math.round(performance.now() - open.t0);
    this.init.emit({ type: "step-finished", step: { ...open.record } });
  }

  /**
   * Waits until the step is SUCCEEDED or FAILED: long-polls while the service holds its answers,
   * polls with backoff (from `pollIntervalMs`, doubling to 2 s) once it answers at once.
   */
  private async waitForStep(
    stepId: string,
    timeoutMs: number,
    /** When to give up, a `performance.now()` time: the step's `timeoutMs` plus `statusGraceMs` after it was sent. */
    deadline: number,
    signal: AbortSignal,
  ): Promise<FinishedStatus> {
    const { client } = this.init;
    let interval = this.init.pollIntervalMs;
    for (;;) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        return {
          status: "FAILED",
          error: {
            code: "WF_STEP_TIMEOUT",
            message: `the service did not report the step finished within ${timeoutMs + this.init.statusGraceMs} ms (its timeout plus ${this.init.statusGraceMs} ms)`,
          },
        };
      }
      const waitMs = Math.max(1, Math.min(this.init.longPollMs, Math.ceil(remaining)));
      const asked = performance.now();
      const status = await client.getStepStatus(stepId, { waitMs, signal });
      if (isFinal(status)) return status;
      // A service that long-polls holds an unfinished answer for waitMs (or its own cap, at least
      // seconds); one that answers an unfinished step at once does not: poll it with backoff instead.
      if (this.longPollWorks && performance.now() - asked < Math.min(waitMs / 2, 1_000)) this.longPollWorks = false;
      if (!this.longPollWorks) {
        try {
          await sleep(Math.min(interval, Math.max(0, deadline - performance.now())), signal);
        } catch {
          throw new RunAbortedError(signal.reason);
        }
        interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS);
      }
    }
  }
}

/**
 * A check's succeeded status as this runtime trusts it: its result must be a {@link CheckAnswer}
 * (`holds: true`). A service that does not know `check` answers the statement as a plain ASK; that
 * is no evidence, so the step fails `WF_CHECK_UNSUPPORTED` rather than pass.
 */
function checkedAnswer(status: FinishedStatus): FinishedStatus {
  if (CheckAnswer.safeParse(status.result).success) return status;
  return {
    ...status,
    status: "FAILED",
    error: {
      code: "WF_CHECK_UNSUPPORTED",
      message: "The service answered the check as a plain question (no { holds: true, reason, evidence }): it does not support checks. Run it on a wf service (docs/protocol.md, \"Checks\").",
    },
  };
}

/** Copies a check's outcome (holds, reason, evidence) onto its step record, from its answer or its failure's details. */
function noteCheck(record: StepRecord, soft: boolean, status: FinishedStatus, redact: <T>(value: T) => T): void {
  const source = (status.status === "SUCCEEDED" ? status.result : status.error?.details) as { reason?: unknown; evidence?: unknown } | undefined;
  const text = (value: unknown) => (typeof value === "string" ? redact(value) : undefined);
  const reason = text(source?.reason) ?? (status.status === "FAILED" ? redact(status.error?.message ?? "") : "");
  const evidence = text(source?.evidence) ?? "";
  record.check = { holds: status.status === "SUCCEEDED", reason, evidence, ...(soft ? { soft: true } : {}) };
}

/** Each change with the index of the step of this run whose lock key it has. */
function withStepIndex(changes: LockEntryChange[], lock: LockState): LockEntryChange[] {
  return changes.map((change) => {
    for (const [index, key] of lock.keys) {
      if (key.callSite === change.callSite && (key.ordinal ?? 1) === (change.ordinal ?? 1) && key.instruction === change.instruction) return { ...change, stepIndex: index };
    }
    return change;
  });
}

/** Waits up to `timeoutMs` for a session being created when the run was aborted, and closes it. */
async function closeLateSession(client: ServiceClient, creating: Promise<{ workflowId: string }>, timeoutMs: number): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const session = await untilAborted(creating, signal);
    await client.closeSession(session.workflowId, { signal });
  } catch {
    // Not created, or not in time: the service's idle timeout reclaims a late one.
  }
}


/**
 * Copies who ran an attempt, what it resolved to and its model usage onto the step's record;
 * usage adds up over attempts (a retried step paid for each).
 */
function noteInterpretation(record: StepRecord, status: Pick<StepStatus, "interpreter" | "resolved" | "usage">, redact: <T>(value: T) => T): void {
  if (status.interpreter) record.interpreter = status.interpreter;
  if (status.resolved) record.resolved = redact(status.resolved);
  if (status.usage) {
    const before = record.usage;
    record.usage = before
      ? {
          model: status.usage.model,
          promptTokens: before.promptTokens + status.usage.promptTokens,
          completionTokens: before.completionTokens + status.usage.completionTokens,
          totalTokens: before.totalTokens + status.usage.totalTokens,
          calls: before.calls + status.usage.calls,
          durationMs: before.durationMs + status.usage.durationMs,
          ...(before.estimated || status.usage.estimated ? { estimated: true } : {}),
        }
      : { ...status.usage };
  }
}

/** The model usage of a whole run: the sum over its steps; undefined when no step called a model. */
export function totalUsage(steps: readonly StepRecord[]): RunUsage | undefined {
  const used = steps.filter((s) => s.usage);
  if (used.length === 0) return undefined;
  const models = [...new Set(used.map((s) => s.usage!.model))];
  const sum = (key: "promptTokens" | "completionTokens" | "totalTokens" | "calls" | "durationMs") => used.reduce((n, s) => n + s.usage![key], 0);
  return {
    models,
    promptTokens: sum("promptTokens"),
    completionTokens: sum("completionTokens"),
    totalTokens: sum("totalTokens"),
    calls: sum("calls"),
    durationMs: Math.round(sum("durationMs")),
    steps: used.length,
    ...(used.some((s) => s.usage!.estimated) ? { estimated: true } : {}),
  };
}

/** An error as the record shows it: its wf code (or `WF_WORKFLOW_ERROR` for a plain error) and message, secrets redacted. */
function toWireError(error: unknown, redact: <T>(value: T) => T): WireError {
  if (isWfError(error)) return { code: error.code, message: redact(error.message) };
  if (error instanceof Error) return { code: "WF_WORKFLOW_ERROR", message: redact(`${error.name}: ${error.message}`) };
  return { code: "WF_WORKFLOW_ERROR", message: redact(String(error)) };
}

function runError(error: unknown, status: RunRecord["status"], executor: ServiceExecutor, redact: <T>(value: T) => T): NonNullable<RunRecord["error"]> {
  const wire = status === "cancelled" && !(isWfError(error) && error.code === "WF_ABORTED") ? toWireError(new RunAbortedError(), redact) : toWireError(error, redact);
  if (error instanceof StepFailedError || (isWfError(error) && error.code === "WF_STEP_FAILED")) {
    const failed = error as StepFailedError;
    return {
      ...wire,
      details: { serviceCode: failed.serviceCode, serviceMessage: redact(failed.serviceMessage), stepId: failed.stepId },
      stepIndex: failed.index,
      ...(failed.callSite ? { callSite: failed.callSite } : {}),
    };
  }
  const last = executor.lastFailure;
  if (status === "cancelled" && last && isWfError(last.error) && last.error.code === "WF_ABORTED") {
    return { ...wire, stepIndex: last.index, ...(last.callSite ? { callSite: last.callSite } : {}) };
  }
  if (last && last.error === error) return { ...wire, stepIndex: last.index, ...(last.callSite ? { callSite: last.callSite } : {}) };
  return wire;
}

/** Whether a step's status is final (SUCCEEDED or FAILED): nothing more will change it. */
function isFinal(status: Pick<StepStatus, "status">): boolean {
  return status.status === "SUCCEEDED" || status.status === "FAILED";
}
