/**
 * The shapes of the session wing: what its callers pass in and get back, what it needs at
 * construction, and what it keeps about each session open here ({@link LiveSession}).
 */
import type { BrowserContextOptions } from "playwright-core";
import type { CheckRecipe, DialogRule, ReadRecipe, ReplayAction, ScreenshotMode, SessionContextOptions, SessionKind, StepFile, StepStatus, StepType } from "@wf/core/protocol";
import type { BrowserHost } from "../browser/host.js";
import type { StepInterpreter } from "../interpreter/index.js";
import type { ResolvedServerOptions } from "../config/options.js";
import type { SessionSecrets } from "./secrets.js";
import type { StoreRetry } from "../store/retry.js";
import type { Store } from "../store/store.js";
import type { Telemetry } from "../observability/telemetry.js";
import type { SessionBrowser } from "./session-browser.js";

/** What a session needs at creation. */
export interface CreateSessionOptions {
  /** `STEP` for step mode, `STORED` for a stored-workflow run. */
  kind: SessionKind;
  /** For `STORED`: the stored workflow's id. */
  workflowId?: string;
  /**
   * Proxy of the session's browser context, passed to `browser.newContext({ proxy })`: a proxy
   * URL (`http://host:port`, credentials in the URL are used) or Playwright's proxy settings.
   */
  proxy?: string | NonNullable<BrowserContextOptions["proxy"]>;
  /** Record a Playwright trace of the session, saved when it ends (see `browser/tracing.ts`). */
  trace?: boolean;
  /** Which steps get a screenshot after them (Playwright Test's `screenshot` values). @default "only-on-failure" */
  screenshot?: ScreenshotMode;
  /** What is done with JavaScript dialogs (see `dialogs.ts`). @default "accept" */
  dialogs?: DialogRule;
  /**
   * How the browser context is made (viewport, locale, user agent…, Playwright's names), and the
   * `baseURL` relative addresses resolve against. Any option but `baseURL` gets the session a
   * context of its own (not the one opened ahead).
   */
  context?: SessionContextOptions;
}

/** A step to run, as `POST /workflow/step/run/{id}` takes it (already validated). */
export interface StepInput {
  type: StepType;
  /** The instruction (ACT) or question (ASK). */
  step: string;
  /** Structured output wanted from an ASK, in any form `normalizeStepSchema` accepts. Must be absent or `{}` for an ACT. */
  schema?: Record<string, unknown>;
  /** HTML an ASK reads instead of the live page. */
  currentDom?: string;
  /** Base URL of `currentDom`. */
  currentPageURL?: string;
  /** Step timeout in ms. @default the server's `stepTimeoutMs` */
  timeoutMs?: number;
  /**
   * Secret values kept out of every record, status and page: each occurrence in the step's text,
   * result and error is replaced by `[secret]`. The interpreter still gets the real text.
   */
  redact?: string[];
  /** ACT only: recorded actions to replay instead of interpreting `step` (see `interpreter/lock/replay.ts`). */
  replay?: ReplayAction[];
  /** With `replay`: look again for a recorded element its instruction no longer finds (see `interpreter/lock/replay.ts`). @default false */
  refind?: boolean;
  /** ASK only (not a check): a recorded read recipe to run instead of interpreting `step` (see `interpreter/lock/read-recipe.ts`). */
  recipe?: ReadRecipe;
  /** A check only: a recorded check recipe to evaluate instead of the statement (see `interpreter/lock/check-recipe.ts`). */
  checkRecipe?: CheckRecipe;
  /** ASK: derive a read recipe from the model's answer (one more page read; see `interpreter/lock/derive-recipe.ts`). @default false */
  deriveRecipe?: boolean;
  /** Whether the step may call the model (see `BrowserStepInput`). @default true */
  allowModel?: boolean;
  /** ACT: files the step brought (a remote client's upload bytes); never recorded (see `uploads.ts`). */
  files?: StepFile[];
  /** ASK: the step is a check (an assertion) of the statement `step`; see `interpreter/check/`. */
  check?: { timeoutMs?: number };
  /** The step groups (`step()` of `@wf/core`) the step runs in, outermost first; opened in the session's trace. */
  groups?: Array<{ id: string; title: string }>;
}

/** Options of {@link SessionManager.submitStep} and {@link SessionManager.runStep}. */
export interface SubmitStepOptions {
  /** Idempotency key: the same key in the same session returns the first step without running again. */
  idempotencyKey?: string;
  /** Aborts the step (it fails with the abort reason's code, or `WF_ABORTED`). */
  signal?: AbortSignal;
  /**
   * How long the caller waits for the step's outcome before answering, in ms (the run route's
   * `?waitMs=`). Above 0 with an `idempotencyKey`, the step's `QUEUED` commit is deferred to its
   * outcome's transaction (docs/decisions/0068-one-commit-per-step.md). @default 0
   */
  waitMs?: number;
}

export type { SessionRecord, StepRecord } from "../store/store.js";

/** A change of a session or one of its steps: what long-polls and live pages wait for. */
export interface SessionChange {
  sessionId: string;
  version: number;
  /** The step that changed, when a step did. */
  stepId?: string;
}

/** What {@link SessionManager.submitStep} returns. */
export interface SubmittedStep {
  stepId: string;
  jobTaskId: string;
  /** False when an earlier request with the same idempotency key made the step. */
  created: boolean;
  /** Resolves with the step's status once it finished (never rejects). */
  done: Promise<StepStatus>;
}

/** What the wing keeps about a session open on this server, beside its record. */
export interface LiveSession {
  browser: SessionBrowser;
  /** The tail of the session's step queue. */
  tail: Promise<void>;
  /** Steps queued or running. */
  pending: number;
  running: AbortController | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** The screenshot being taken after the last step: a close waits for it (the failed step's picture matters most). */
  capture?: Promise<unknown>;
  /** Which steps get a screenshot; every step while a debugger page watches (see `watchView`). */
  screenshot: ScreenshotMode;
  /** The session's secrets: redaction of its URLs and results, masked fields, the trace's scrub. */
  secrets: SessionSecrets;
}

/** Dependencies of the {@link SessionManager}. */
export interface SessionManagerDeps {
  options: ResolvedServerOptions;
  browser: BrowserHost;
  store: Store;
  interpreter: StepInterpreter;
  /** The base URL of links handed out (`viewUrl`, `debuggerUrl`), known once the server listens. */
  publicUrl: () => string;
  /** Key of the request digests (idempotency); see `loadServerSecret`. @default random per process (digests then don't survive a restart) */
  secret?: Buffer;
  /** Retries of writes that must reach the store (outcomes, ends). @default one that warns on stderr */
  storeRetry?: StoreRetry;
  /** What operators see (log lines, metrics). @default one that logs nothing and counts nothing */
  telemetry?: Telemetry;
}
