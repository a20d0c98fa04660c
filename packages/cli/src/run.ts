/**
 * `runWorkflowFile()`: the programmatic `wf run`. Loads a workflow file, resolves params and
 * configuration, runs the workflow on a service (the embedded `@wf/server` unless a service URL is
 * configured) with `@wf/runtime`, reports, and returns the run record with the exit code.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WfError, isWfError, redactParams, redactText, secretValues } from "@wf/core";
import { RUN_RECORD_VERSION, type RunRecord, type RunWorkflowOptions, type ServiceClient } from "@wf/runtime";
import type { BrowserHost } from "@wf/server/prelaunch";
import type { RunningServer, ServerOptions } from "@wf/server";
import { parseCliEnv, resolveCliConfig, type LockModeName, type ResolvedCliConfig, type ResolvedProject, type ReporterName } from "./config.js";
import { CliUsageError, EXIT, isConnectionError, type ExitCode } from "./errors.js";
import { loadWorkflowFile } from "./load-workflow.js";
import { buildParams, readParamsFile } from "./params.js";
import { redactJson } from "./redact-json.js";
import { createReporter, type OutputStream, type Reporter } from "./reporters.js";
import { timingMark } from "./timing.js";
import { closeEarlyBrowser, type EarlyBrowser } from "./early-browser.js";
import { changesContext } from "./projects.js";

export { closeEarlyBrowser, launchEmbeddedBrowser, type EarlyBrowser } from "./early-browser.js";

/** Options of {@link runWorkflowFile}. Unset fields come from `wf.config.ts`, the environment, then defaults. */
export interface RunWorkflowFileOptions {
  /** The workflow file, relative to `cwd`. */
  file: string;
  /** @default process.cwd() */
  cwd?: string;
  /** `--param` values as strings, converted by each param's zod type. */
  params?: Record<string, string>;
  /** `--params-file`: a JSON object of params; `params` override its fields. */
  paramsFile?: string;
  /** The wf service; unset (here, in config and in `WF_SERVICE_URL`) starts the embedded server. */
  serviceUrl?: string;
  /** @deprecated The old name of {@link RunWorkflowFileOptions.serviceUrl}. */
  baseUrl?: string;
  /** The project this run belongs to: its `use` makes the session's browser context (else the config's `use`). */
  project?: ResolvedProject;
  /** Awaited before each step is sent (`wf run --debug`'s pause); see `runWorkflow`'s `beforeStep`. */
  beforeStep?: RunWorkflowOptions["beforeStep"];
  apiKey?: string;
  /** @default "pretty" */
  reporter?: ReporterName;
  /** `--out`: write the run record (secrets redacted) to this file. */
  out?: string;
  /**
   * Abort the whole run after this many ms. The run ends with status `cancelled`, error code
   * `WF_RUN_TIMEOUT`, and exit code 1 (a timeout is a failed run, not an interrupt).
   */
  timeoutMs?: number;
  /** The model for free-form steps on the embedded server. @default `model` of wf.config.ts, else `WF_MODEL`, else none */
  model?: string;
  /**
   * How the run uses the action lock beside the workflow file (`<name>.wf.lock.json`).
   * @default `frozen` on CI (`CI=true`), else `lock` of wf.config.ts, else `heal` with a model, `read` without
   */
  lock?: LockModeName;
  /** The most model calls the run may make; 0: none. @default `WF_MAX_MODEL_CALLS`, else `maxModelCalls` of wf.config.ts, else no limit */
  maxModelCalls?: number;
  /** Aborting it interrupts the run (the session is closed): exit code 130. */
  signal?: AbortSignal;
  /** @default process.stdout */
  stdout?: OutputStream;
  /** @default process.stderr */
  stderr?: OutputStream;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** Read `wf.config.ts` and `.env` in `cwd`. @default true */
  loadConfigFile?: boolean;
  /** The configuration already resolved (by the multi-file runner): skips reading it again. */
  config?: ResolvedCliConfig;
  /** Import the workflow file anew, with its helpers, not from the module cache (watch mode). @default false */
  fresh?: boolean;
  /** A service shared by several runs (the multi-file runner's): used as is and left open. */
  service?: OpenService;
  /**
   * The embedded server's browser, launching since before the workflow file was loaded
   * ({@link launchEmbeddedBrowser}): the run's server takes it. The run owns it from the call on
   * (closed on any failure; ignored, and closed, when `service` or a base URL is used).
   */
  browser?: EarlyBrowser;
  /** Makes the reporter of the run's events instead of the configured one (the multi-file runner's); `redact` masks this run's secrets. */
  events?: (redact: (text: string) => string) => Reporter;
  /**
   * Ask the service for a Playwright trace of the session; `"retain-on-failure"`: and tell it to
   * drop the trace, unsaved, when the run succeeds. @default false
   */
  trace?: boolean | "retain-on-failure";
  /**
   * Called once the run ended, with its record (secrets redacted) and the service client, before
   * an embedded server stops: the report downloads the session's screenshots and trace here.
   */
  afterRun?: (record: RunRecord, client: ServiceClient) => Promise<void>;
  /**
   * The HTML report's `index.html`: the `--out` record carries it as `report`, and, on the
   * embedded server (gone when the command ends), in place of the dead `debuggerUrl`.
   */
  reportPath?: string;
}

/** What {@link runWorkflowFile} returns when the run happened (whatever its outcome). */
export interface RunWorkflowFileResult {
  /** 0 succeeded, 1 failed or timed out, 130 interrupted. */
  exitCode: ExitCode;
  /** The run record, secret values redacted. */
  record: RunRecord;
}

/**
 * Runs a workflow file, as `wf run` does.
 *
 * @returns the exit code and the run record once the run has ended (succeeded, failed, cancelled).
 * @throws {@link CliUsageError} (exit code 2) before any run: missing or broken file, no default
 *   workflow, bad params (`WF_PARAMS_INVALID` reworded), bad configuration, unreachable service
 *   (`WF_CLI_SERVICE_UNREACHABLE`).
 */
export async function runWorkflowFile(options: RunWorkflowFileOptions): Promise<RunWorkflowFileResult> {
  try {
    return await runWithService(options);
  } finally {
    // Taken by the embedded server when it started (which then owns it); closed here otherwise.
    await closeEarlyBrowser(options.browser);
  }
}

async function runWithService(options: RunWorkflowFileOptions): Promise<RunWorkflowFileResult> {
  const cwd = options.cwd ?? process.cwd();
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const config = options.config ?? await resolveCliConfig({
    cwd,
    env: options.env ?? process.env,
    configFile: options.loadConfigFile ?? true,
    dotenv: options.loadConfigFile ?? true,
    flags: { serviceUrl: options.serviceUrl, baseUrl: options.baseUrl, apiKey: options.apiKey, reporter: options.reporter, timeoutMs: options.timeoutMs, model: options.model, lock: options.lock, maxModelCalls: options.maxModelCalls },
  });

  // In a suite (a shared service) each milestone names its workflow file, so a trace of many runs can be told apart.
  const mark = (label: string, detail?: string) => timingMark(options.service ? `${label} (${detail ? `${detail}, ` : ""}${options.file})` : detail ? `${label} (${detail})` : label);
  mark("run: config ready");
  const { workflow, path: workflowPath } = await loadWorkflowFile(options.file, cwd, { fresh: options.fresh ?? false });
  mark("run: workflow ready");
  const fromFile = options.paramsFile ? await readParamsFile(options.paramsFile, cwd) : {};
  const fromFlags = options.params ?? {};

  // Secret values are known from the raw input already, so even a params error is redacted.
  const rawSecrets = secretValues(workflow, { ...fromFile, ...fromFlags });
  let params: Record<string, unknown>;
  try {
    params = buildParams(workflow, fromFile, fromFlags);
  } catch (error) {
    if (isWfError(error) && error.code === "WF_PARAMS_INVALID") {
      throw new CliUsageError("WF_CLI_PARAMS_INVALID", redactText(error.message, rawSecrets), { cause: error });
    }
    throw error;
  }
  const secrets = [...new Set([...rawSecrets, ...secretValues(workflow, params)])].sort((a, b) => b.length - a.length);
  const redact = (text: string) => redactText(text, secrets);

  const reporter = options.events ? options.events(redact) : createReporter(config.reporter, { stdout, stderr, redact, env: config.env });
  const service =
    options.service ??
    (await openService(config, stderr, { ...(options.browser ? { browser: options.browser } : {}), oneSession: true, trace: Boolean(options.trace), ownContext: changesContext(options.project?.use ?? config.use) }));
  mark("service ready");
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason ?? new WfError("WF_INTERRUPTED", "Interrupted."));
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const timer =
    config.timeoutMs !== undefined
      ? setTimeout(
          () => controller.abort(new WfError("WF_RUN_TIMEOUT", `The run took longer than its timeout of ${config.timeoutMs} ms (--timeout). Raise --timeout or make the workflow shorter.`)),
          config.timeoutMs,
        )
      : undefined;

  let record: RunRecord;
  try {
    const { runWorkflow } = await import("@wf/runtime");
    const startedAt = new Date();
    try {
      const { lockPathFor } = await import("@wf/runtime");
      const lock = {
        path: lockPathFor(workflowPath),
        mode: config.lock,
        // A service at a base URL may have a model the CLI does not know of: its steps then go to it as they would anyway.
        model: config.model !== undefined,
        refreshCommand: `wf run ${options.file} --lock write`,
      };
      record = await runWorkflow(workflow, {
        params,
        client: service.client,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "run-started") mark("session created");
          else if (event.type === "step-finished") mark(`step ${event.step.index} finished`, `${event.step.type} ${event.step.durationMs} ms`);
          else if (event.type === "run-finished") mark("run finished");
          reporter.onEvent(event.type === "run-finished" ? { ...event, record: timeoutRecord(event.record, controller.signal) } : event);
        },
        lock,
        ...(config.maxModelCalls !== undefined ? { maxModelCalls: config.maxModelCalls } : {}),
        ...(options.trace ? { trace: options.trace } : {}),
        screenshot: config.screenshot,
        context: options.project?.use ?? config.use,
        ...(config.checkTimeoutMs !== undefined ? { checkTimeoutMs: config.checkTimeoutMs } : {}),
        ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
        // The embedded server reads uploads from this machine's disk; a service elsewhere gets their bytes with the step.
        uploads: service.embedded ? "local" : "send",
      });
      record = timeoutRecord(record, controller.signal);
    } catch (error) {
      if (!(isWfError(error) && error.code === "WF_ABORTED" && controller.signal.aborted)) throw beforeRunError(error, config, redact);
      // Aborted (timeout, Ctrl-C) before the session existed: still a cancelled run, with a record.
      const reason: unknown = controller.signal.reason;
      const finishedAt = new Date();
      record = {
        version: RUN_RECORD_VERSION,
        workflow: workflow.name,
        status: "cancelled",
        params: redactParams(workflow, params),
        error: isWfError(reason) ? { code: reason.code, message: reason.message } : { code: "WF_ABORTED", message: (error as Error).message },
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        durationMs: finishedAt.getTime() - startedAt.getTime(),
        steps: [],
      };
      reporter.onEvent({ type: "run-finished", record });
    }
    record = redactRecord(record, redact);
    await options.afterRun?.(record, service.client);
    if (options.afterRun) mark("screenshots and trace collected");
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
    reporter.end();
    if (!options.service) await service.close();
    mark("service closed");
  }

  if (options.out) {
    const outPath = resolve(cwd, options.out);
    const { debuggerUrl, ...rest } = record;
    const saved = options.reportPath ? { ...(config.serviceUrl && debuggerUrl ? { debuggerUrl } : {}), ...rest, report: options.reportPath } : record;
    try {
      await writeFile(outPath, JSON.stringify(saved, null, 2) + "\n");
    } catch (error) {
      throw new CliUsageError("WF_CLI_USAGE", `Could not write the run record to ${outPath}: ${(error as Error).message}. Check the --out path.`, { path: outPath });
    }
  }
  const interrupted = record.status === "cancelled" && options.signal?.aborted === true;
  const exitCode: ExitCode = record.status === "succeeded" ? EXIT.ok : interrupted ? EXIT.interrupted : EXIT.failed;
  return { exitCode, record };
}

/**
 * A run cancelled by `--timeout` says so: the runtime records any abort as `WF_ABORTED`, the
 * README promises `WF_RUN_TIMEOUT` (with the timeout's message).
 */
function timeoutRecord(record: RunRecord, signal: AbortSignal): RunRecord {
  const reason: unknown = signal.reason;
  if (record.status !== "cancelled" || !isWfError(reason) || reason.code !== "WF_RUN_TIMEOUT") return record;
  return { ...record, error: { ...record.error, code: reason.code, message: reason.message } };
}

/** The service a run talks to: the configured one, or an embedded server stopped at the end. */
export interface OpenService {
  client: ServiceClient;
  /** True for the embedded server `wf run` started: it shares this machine's disk (uploads are read there, not sent). */
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * Opens the configured service, or starts the embedded server (headed and slowed down as the
 * config says).
 *
 * @param stderr - where a note goes when `headed`/`slowMoMs` cannot apply (a service at a base URL).
 * @param embedded - how to start the embedded server (see {@link EmbeddedServiceOptions}).
 * @throws {@link CliUsageError} `WF_CLI_NO_DISPLAY` for a headed browser without a display,
 *   `WF_CLI_SERVER_FAILED` when the embedded server does not start.
 */
export async function openService(config: ResolvedCliConfig, stderr: OutputStream = process.stderr, embedded: EmbeddedServiceOptions = {}): Promise<OpenService> {
  const early = embedded.browser;
  const { createServiceClient } = await import("@wf/runtime");
  if (config.serviceUrl) {
    if (config.headed || config.slowMoMs > 0) {
      stderr.write(`wf: ${config.headed ? "--headed" : "--slow-mo"} applies to the embedded server's browser; the service at ${config.serviceUrl} runs its own (start it with WF_HEADED=1 / WF_SLOW_MO_MS).\n`);
    }
    const client = createServiceClient({ baseUrl: config.serviceUrl, ...(config.apiKey ? { apiKey: config.apiKey } : {}), ...(config.requestTimeoutMs ? { requestTimeoutMs: config.requestTimeoutMs } : {}) });
    return { client, embedded: false, close: async () => void (await closeClient(client)) };
  }
  const apiKey = randomBytes(18).toString("base64url");
  const tempDir = config.server.dataDir ? undefined : await mkdtemp(join(tmpdir(), "wf-run-"));
  const options: ServerOptions = {
    host: "127.0.0.1",
    port: 0,
    apiKeys: [apiKey],
    dataDir: config.server.dataDir ?? tempDir!,
    // Off unless WF_LOG_LEVEL asks for it; then on stderr, so stdout keeps the reporter's output alone.
    logger: embeddedLogger(parseCliEnv(config.env, ["WF_LOG_LEVEL"]).WF_LOG_LEVEL, stderr),
    // The embedded server's records live in a throw-away folder: no need to sync them to disk.
    journalSync: false,
    // Records thrown away with that folder stay in memory: opening the embedded database costs
    // seconds and hundreds of MB, for nothing (the run record and the report outlive the run).
    ...(tempDir ? { databaseUrl: "memory:" } : {}),
    // It serves this user alone, on loopback: their own files (docs under /usr/share/doc) may be opened.
    allowFileUrls: true,
    ...(config.model ? { model: config.model } : {}),
    headed: config.headed,
    slowMoMs: config.slowMoMs,
    // --debug pauses before steps for as long as the user reads: the session must not close for idleness meanwhile.
    ...(config.debug ? { idleTimeoutMs: DEBUG_IDLE_TIMEOUT_MS } : {}),
    // One run, one session: its context and page open while the server starts (the browser is
    // up by then), and none replaces them once taken: a replacement nobody uses would start a
    // second renderer during the first step (bench:e2e: ~250 ms of a 2.3 s run on this 2-core machine).
    ...(embedded.oneSession && !embedded.ownContext ? { warmSessions: "first" as const } : {}),
    // Nobody scrapes a run's own server: prom-client is not even loaded.
    metrics: false,
  };
  let server: RunningServer;
  let browser: BrowserHost | undefined;
  try {
    // Chromium starts (a process of its own) while the rest of the server is imported, if it has
    // not started earlier; the server then owns it.
    browser = early
      ? await early.take()
      : (await import("@wf/server/prelaunch")).prelaunchBrowser(options, config.env, { openPage: embedded.oneSession === true && !embedded.ownContext, trace: embedded.trace === true });
    timingMark("embedded server: importing @wf/server");
    const { startServer } = await import("@wf/server");
    timingMark("embedded server: @wf/server imported");
    server = await startServer(options, config.env, { browser });
  } catch (error) {
    await browser?.close(); // closed already when startServer ran; not when importing it failed
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    if (isWfError(error) && error.code === "WF_NO_DISPLAY") {
      const message = config.debug
        ? `--debug (and PWDEBUG=1) shows the browser window, and this machine has no display (neither DISPLAY nor WAYLAND_DISPLAY is set). Add --no-headed to pause before each step without a window, or start a virtual display: xvfb-run wf run --debug ….`
        : error.message;
      throw new CliUsageError("WF_CLI_NO_DISPLAY", message, { cause: error });
    }
    throw new CliUsageError(
      "WF_CLI_SERVER_FAILED",
      `Could not start the embedded wf server: ${(error as Error).message}\nInstall a Chromium with \`wf install-browser\`, or run against a service with --service-url / WF_SERVICE_URL.`,
      { cause: error },
    );
  }
  const client = createServiceClient({ baseUrl: server.url, apiKey, ...(config.requestTimeoutMs ? { requestTimeoutMs: config.requestTimeoutMs } : {}) });
  return {
    client,
    embedded: true,
    close: async () => {
      await closeClient(client);
      await server.close();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    },
  };
}

/** How {@link openService} starts the embedded server. */
export interface EmbeddedServiceOptions {
  /**
   * A browser launching since earlier ({@link launchEmbeddedBrowser}): the embedded server takes
   * it, and owns it once `openService` is called (unused with a base URL: the caller closes it).
   */
  browser?: EarlyBrowser;
  /** The service will serve one session (one `wf run`): no browser context is opened ahead of sessions. @default false */
  oneSession?: boolean;
  /** With `oneSession`: that session records a Playwright trace, started with its context opened ahead. @default false */
  trace?: boolean;
  /** With `oneSession`: that session asks for context options (a viewport, a device…), so none is opened ahead for it. @default false */
  ownContext?: boolean;
}

/** How long a session of `--debug`'s embedded server may wait between steps (a pause), in ms. */
const DEBUG_IDLE_TIMEOUT_MS = 24 * 3_600_000;

async function closeClient(client: unknown): Promise<void> {
  const close = (client as { close?: () => unknown }).close;
  if (typeof close === "function") await close.call(client);
}

/** An error `runWorkflow` threw before the run started (no session, no record), as the CLI reports it. */
function beforeRunError(error: unknown, config: ResolvedCliConfig, redact: (s: string) => string): unknown {
  if (!isWfError(error)) return error;
  if (error.code === "WF_PARAMS_INVALID") return new CliUsageError("WF_CLI_PARAMS_INVALID", redact(error.message), { cause: error });
  if (error.code === "WF_SERVICE_UNREACHABLE" || isConnectionError(error)) return unreachable(config, error, redact);
  const status = (error as { status?: unknown }).status;
  if (error.code === "WF_SERVICE_ERROR" && (status === 401 || status === 403)) {
    return new CliUsageError(
      "WF_CLI_SERVICE_REJECTED",
      `The wf service at ${config.serviceUrl} refused the API key (${status}). Pass the key it was started with: --api-key, WF_API_KEY or apiKey in wf.config.ts.`,
      { cause: error },
    );
  }
  return error;
}

function unreachable(config: ResolvedCliConfig, cause: unknown, redact: (s: string) => string): CliUsageError {
  const detail = cause instanceof Error || (typeof cause === "object" && cause !== null && "message" in cause) ? (cause as { message: string }).message : String(cause);
  return new CliUsageError(
    "WF_CLI_SERVICE_UNREACHABLE",
    `No wf service answers at ${config.serviceUrl ?? "the embedded server"}: ${redact(detail).replace(/[.\s]+$/, "")}.\nStart one with \`wf serve\`, fix --service-url / WF_SERVICE_URL / serviceUrl in wf.config.ts, or unset them to use the embedded server.`,
    { cause },
  );
}

/** The record with every secret value masked, wherever the runtime may have let one through. */
function redactRecord(record: RunRecord, redact: (s: string) => string): RunRecord {
  return redactJson(record, redact);
}

/** The embedded server's logger: off, or pino at `level` (`WF_LOG_LEVEL`, read through the environment schema) writing to `stderr`. */
function embeddedLogger(level: string | undefined, stderr: OutputStream): false | { level: string; stream: { write(line: string): void } } {
  if (!level) return false;
  return { level, stream: { write: (line: string) => void stderr.write(line) } };
}
