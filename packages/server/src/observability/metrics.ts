/**
 * The service's metrics, with prom-client, in a registry of their own (several servers in one
 * process each count their own): what `GET /metrics` answers in the Prometheus text format. Loaded
 * only by a server with metrics on (`createMetrics`, imported when `options.metrics`), so a server
 * without them (`wf run`'s own) never loads prom-client. The figures and what they mean:
 * packages/server/README.md, "Operating wf serve".
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Bounds of the step duration histogram, in seconds: a grammar step takes ~0.1 s, a model step seconds. */
const STEP_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The metrics of one server. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly sessionsOpen: Gauge;
  readonly steps: Counter<"type" | "interpreter" | "outcome">;
  readonly stepSeconds: Histogram<"type" | "interpreter">;
  readonly browserLaunches: Counter;
  readonly browserCrashes: Counter;
  readonly pageCrashes: Counter;
  readonly pagesUnresponsive: Counter;
  readonly sessionsFreedByForce: Counter;
  readonly modelCalls: Counter<"model">;
  readonly modelTokens: Counter<"model" | "kind">;
  readonly modelFailures: Counter<"code">;
  readonly screenshotsSkipped: Counter;
  readonly storeWriteRetries: Counter;
  readonly downloads: Counter<"outcome">;

  /** @param openSessions - how many sessions are open now, read at each scrape. */
  constructor(openSessions: () => number) {
    const registers = [this.registry];
    this.sessionsOpen = new Gauge({
      name: "wf_sessions_open",
      help: "Sessions open on this instance (step sessions and stored runs), each holding a browser context.",
      registers,
      collect() {
        this.set(openSessions());
      },
    });
    this.steps = new Counter({
      name: "wf_steps_total",
      help: "Steps finished, by type (ACT, ASK), interpreter (grammar, model, none) and outcome (SUCCEEDED, or the error code).",
      labelNames: ["type", "interpreter", "outcome"],
      registers,
    });
    this.stepSeconds = new Histogram({
      name: "wf_step_duration_seconds",
      help: "How long steps ran, from RUNNING to their end, by type and interpreter.",
      labelNames: ["type", "interpreter"],
      buckets: STEP_SECONDS_BUCKETS,
      registers,
    });
    this.browserLaunches = new Counter({ name: "wf_browser_launches_total", help: "Chromium launches (or CDP connections); more than one means relaunches after a crash.", registers });
    this.browserCrashes = new Counter({ name: "wf_browser_crashes_total", help: "Times the browser went away while the server ran (crash, kill, lost remote browser).", registers });
    this.pageCrashes = new Counter({ name: "wf_page_crashes_total", help: "Session pages whose renderer process died (WF_PAGE_CRASHED).", registers });
    this.pagesUnresponsive = new Counter({ name: "wf_pages_unresponsive_total", help: "Session pages that stopped responding and were closed (WF_PAGE_UNRESPONSIVE).", registers });
    this.sessionsFreedByForce = new Counter({
      name: "wf_sessions_freed_by_force_total",
      help: "Sessions whose end gave up on a browser call that did not answer in time (the slot was freed anyway).",
      registers,
    });
    this.modelCalls = new Counter({ name: "wf_model_calls_total", help: "Calls to the model provider, failed and retried ones included.", labelNames: ["model"], registers });
    this.modelTokens = new Counter({ name: "wf_model_tokens_total", help: "Tokens the model provider reported, by kind (prompt, completion).", labelNames: ["model", "kind"], registers });
    this.modelFailures = new Counter({
      name: "wf_model_failures_total",
      help: "Steps failed by the model provider (WF_MODEL_UNAVAILABLE, WF_MODEL_RATE_LIMITED, WF_MODEL_AUTH_FAILED, …), by code.",
      labelNames: ["code"],
      registers,
    });
    this.screenshotsSkipped = new Counter({
      name: "wf_screenshots_skipped_total",
      help: "Steps that should have had a screenshot and have none (the page closed, or the capture or its mask look-up ran past its deadline).",
      registers,
    });
    this.storeWriteRetries = new Counter({ name: "wf_store_write_retries_total", help: "Store writes retried while the store was unavailable (a full disk, the database gone).", registers });
    this.downloads = new Counter({ name: "wf_downloads_total", help: "Files steps downloaded, by outcome (kept, or the error code).", labelNames: ["outcome"], registers });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The metrics in the Prometheus text format, and its content type. */
  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** Creates a server's metrics (see {@link ServiceMetrics}). */
export function createMetrics(openSessions: () => number): ServiceMetrics {
  return new ServiceMetrics(openSessions);
}
