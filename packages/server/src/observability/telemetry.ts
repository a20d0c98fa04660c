/**
 * What operators see of the service: one place where each event that matters is both logged (a
 * warn-level pino line with its `event` and, when it has one, its `sessionId`) and counted
 * ({@link ServiceMetrics}, when metrics are on). The events: a browser crash and relaunch, a
 * session's page crashing or stopping to respond, a step's screenshot not taken, a session whose end had to give up on a browser
 * call, a model provider failing step after step, the store's write retries, and every finished
 * step (counted only). Without a logger (`logger: false`, `wf run`'s own server) nothing is logged.
 */
import type { WireError } from "@wf/core/protocol";
import type { SessionRecord, StepRecord } from "../store/store.js";
import type { ServiceMetrics } from "./metrics.js";

/** The logger lines go to (pino's, through Fastify). */
export interface TelemetryLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** Error codes of a model provider that failed (not of a model that answered badly). */
const PROVIDER_FAILURES = new Set(["WF_MODEL_AUTH_FAILED", "WF_MODEL_NOT_FOUND", "WF_MODEL_RATE_LIMITED", "WF_MODEL_UNAVAILABLE", "WF_MODEL_BAD_REQUEST", "WF_MODEL_TIMEOUT"]);
/** Steps in a row the provider failed before a warning; one more warning every this many after. */
const PROVIDER_FAILURES_TO_WARN = 3;

export class Telemetry {
  private log: TelemetryLog | undefined;
  private providerFailuresInARow = 0;
  private launches = 0;

  constructor(
    /** The metrics, or undefined when they are off. */
    readonly metrics: ServiceMetrics | undefined,
  ) {}

  /** Where lines go from now on (the app's logger, once it exists); undefined: nowhere. */
  useLog(log: TelemetryLog | undefined): void {
    this.log = log;
  }

  /** The browser was launched (or connected over CDP); a second launch is a relaunch after it went away. */
  browserLaunched(): void {
    this.launches += 1;
    this.metrics?.browserLaunches.inc();
    if (this.launches > 1) this.log?.warn({ event: "browser-relaunched", launches: this.launches }, "wf server: the browser was relaunched after it went away; sessions open before are gone (WF_BROWSER_CLOSED).");
  }

  /** The browser went away while the server ran (it crashed, was killed, or a remote one was lost). */
  browserCrashed(): void {
    this.metrics?.browserCrashes.inc();
    this.log?.warn({ event: "browser-crashed" }, "wf server: the browser went away (crashed, killed or disconnected); its sessions end WF_BROWSER_CLOSED and the next session create relaunches it.");
  }

  /** A session ended because its browser context closed on its own or its page crashed. */
  sessionLost(session: SessionRecord, error: WireError): void {
    if (error.code === "WF_PAGE_CRASHED") this.metrics?.pageCrashes.inc();
    this.log?.warn({ event: error.code === "WF_PAGE_CRASHED" ? "page-crashed" : "session-browser-closed", sessionId: session.sessionId, code: error.code }, `wf server: session ${session.sessionId} ended: ${error.message}`);
  }

  /** A session's page stopped responding; `closed`: it was closed and the session goes on. */
  pageUnresponsive(session: SessionRecord, url: string, closed: boolean): void {
    this.metrics?.pagesUnresponsive.inc();
    this.log?.warn(
      { event: "page-unresponsive", sessionId: session.sessionId, url, closed },
      `wf server: a page of session ${session.sessionId} stopped responding (${url}); ${closed ? "it was closed and the session goes on" : "it could not be closed, so the session ended"}.`,
    );
  }

  /** A session's end gave up on a browser call that did not answer in time; its slot is free anyway. */
  sessionFreedByForce(session: SessionRecord, what: string): void {
    this.metrics?.sessionsFreedByForce.inc();
    this.log?.warn({ event: "session-freed-by-force", sessionId: session.sessionId, what }, `wf server: session ${session.sessionId} was freed by force: ${what}.`);
  }

  /** A step that should have had a screenshot has none: `why` (the page closed, a capture or mask look-up past its deadline). */
  screenshotSkipped(session: SessionRecord, step: StepRecord, why: string): void {
    this.metrics?.screenshotsSkipped.inc();
    this.log?.warn({ event: "screenshot-skipped", sessionId: session.sessionId, stepId: step.stepId, why }, `wf server: step ${step.stepId} of session ${session.sessionId} has no screenshot: ${why}.`);
  }

  /** A store write is retried (the store is unavailable). */
  storeWriteRetried(): void {
    this.metrics?.storeWriteRetries.inc();
  }

  /** A step finished (any outcome): counted, and its model calls; a provider failing step after step is logged. */
  stepFinished(session: SessionRecord, step: StepRecord): void {
    const interpreter = step.interpreter ?? "none";
    const outcome = step.status === "SUCCEEDED" ? "SUCCEEDED" : (step.error?.code ?? "WF_STEP_FAILED");
    const metrics = this.metrics;
    if (metrics) {
      metrics.steps.inc({ type: step.type, interpreter, outcome });
      if (step.durationMs !== null && step.startedAt !== null) metrics.stepSeconds.observe({ type: step.type, interpreter }, step.durationMs / 1000);
      if (step.usage) {
        const model = step.usage.model;
        if (step.usage.calls) metrics.modelCalls.inc({ model }, step.usage.calls);
        if (step.usage.promptTokens) metrics.modelTokens.inc({ model, kind: "prompt" }, step.usage.promptTokens);
        if (step.usage.completionTokens) metrics.modelTokens.inc({ model, kind: "completion" }, step.usage.completionTokens);
      }
      for (const download of step.downloads ?? []) if (download) metrics.downloads.inc({ outcome: "kept" });
      if (step.error?.code.startsWith("WF_DOWNLOAD_")) metrics.downloads.inc({ outcome: step.error.code });
    }
    const code = step.error?.code;
    if (code && PROVIDER_FAILURES.has(code)) {
      metrics?.modelFailures.inc({ code });
      this.providerFailuresInARow += 1;
      const n = this.providerFailuresInARow;
      if (n >= PROVIDER_FAILURES_TO_WARN && (n - PROVIDER_FAILURES_TO_WARN) % 10 === 0) {
        this.log?.warn(
          { event: "model-provider-failing", sessionId: session.sessionId, stepId: step.stepId, code, inARow: n },
          `wf server: the model provider failed ${n} steps in a row (last: ${code}, ${step.error!.message})`,
        );
      }
    } else if (step.usage?.calls) {
      this.providerFailuresInARow = 0;
    }
  }
}
