/**
 * The step runner: runs one step of a session (its queue calls it, one at a time) and records its
 * outcome. It sets the step's deadline (its `timeoutMs`, else the server's `stepTimeoutMs`), aborts
 * it on that deadline, on the caller's signal or when the session closes, keeps the step's secrets
 * out of everything recorded (redaction), decides which steps get a screenshot (the screenshot
 * policy, {@link wantsScreenshot}) and commits the outcome before anyone waiting hears of it
 * ({@link StepRunner.finishStep}).
 */
import { isWfError, redactValue } from "@wf/core";
import type { ScreenshotMode, WireError } from "@wf/core/protocol";
import { StepExecutionError } from "../errors.js";
import type { StepInterpreter, StepReport } from "../interpreter/index.js";
import type { ResolvedServerOptions } from "../config/options.js";
import type { StoreRetry } from "../store/retry.js";
import type { SessionRecord, StepRecord, Store } from "../store/store.js";
import type { ChangeFeed } from "./feed.js";
import type { IdleTimers } from "./idle.js";
import { isFinished, type SessionRegistry } from "./registry.js";
import { PROBE_TIMEOUT_MS, saveScreenshot } from "./session-browser.js";
import { STORM_DIALOGS, STORM_WINDOW_MS } from "./dialogs.js";
import type { Telemetry } from "../observability/telemetry.js";
import type { LiveSession, StepInput } from "./types.js";

/** Failures that may come from a page that stopped responding: the liveness probe tells. */
const TIMEOUT_CODES = new Set(["WF_STEP_TIMEOUT", "WF_NAVIGATION_TIMEOUT"]);

/** Failures that say no more than the step's own deadline does. */
const GENERIC_CODES = new Set(["WF_STEP_TIMEOUT", "WF_ABORTED", "WF_SESSION_CLOSED"]);

/** How long a timed-out step's interpreter call may take to wind down before the next step starts, in ms. */
const SETTLE_GRACE_MS = 2_000;
/** How long a step runs before its RUNNING state is committed to the store, in ms (a quicker step commits only its end). */
const RUNNING_WRITE_DELAY_MS = 250;

/** What a step's outcome is, as recorded. */
type Outcome = { result?: unknown; error?: WireError; endedAt?: string };

/** What the {@link StepRunner} works with. */
export interface StepRunnerParts {
  options: ResolvedServerOptions;
  interpreter: StepInterpreter;
  store: Store;
  storeRetry: StoreRetry;
  registry: SessionRegistry;
  feed: ChangeFeed;
  idle: IdleTimers;
  /** Folder of the screenshots taken after steps. */
  screenshotDir: string;
  /** What operators see: log lines and metrics of step outcomes and page faults. */
  telemetry: Telemetry;
}

export class StepRunner {
  constructor(private readonly parts: StepRunnerParts) {}

  /**
   * Runs one step (the session's queue calls it, one at a time). `onFinished` is called as soon as
   * the step's outcome is recorded; the screenshot is taken after that, still inside the queue, so
   * the answer isn't delayed by it and the next step still sees the page as this one left it.
   * Never throws: whatever goes wrong becomes the step's `FAILED` outcome.
   */
  async execute(
    session: SessionRecord,
    live: LiveSession,
    step: StepRecord,
    input: StepInput,
    externalSignal: AbortSignal | undefined,
    onFinished: () => void,
  ): Promise<void> {
    const { registry, feed, store, options } = this.parts;
    /** Settles `live.capture` once this step's picture is recorded, or when there is none. */
    let pictureRecorded: (() => void) | undefined;
    try {
      if (session.status !== "RUNNING" || registry.stopping) {
        if (registry.stopping) return;
        await this.finishStep(session, step, {
          error: session.error ?? { code: "WF_SESSION_CLOSED", message: `Session ${session.sessionId} was closed (${session.status}) before this step ran.` },
        });
        return;
      }
      step.status = "RUNNING";
      step.startedAt = new Date().toISOString();
      feed.touch(session, step.stepId);
      // RUNNING is committed only for a step still running after RUNNING_WRITE_DELAY_MS: no answer
      // depends on it (a restart fails QUEUED and RUNNING steps alike), and a durable commit on the
      // event loop while the step acts costs a quick step ~2 ms (docs/decisions/0035-a-step-through-the-server-cut-and-kept.md). The step's
      // end waits for a write that started, so the two rows never cross.
      let runningRecorded: Promise<void> | undefined;
      // A step whose QUEUED commit was deferred (decision 0068) gets its row now instead.
      const runningWrite = setTimeout(
        () => (runningRecorded = (registry.unrecorded.has(step.stepId) ? registry.record([step.stepId]) : store.saveStep({ ...step })).catch(() => undefined)),
        RUNNING_WRITE_DELAY_MS,
      );

      const timeoutMs = input.timeoutMs ?? options.stepTimeoutMs;
      const controller = new AbortController();
      live.running = controller;
      const report: StepReport = {};
      // The deadline's error is made when it fires: a model call in flight then names the model.
      let deadlineError: StepExecutionError | undefined;
      const timer = setTimeout(() => controller.abort((deadlineError = stepTimeout(timeoutMs, report))), timeoutMs);
      const onExternalAbort = () => controller.abort(externalSignal?.reason ?? new StepExecutionError("WF_ABORTED", "The step was aborted."));
      if (externalSignal?.aborted) onExternalAbort();
      else externalSignal?.addEventListener("abort", onExternalAbort, { once: true });

      live.secrets.add(input.redact);
      const deadlineAt = Date.now() + timeoutMs;
      // Liveness probes over the step's last PROBE_TIMEOUT_MS, one after the other, so that at the
      // deadline the page's silence is known: a step that times out on a page that does not answer
      // fails WF_PAGE_UNRESPONSIVE on time (a page that stops answering later is known 2 s later).
      const liveness = new Liveness(() => live.browser.responds(PROBE_TIMEOUT_MS));
      const probeTimer = setTimeout(() => liveness.start(), Math.max(0, timeoutMs - PROBE_TIMEOUT_MS));
      // Under the session's `fail` dialog rule, a dialog fails the running step at once.
      live.browser.dialogs.duringStep(
        (error) => controller.abort(error),
        () => controller.abort(new StepExecutionError("WF_PAGE_UNRESPONSIVE", `it opens dialogs in a loop (${STORM_DIALOGS} within ${STORM_WINDOW_MS / 1000} s)`)),
      );
      const work = live.browser.interpret(this.parts.interpreter, options, input, { timeoutMs, signal: controller.signal, secrets: secretsOf(input), report });
      const aborted = new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
      });
      let outcome: Outcome;
      let unresponsive = false;
      try {
        outcome = { result: await Promise.race([work, aborted]) };
        outcome.endedAt = new Date().toISOString();
      } catch (error) {
        outcome = { error: toWireError(error), endedAt: new Date().toISOString() };
        if (outcome.error!.code === "WF_PAGE_UNRESPONSIVE") {
          unresponsive = true;
        } else if (TIMEOUT_CODES.has(outcome.error!.code) && session.status === "RUNNING" && !registry.stopping) {
          unresponsive = !(await liveness.verdict());
          if (unresponsive) outcome.error = { ...outcome.error!, message: `its main thread did not answer for ${PROBE_TIMEOUT_MS / 1000} s (a script that never ends), so the step could not finish (${outcome.error!.message})` };
        }
        // Let the interpreter's call wind down before the next step touches the page (a page that
        // does not answer never lets it: it is closed below instead). When the step's own deadline
        // fired first, the interpreter's failure, if it comes meanwhile, names the cause better
        // (a navigation's WF_NAVIGATION_TIMEOUT says how far the page got).
        if (!unresponsive) {
          const late = await Promise.race([work.then(() => undefined, (e: unknown) => e), delay(SETTLE_GRACE_MS)]);
          const lateError = late === undefined ? undefined : toWireError(late);
          if (deadlineError && error === deadlineError && lateError && !GENERIC_CODES.has(lateError.code)) outcome.error = lateError;
        }
      } finally {
        clearTimeout(timer);
        clearTimeout(probeTimer);
        liveness.stop();
        clearTimeout(runningWrite);
        externalSignal?.removeEventListener("abort", onExternalAbort);
        live.running = undefined;
      }
      // What the step downloaded (waited for within its time left) and the dialogs it ran into.
      const dialogs = live.browser.dialogs.take();
      const downloads = await live.browser.downloads.take(outcome.error || unresponsive ? 0 : deadlineAt - Date.now());
      const extraFailure = downloads.failure ?? dialogs.failure;
      if (!outcome.error && extraFailure) outcome = { error: toWireError(extraFailure), endedAt: new Date().toISOString() };
      if (downloads.downloads.length) step.downloads = downloads.downloads;
      if (dialogs.dialogs.length) step.dialogs = dialogs.dialogs;
      if (unresponsive) outcome.error = await this.closeUnresponsivePage(session, live, outcome.error!);
      // Every secret of the session so far: a URL or a page may still carry an earlier step's.
      const redact = <T>(value: T): T => live.secrets.redactor.value(redactValue(value, secretsOf(input)));
      outcome = redactOutcome(outcome, redact);
      Object.assign(step, redactReportFields(reportFields(report, step), redact));
      if (registry.stopping && outcome.error) return;
      if (!unresponsive) await live.secrets.markFields(live.browser.page);
      const rawUrl = unresponsive ? (outcome.error?.details as { url?: string } | undefined)?.url : live.browser.currentUrl();
      const pageUrl = rawUrl === undefined ? undefined : live.secrets.redactor.text(rawUrl);
      if (session.status === "RUNNING" && pageUrl !== undefined) {
        step.pageUrl = pageUrl;
        session.currentUrl = pageUrl;
      }
      // The capture starts now, while the outcome is recorded (a commit), so the two overlap; the
      // next step still waits for it, so the picture is the page as this step left it. A page
      // that stopped responding was closed: there is nothing to take.
      const wanted = !unresponsive && wantsScreenshot(live.screenshot, outcome.error !== undefined, feed.watched(session.sessionId));
      const shot = wanted && session.status === "RUNNING" && !registry.stopping ? live.browser.capture((page) => live.secrets.maskFor(page)) : Promise.resolve(undefined);
      // A close waits for this step's picture to be written and recorded (the failed step's
      // picture, the one that matters, comes right before the runtime's close).
      live.capture = new Promise<void>((done) => (pictureRecorded = done));
      await runningRecorded;
      await this.finishStep(session, step, outcome);
      onFinished();
      const taken = await shot;
      if (taken && "skipped" in taken && !registry.stopping) this.parts.telemetry.screenshotSkipped(session, step, taken.skipped);
      const png = taken && "png" in taken ? taken.png : undefined;
      // Taken while the session ran; written even if it was closed meanwhile (right after a failed step).
      if (png && !registry.stopping && (await saveScreenshot(this.parts.screenshotDir, step.stepId, png))) {
        step.screenshot = true;
        feed.touch(session, step.stepId);
        // Not awaited by the queue: nothing else writes this step's row now, and a crash that loses
        // it only loses the debugger's link to this picture. A close waits for it.
        const recorded = pictureRecorded;
        pictureRecorded = undefined;
        void store.saveStep({ ...step }).catch(() => undefined).then(recorded);
      }
    } catch (error) {
      // Never let one step break the session's queue.
      if (!isFinished(step.status) && !registry.stopping) {
        await this.finishStep(session, step, { error: redactValue(toWireError(error), secretsOf(input)) }).catch(() => undefined);
      }
    } finally {
      pictureRecorded?.();
      live.pending -= 1;
      if (live.pending === 0) this.parts.idle.arm(session, live);
    }
  }

  /**
   * A step timed out on a page that does not answer its liveness probe: the page is closed (see
   * `SessionBrowser.closeUnresponsivePage`) and the step's error becomes `WF_PAGE_UNRESPONSIVE`,
   * saying where the session goes on.
   */
  private async closeUnresponsivePage(session: SessionRecord, live: LiveSession, why: WireError): Promise<WireError> {
    const url = live.browser.currentUrl() ?? "about:blank";
    const error: WireError = {
      code: "WF_PAGE_UNRESPONSIVE",
      message: `The page ${url} stopped responding: ${why.message}`,
      details: { url, probeTimeoutMs: PROBE_TIMEOUT_MS },
    };
    const closed = await live.browser.closeUnresponsivePage(error);
    this.parts.telemetry.pageUnresponsive(session, url, closed);
    if (!closed) return { ...error, message: `${error.message}. The page could not be closed, so the session ended. Create a new session.` };
    const now = live.browser.currentUrl();
    const where = now === undefined ? "a new blank tab (the next step opens it)" : `the tab that was current before it (${now})`;
    return { ...error, message: `${error.message}. wf closed the page; the session goes on in ${where}: go to a page again.` };
  }

  /**
   * One try of the outcome's write: the step's row (updated, or created when its `QUEUED` commit
   * was deferred: decision 0068) and the session's record, in one transaction. A write under way
   * that creates the row (a reader's {@link SessionRegistry.record}) is awaited first, so the two
   * never cross.
   */
  private async writeOutcome(finished: StepRecord, session: SessionRecord | undefined): Promise<void> {
    const { registry, store } = this.parts;
    let entry = registry.unrecorded.get(finished.stepId);
    while (entry?.write) {
      await entry.write.catch(() => undefined);
      entry = registry.unrecorded.get(finished.stepId);
    }
    if (!entry) return store.saveStep(finished, session);
    return registry.writeFirstRow(entry, () => store.saveStep(finished, session, { insert: true }));
  }

  /**
   * Records a step's outcome: the step's row and the session's version in one transaction,
   * committed before anyone waiting hears of the outcome (the record in memory, what status answers
   * read, changes only once the database holds it). While the store is unavailable (a full disk)
   * the write is retried and the session's queue waits here (see `store/retry.ts`).
   */
  async finishStep(session: SessionRecord, step: StepRecord, outcome: Outcome): Promise<void> {
    const { registry, feed, store } = this.parts;
    const now = outcome.endedAt ?? new Date().toISOString();
    const finished: StepRecord = {
      ...step,
      finishedAt: now,
      durationMs: step.startedAt ? Date.parse(now) - Date.parse(step.startedAt) : null,
      ...(outcome.error ? { status: "FAILED" as const, error: outcome.error } : { status: "SUCCEEDED" as const, result: outcome.result }),
    };
    try {
      await this.parts.storeRetry.write(
        `the outcome of step ${step.stepId}`,
        () => this.writeOutcome(finished, session.status === "RUNNING" ? { ...session, version: session.version + 1, updatedAt: now } : undefined),
        () => registry.stopping || session.status !== "RUNNING",
      );
    } finally {
      Object.assign(step, finished);
      feed.bump(session);
      feed.emit(session, step.stepId);
      this.parts.telemetry.stepFinished(session, step);
    }
  }
}

/**
 * The screenshot policy: whether a step gets a screenshot after it. `on`: every step;
 * `only-on-failure` (the default): failed steps; `off`: none; and every step, whatever the mode,
 * while a debugger page watches the session.
 */
export function wantsScreenshot(mode: ScreenshotMode, failed: boolean, watched: boolean): boolean {
  return mode === "on" || (mode === "only-on-failure" && failed) || watched;
}

/**
 * The failure of a step whose deadline came: `WF_MODEL_TIMEOUT` naming the provider when a model
 * call was in flight (the model was the cause), else `WF_STEP_TIMEOUT`.
 */
function stepTimeout(timeoutMs: number, report: StepReport): StepExecutionError {
  if (report.awaitingModel) {
    return new StepExecutionError(
      "WF_MODEL_TIMEOUT",
      `The step did not finish within ${timeoutMs} ms: the model ${report.awaitingModel} had not answered. Send a larger timeoutMs, or use a faster model or endpoint.`,
      { details: { timeoutMs } },
    );
  }
  return new StepExecutionError("WF_STEP_TIMEOUT", `The step did not finish within ${timeoutMs} ms. Send a larger timeoutMs, or split the step.`, { details: { timeoutMs } });
}

/** Turns anything thrown by a step into its wire error, keeping wf codes. */
export function toWireError(error: unknown): WireError {
  if (isWfError(error)) {
    const details = (error as { details?: unknown }).details;
    return { code: error.code, message: error.message, ...(details !== undefined ? { details } : {}) };
  }
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return { code: "WF_STEP_TIMEOUT", message: error.message.split("\n")[0] ?? error.message };
    return { code: "WF_STEP_FAILED", message: error.message.split("\n")[0] ?? error.message };
  }
  return { code: "WF_STEP_FAILED", message: String(error) };
}

/** The secret values of a step, longest first so a secret containing another is replaced whole. */
export function secretsOf(input: StepInput): string[] {
  return input.redact && input.redact.length > 0 ? [...input.redact].sort((a, b) => b.length - a.length) : [];
}

/** The fields of an interpreter's {@link StepReport} a step record keeps, with the step's downloads and dialogs (redacted with them). */
function reportFields(report: StepReport, step: StepRecord): Pick<StepRecord, "interpreter" | "resolved" | "usage" | "pageReduced" | "replayed" | "recipe" | "checkRecipe" | "noRecipe" | "settle" | "downloads" | "dialogs"> {
  return {
    ...(step.downloads ? { downloads: step.downloads } : {}),
    ...(step.dialogs ? { dialogs: step.dialogs } : {}),
    ...(report.interpreter ? { interpreter: report.interpreter } : {}),
    ...(report.resolved !== undefined ? { resolved: report.resolved } : {}),
    ...(report.usage ? { usage: { ...report.usage } } : {}),
    ...(report.pageReduced ? { pageReduced: true } : {}),
    ...(report.replayed ? { replayed: true } : {}),
    ...(report.recipe ? { recipe: report.recipe } : {}),
    ...(report.checkRecipe ? { checkRecipe: report.checkRecipe } : {}),
    ...(report.noRecipe ? { noRecipe: report.noRecipe } : {}),
    ...(report.settle ? { settle: { ...report.settle } } : {}),
  };
}

/**
 * An outcome with every secret hidden in what came from the page or the model (the result, the
 * error's message and details), and the record's own fields kept as they are: a secret such as
 * "1" or "in" must not break the step's timestamp or its error code.
 */
function redactOutcome(outcome: Outcome, redact: <T>(value: T) => T): Outcome {
  return {
    ...outcome,
    ...("result" in outcome ? { result: redact(outcome.result) } : {}),
    ...(outcome.error ? { error: { ...outcome.error, message: redact(outcome.error.message), ...(outcome.error.details !== undefined ? { details: redact(outcome.error.details) } : {}) } } : {}),
  };
}

/**
 * The report's fields with every secret hidden in what came from the page (a resolved locator, a
 * download's name and URL, a dialog's message); ids, kinds and counts are the record's own.
 */
function redactReportFields(fields: ReturnType<typeof reportFields>, redact: <T>(value: T) => T): ReturnType<typeof reportFields> {
  return {
    ...fields,
    ...(fields.resolved !== undefined ? { resolved: redact(fields.resolved) } : {}),
    ...(fields.downloads ? { downloads: fields.downloads.map((d) => ({ ...d, name: redact(d.name), url: redact(d.url) })) } : {}),
    ...(fields.dialogs ? { dialogs: fields.dialogs.map((d) => ({ ...d, message: redact(d.message) })) } : {}),
  };
}

/**
 * Liveness probes of a step's page, one after the other from {@link Liveness.start}: each answered
 * one starts the next (after a short pause), so the one in flight at any time was sent at most
 * about {@link PROBE_PAUSE_MS} after the page last answered.
 */
class Liveness {
  private current: Promise<boolean> | undefined;
  private running = false;
  /** Whether {@link current} has not answered yet. */
  private inFlight = false;

  constructor(private readonly probe: () => Promise<boolean>) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.next();
  }

  stop(): void {
    this.running = false;
  }

  /**
   * Whether the page answers: the probe in flight, or a new one when none is. A probe that already
   * answered is not taken for the verdict: the page may have stopped answering since (a click that
   * starts a script spinning just before the deadline), so it is asked again.
   */
  async verdict(): Promise<boolean> {
    this.running = false;
    return this.current && this.inFlight ? this.current : this.probe();
  }

  private next(): void {
    const probe = (this.current = this.probe());
    this.inFlight = true;
    void probe.then((answered) => {
      if (this.current === probe) this.inFlight = false;
      if (answered && this.running && this.current === probe) setTimeout(() => this.running && this.next(), PROBE_PAUSE_MS).unref();
    });
  }
}

/** Pause between two liveness probes of a step, in ms. */
const PROBE_PAUSE_MS = 100;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
