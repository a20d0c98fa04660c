/**
 * `@wf/server`: the wf browser-automation service over HTTP. {@link startServer} starts it;
 * {@link resolveServerOptions} shows what it will use. See `packages/server/README.md` and
 * `docs/protocol.md`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./http/app.js";
import { createParse } from "./http/validation.js";
import { createAuth } from "./http/auth.js";
import { BrowserHost } from "./browser/host.js";
import type { ServerContext } from "./context.js";
import { openStore } from "./store/drivers.js";
import { corruptMessage } from "./store/sql-store.js";
import type { CorruptRecord } from "./store/store.js";
import { startRetentionSweep } from "./store/retention.js";
import { internalUrlOf, startInstanceLease } from "./cluster/instances.js";
import { resolveServerOptions, type ResolvedServerOptions, type ServerOptions } from "./config/options.js";
import { SessionManager } from "./sessions/index.js";
import { StoreRetry, stderrLog } from "./store/retry.js";
import { loadServerSecret } from "./config/request-secret.js";
import { timingMark } from "./observability/timing.js";
import { Telemetry } from "./observability/telemetry.js";
// The grammar's interpreter only: the model's (and the openai SDK under it, ~14 MB) loads when a
// model is configured (createInterpreter), not with every server (issue 26).
import { createDeterministicInterpreter, type StepInterpreter } from "./interpreter/index.js";

export { resolveServerOptions, CHROMIUM_CANDIDATES } from "./config/options.js";
export type { ServerOptions, ResolvedServerOptions } from "./config/options.js";
export type { ServerContext, ServerAuth } from "./context.js";
export { SessionManager } from "./sessions/index.js";
export type { CreateSessionOptions, StepInput, SessionRecord, StepRecord, SessionChange, SubmittedStep, SubmitStepOptions } from "./sessions/index.js";
export {
  BrowserUnavailableError,
  IdempotencyKeyReusedError,
  SessionClosedError,
  SessionFinishedError,
  SessionNotFoundError,
  StepNotFoundError,
  StepRequestInvalidError,
  TooManySessionsError,
} from "./sessions/index.js";
export { openStore, PGLITE_DIR, redactDatabaseUrl } from "./store/drivers.js";
export { MemoryStore, MEMORY_DATABASE_URL } from "./store/memory-store.js";
export { backupStore, restoreStore } from "./store/backup.js";
export type { BackupResult, RestoreResult } from "./store/backup.js";
export type { OpenStoreOptions, PgliteWasmTier } from "./store/drivers.js";
export { SqlStore, storageUnavailable, storageCorrupt, STORAGE_RETRY_AFTER_MS } from "./store/sql-store.js";
export type { BeforeCommit, SqlDatabase, SqlQueryable } from "./store/sql-store.js";
export type { Store, StoredSession, RecoveredWork, CorruptRecord, SweepResult } from "./store/store.js";
export { sweepOnce } from "./store/retention.js";
export { HttpProblem, isHttpProblem, BrowserNotFoundError, StepExecutionError, StoreDamagedError } from "./errors.js";
export { VIEW_ROUTES } from "./http/view.js";
export { loadServerSecret, SECRET_FILE } from "./config/request-secret.js";
export type { StepInterpreter, ActContext, ActResult, AskContext, StepReport, ElementIdentity } from "./interpreter/index.js";
export { estimateTokens, grammarText, parseInstructions, readPageView, renderPageView } from "./interpreter/index.js";

/** The server's version, from its package.json. */
export const SERVER_VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** A started server. */
export interface RunningServer {
  /** Base URL it answers on, e.g. `http://127.0.0.1:8787` (the `publicUrl` when one is set). */
  url: string;
  /** The first API key (the generated one when none was configured). */
  apiKey: string;
  /** Every accepted API key. */
  apiKeys: string[];
  /** The server context (sessions, store, options), for tests and embedding. */
  context: ServerContext;
  /** The Fastify instance, for tests (`app.inject`). */
  app: FastifyInstance;
  /** Stops listening, closes every session's browser context, the browser and the store. Idempotent. */
  close(): Promise<void>;
}

/** What a caller started ahead of {@link startServer}, for it to use (and own, closing it on failure). */
export interface StartedAhead {
  /** A browser launched early with `prelaunchBrowser` (`@wf/server/prelaunch`) from the same options. */
  browser?: BrowserHost;
}

/**
 * Starts the service: opens the store (the embedded database in `dataDir`, or `databaseUrl`),
 * marks unfinished steps and open sessions of a previous run `FAILED` with `WF_SERVER_RESTARTED`,
 * starts the browser (its launch overlaps the store's opening), and listens.
 * When no API key is configured, one is generated and printed to stderr.
 *
 * @param options - see {@link ServerOptions}; unset fields come from the environment, then defaults.
 * @param env - the environment variables to read. @default process.env
 * @param started - what was started ahead (a browser from `prelaunchBrowser`); the server owns it.
 * @returns the running server, with its URL and API key.
 * @throws {@link StoreDamagedError} (`WF_STORE_DAMAGED`) when the data folder is not a valid store
 *   (its embedded database damaged, or missing beside wf's other files); nothing is written into it.
 * @throws {@link BrowserNotFoundError} (`WF_BROWSER_NOT_FOUND`) when no browser can be found or started.
 * @example const server = await startServer({ port: 0, dataDir: tmp }); … await server.close();
 */
export async function startServer(options: ServerOptions = {}, env: NodeJS.ProcessEnv = process.env, started: StartedAhead = {}): Promise<RunningServer> {
  timingMark("server: starting");
  let resolved: ResolvedServerOptions;
  try {
    resolved = resolveServerOptions(options, env);
  } catch (error) {
    await started.browser?.close();
    throw error;
  }
  let storeLocation = resolved.dataDir;
  const corrupt = createCorruptReporter(() => storeLocation);
  // The browser launches while the store opens: neither needs the other. A damaged store is still
  // what is reported when both fail (the store is awaited first, and the browser closed).
  const browser = started.browser ?? new BrowserHost(resolved);
  const launching = browser.start();
  launching.catch(() => undefined); // awaited below, after the store and the app, where its error is thrown
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore({
      databaseUrl: resolved.databaseUrl,
      dataDir: resolved.dataDir,
      sync: resolved.journalSync,
      onCorrupt: corrupt.report,
      ...(resolved.beforeStoreCommit ? { beforeCommit: resolved.beforeStoreCommit } : {}),
      pgliteWasmTier: resolved.pgliteWasmTier,
    });
  } catch (error) {
    await browser.close();
    throw error;
  }
  storeLocation = store.location;
  timingMark("server: store opened");
  const cleanup: (() => Promise<void>)[] = [() => browser.close(), () => store.close()];
  try {
    // The interpreter's and the store retry's warnings go to the app's logger once it exists, else to stderr.
    let appLog: FastifyInstance["log"] | undefined;
    const warn = (message: string) => (appLog ? appLog.warn(message) : process.stderr.write(`wf server: ${message}\n`));
    const interpreter = resolved.interpreter ?? (await createInterpreter(resolved, warn));
    let publicUrl = resolved.publicUrl ?? `http://${hostForUrl(resolved.host)}:${resolved.port}`;
    const secret = await loadServerSecret(resolved.dataDir, resolved.requestHashSecret);
    // Retried writes warn through the logger once the app (and its logger) exists, else on stderr.
    // What operators see: the metrics (prom-client, loaded only when they are on) and warn lines.
    const telemetry = new Telemetry(resolved.metrics ? (await import("./observability/metrics.js")).createMetrics(() => sessions.openSessionCount) : undefined);
    browser.observe({ launched: () => telemetry.browserLaunched(), crashed: () => telemetry.browserCrashed() });
    const storeRetry = new StoreRetry({
      onRetry: () => telemetry.storeWriteRetried(),
      location: store.location,
      log: {
        warn: (context, message) => (appLog ? appLog.warn(context, message) : stderrLog.warn(context, message)),
        info: (context, message) => (appLog ? appLog.info(context, message) : stderrLog.info(context, message)),
      },
    });
    const sessions: SessionManager = new SessionManager({ options: resolved, browser, store, interpreter, publicUrl: () => publicUrl, secret, storeRetry, telemetry });
    await sessions.recover();
    // The first session's context and page open while the app is built and starts listening.
    sessions.warmUp();
    const context: ServerContext = {
      options: resolved,
      publicUrl: () => publicUrl,
      sessions,
      browser,
      interpreter,
      store,
      telemetry,
      auth: createAuth(resolved.apiKeys),
      parse: createParse(),
      version: SERVER_VERSION,
    };
    timingMark("server: sessions recovered");
    const app = await buildApp(context);
    timingMark("server: app built");
    // Awaited only now: the app is built while Chromium starts (`wf run`'s server, whose store
    // opens at once, waited for it here before). A failed launch still stops the start, before listen.
    await launching;
    timingMark("server: browser launched");
    corrupt.useLogger(resolved.logger ? app : undefined);
    if (resolved.logger) {
      appLog = app.log;
      telemetry.useLog(app.log);
    }
    warnAboutOldJournal(app, Boolean(resolved.logger), resolved.dataDir);
    const retention = startRetentionSweep(context, (error) => corrupt.report({ kind: "session", id: "(retention sweep)", reason: (error as Error).message }));
    cleanup.unshift(async () => retention.stop());
    await app.listen({ host: resolved.host, port: resolved.port });
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : resolved.port;
    if (!resolved.publicUrl) publicUrl = `http://${hostForUrl(resolved.host)}:${port}`;
    timingMark("server: listening");
    // Other instances on the same database forward requests about this one's sessions to it.
    resolved.internalUrl = internalUrlOf(resolved.internalUrl, resolved.host, port);
    const lease =
      store.driver === "memory"
        ? undefined
        : await startInstanceLease(context, resolved.internalUrl, (error) => {
            // Never silent: the lease lapses if this keeps failing, and other instances then end this one's sessions.
            if (resolved.logger) app.log.error({ err: error }, "wf server: renewing this instance's lease failed; retrying");
            else process.stderr.write(`wf server: renewing this instance's lease failed (${(error as Error).message}); retrying\n`);
          });
    if (resolved.apiKeyGenerated) process.stderr.write(`wf server: no API key configured (WF_API_KEYS); generated one for this run: ${resolved.apiKeys[0]}\n`);

    let closing: Promise<void> | undefined;
    return {
      url: publicUrl,
      apiKey: resolved.apiKeys[0]!,
      apiKeys: [...resolved.apiKeys],
      context,
      app,
      close() {
        closing ??= (async () => {
          await app.close().catch(() => undefined);
          retention.stop();
          await lease?.stop();
          await sessions.close();
          await browser.close();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    corrupt.useLogger(undefined);
    for (const step of cleanup) await step().catch(() => undefined);
    throw error;
  }
}

/**
 * Reports a record the store could not read: to the logger when there is one, else to stderr, so
 * it is never silent. What is found before the app (and its logger) exists, at start-up, is held
 * until {@link useLogger} says where it goes.
 */
function createCorruptReporter(location: () => string): { report: (record: CorruptRecord) => void; useLogger: (app: FastifyInstance | undefined) => void } {
  let target: FastifyInstance | undefined | null = null;
  const held: CorruptRecord[] = [];
  const write = (record: CorruptRecord) => {
    const message = corruptMessage(location(), record);
    if (target) target.log.warn({ record }, message);
    else process.stderr.write(`wf server: ${message}\n`);
  };
  return {
    report(record) {
      if (target === null) held.push(record);
      else write(record);
    },
    useLogger(app) {
      target = app;
      for (const record of held.splice(0)) write(record);
    },
  };
}

/** A data directory of a server before the database (`journal.ndjson`): its records are not read any more; say so once. */
function warnAboutOldJournal(app: FastifyInstance, logging: boolean, dataDir: string): void {
  const path = join(dataDir, "journal.ndjson");
  if (!existsSync(path)) return;
  const message = `${path} is the record file of an older wf server; this server keeps its records in a database and does not read it (its sessions are not shown). Keep it to read it with jq, or delete it.`;
  if (logging) app.log.warn({ path }, message);
  else process.stderr.write(`wf server: ${message}\n`);
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The interpreter a server runs: the grammar alone, or, with a model configured, the grammar first
 * for ACT and the model for the rest. `warn` takes the provider's one-off warnings (the logger's
 * `warn`, else stderr).
 * @throws {@link InterpreterError} `WF_MODEL_AUTH_FAILED` when a model is set for OpenAI without an API key.
 */
async function createInterpreter(resolved: ResolvedServerOptions, warn: (message: string) => void): Promise<StepInterpreter> {
  const grammar = createDeterministicInterpreter({ uploadRoot: resolved.uploadRoot, allowFileUrls: resolved.allowFileUrls });
  if (!resolved.model) return grammar;
  const { createModelProvider, createModelInterpreter, createGrammarThenModelInterpreter } = await import("./interpreter/model/index.js");
  const { name, apiKey, baseUrl, responseFormat, temperature, maxPromptTokens, timeoutMs } = resolved.model;
  const provider = createModelProvider({ model: name, apiKey, baseUrl, responseFormat, temperature, timeoutMs, maxPromptTokens, warn });
  const model = createModelInterpreter({
    provider,
    maxPromptTokens,
    perform: { uploadRoot: resolved.uploadRoot, allowFileUrls: resolved.allowFileUrls, findTimeoutMs: 5_000 },
  });
  return createGrammarThenModelInterpreter(grammar, model);
}
