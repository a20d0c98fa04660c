/**
 * Options of the server: {@link ServerOptions} (all optional, what users pass) and
 * {@link resolveServerOptions}, which fills every field. Precedence, written once here: explicit
 * option, then environment variable, then default.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { resolve as resolvePath } from "node:path";
import type { FastifyServerOptions } from "fastify";
import { WfError } from "@wf/core";
import { playwrightChromiumPath } from "../browser/host.js";
import { DEFAULT_SETTLE_TIMEOUT_MS, type StepInterpreter } from "../interpreter/index.js";
import type { BeforeCommit } from "../store/sql-store.js";
import type { PgliteWasmTier } from "../store/drivers.js";
import { resolveLogger } from "../observability/logging.js";
import { nonBlank, parseWfEnv, WfEnvError, type WfEnv } from "./env.js";

/** Where a system Chromium or Chrome usually lives, tried in this order when no path is given. */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/** Options of {@link startServer}. Every field is optional; defaults are documented per field. */
export interface ServerOptions {
  /** Interface to listen on. Env `WF_HOST`. @default "127.0.0.1" */
  host?: string;
  /** TCP port; `0` picks a free one. Env `WF_PORT`. @default 8787 */
  port?: number;
  /**
   * Accepted API keys. Env `WF_API_KEYS` (comma-separated). When neither is set, one key is
   * generated and printed at start.
   */
  apiKeys?: string[];
  /** Folder of the embedded database (`<dataDir>/db`), screenshots and the secret key. Env `WF_DATA_DIR`. @default ".wf" */
  dataDir?: string;
  /**
   * Where the records go: `postgres://user:password@host:5432/db` for a PostgreSQL server (driver
   * `pg`; another scheme is a start-up error). `memory:` keeps the records in the process only,
   * gone when it stops (what `wf run`'s throwaway embedded server uses). Unset: the embedded PGlite
   * database in `<dataDir>/db`. Env `WF_DATABASE_URL`. @default undefined
   */
  databaseUrl?: string;
  /**
   * Finished sessions (their steps, logs and screenshots) older than this many days are deleted
   * by a background sweep (hourly, and once at start). Env `WF_RETENTION_DAYS`. @default undefined (kept forever)
   */
  retentionDays?: number;
  /** Chromium executable. Env `WF_CHROMIUM_PATH`; else the first of {@link CHROMIUM_CANDIDATES} that exists, else Playwright's own Chromium (`wf install-browser`). */
  chromiumPath?: string;
  /**
   * Show the browser window (Chromium not headless), to watch a run. Needs a display: on Linux,
   * `DISPLAY` (X11) or `WAYLAND_DISPLAY`; without one, {@link resolveServerOptions} throws
   * `WF_NO_DISPLAY` instead of letting Chromium crash. Ignored with a `browserEndpoint`.
   * Env `WF_HEADED` (`1`/`true`). @default false (headless)
   */
  headed?: boolean;
  /**
   * Slow every browser operation (click, type, navigation) down by this many ms, Playwright's
   * `slowMo`: to follow a headed run by eye. Ignored with a `browserEndpoint`. Env `WF_SLOW_MO_MS`. @default 0
   */
  slowMoMs?: number;
  /** CDP endpoint of a browser that runs elsewhere (`connectOverCDP` instead of launching). Env `WF_BROWSER_ENDPOINT`. */
  browserEndpoint?: string;
  /** Most sessions open at once; one more is a 429. Env `WF_MAX_SESSIONS`. @default 8 */
  maxSessions?: number;
  /** A step session with no step for this long is closed (status CANCELLED), in ms. Env `WF_IDLE_TIMEOUT_MS`. @default 300_000 */
  idleTimeoutMs?: number;
  /** Default step timeout, in ms (a step run's `timeoutMs` overrides it). Env `WF_STEP_TIMEOUT_MS`. @default 30_000 */
  stepTimeoutMs?: number;
  /** Largest request body, in bytes; more is a 413. Env `WF_BODY_LIMIT_BYTES`. @default 1_048_576 (1 MiB) */
  bodyLimitBytes?: number;
  /**
   * Largest file a step may download, in bytes: a larger one is cancelled while it downloads, its
   * partial file deleted, and the step fails `WF_DOWNLOAD_TOO_LARGE`. Env `WF_MAX_DOWNLOAD_BYTES`.
   * @default 52_428_800 (50 MiB)
   */
  maxDownloadBytes?: number;
  /**
   * Count the service's metrics and serve them at `GET /metrics` (Prometheus text format, with the
   * API key or `metricsToken`). Env `WF_METRICS`. `wf run`'s own server turns them off. @default true
   */
  metrics?: boolean;
  /** A bearer token that opens `GET /metrics` (and nothing else), for a scraper without an API key. Env `WF_METRICS_TOKEN`. */
  metricsToken?: string;
  /**
   * Longest a client may take to send a whole request (headers and body), in ms; past it the
   * server answers 408 `WF_REQUEST_TIMEOUT` and closes the connection. Env `WF_REQUEST_TIMEOUT_MS`;
   * `0` turns it off. @default 30_000
   */
  requestTimeoutMs?: number;
  /**
   * Longest a connection may stay silent (no byte either way), in ms; then it is closed. Keep it
   * above 30,000 (long-polls wait that long without a byte; the debugger's event stream sends a
   * keep-alive every 15 s). An idle keep-alive connection is closed after the shorter of this and
   * 72 s. Env `WF_CONNECTION_TIMEOUT_MS`; `0` turns it off. @default 75_000
   */
  connectionTimeoutMs?: number;
  /** Base URL of the links the server hands out (`debuggerUrl`, `viewUrl`). Env `WF_PUBLIC_URL`. @default `http://<host>:<port>` */
  publicUrl?: string;
  /**
   * Fastify's logger option (`true`, pino options, or `false`). Request logs never show session
   * tokens (`?token=`) or API keys (see `observability/logging.ts`); 5xx answers are logged with their stack.
   * Env `WF_LOG_LEVEL` (`fatal`…`trace`, `silent`) turns it on at that level when unset here.
   * @default false (`wf serve` and `pnpm --filter @wf/server start`: `info`)
   */
  logger?: FastifyServerOptions["logger"];
  /** Folder of stored workflows (issue 5). Env `WF_WORKFLOWS_DIR`. @default undefined (none served) */
  workflowsDir?: string;
  /** How stored workflow files are imported (issue 5); injectable for tests. @default undefined (the stored-workflow loader's own default) */
  importModule?: (path: string) => Promise<unknown>;
  /** Proxy URL a stored run with `proxy: true` uses. Env `WF_PROXY_URL`. @default undefined */
  proxyUrl?: string;
  /**
   * Let steps open `file:` URLs (`go to file:///usr/share/doc/…`). Off by default: anyone holding an
   * API key could otherwise read the server's files. `wf run`'s embedded server turns it on (the
   * files are the user's own). Env `WF_ALLOW_FILE_URLS` (`1`/`true`). @default false
   */
  allowFileUrls?: boolean;
  /**
   * Refuse every request of a session's browser to loopback, private, link-local and other
   * non-public addresses (the server's own port, a cloud metadata service, the office network):
   * navigations, redirect hops, links, frames, subresources and WebSockets, checked on the
   * resolved addresses. Hosts that don't resolve from the server are refused too. Off by default
   * (`wf run` opens the user's own local pages). Env `WF_BLOCK_PRIVATE_NETWORKS` (`1`/`true`).
   * @default false
   */
  blockPrivateNetworks?: boolean;
  /**
   * Stored runs may write their workflow's action lock (`<name>.wf.lock.json` beside the workflow
   * file): they then run it in `heal` mode (record steps the model resolves, heal stale entries in
   * place). Off by default: stored runs only read the lock (`read`: replay its entries; a stale
   * entry fails the run), since the workflows folder is usually a deployed copy of a repository.
   * Env `WF_WRITE_LOCKS` (`1`/`true`). @default false
   */
  writeLocks?: boolean;
  /**
   * Stored runs read their action lock `frozen` (as `wf run --lock frozen`): an ACT the lock has
   * no entry for, and that needs the model, fails the run `WF_LOCK_MISSING` without calling it.
   * Cannot be combined with `writeLocks`. Env `WF_FROZEN_LOCKS` (`1`/`true`). @default false (`read`)
   */
  frozenLocks?: boolean;
  /**
   * The most model calls one stored run may make (as `wf run --max-model-calls`): once they are made,
   * a step that needs the model fails the run `WF_MODEL_BUDGET_EXCEEDED`; 0: no model call at all.
   * Env `WF_MAX_MODEL_CALLS`. @default no limit
   */
  maxModelCalls?: number;
  /** Folder that `upload "file" to "field"` resolves paths under; paths outside are refused. Env `WF_UPLOAD_ROOT`. @default the working directory */
  uploadRoot?: string;
  /**
   * Longest wait, in ms, for the page to settle before a step reads it (before an ASK reads, a check
   * evaluates, a model is shown the page): until the page's own requests (fetch, XHR, scripts) have
   * ended, then no DOM change for 100 ms. Requests that stay open (EventSource, WebSocket, requests
   * open longer than half of this: long-polls) are not waited for; reaching it is reported in the
   * step (`settle.capReached`), not failed. 0 reads the page as it is. Env `WF_SETTLE_TIMEOUT_MS`.
   * @default 3_000
   */
  settleTimeoutMs?: number;
  /**
   * The model that runs free-form steps, as the endpoint names it (`gpt-4.1-mini`, `qwen2.5:7b`).
   * When set, an ACT the grammar cannot carry out goes to the model, and every ASK does; unset,
   * only the grammar runs and no model is ever called. Env `WF_MODEL`. @default undefined
   */
  model?: string;
  /** API key of the model provider. Env `OPENAI_API_KEY` (the openai SDK's own). @default none (a local endpoint needs none) */
  modelApiKey?: string;
  /** Base URL of an OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1` (Ollama). Env `OPENAI_BASE_URL`. @default OpenAI's */
  modelBaseUrl?: string;
  /**
   * How answers are constrained: `json_schema` (strict structured outputs) or `json_object` (the
   * schema in the prompt, for endpoints that do not honour strict schemas). Env `WF_MODEL_RESPONSE_FORMAT`.
   * @default "json_schema"
   */
  modelResponseFormat?: "json_schema" | "json_object";
  /** Sampling temperature. Env `WF_MODEL_TEMPERATURE`. @default 0 */
  modelTemperature?: number;
  /** Largest prompt of one model call, in estimated tokens (characters ÷ 4); a larger page is reduced to what the step needs. Env `WF_MODEL_MAX_PROMPT_TOKENS`. @default 12_000 */
  modelMaxPromptTokens?: number;
  /**
   * Longest wait for one HTTP request to the model provider (its whole answer), in ms; the SDK
   * retries a timed-out request like a reset, each retry with its own wait, within the step's
   * deadline. A step whose requests all time out fails `WF_MODEL_TIMEOUT` naming the provider.
   * Env `WF_MODEL_TIMEOUT_MS`. @default 60_000
   */
  modelTimeoutMs?: number;
  /**
   * Check every JSON answer against the `@wf/core/protocol` schema its route declares before
   * sending it; an answer that does not fit is logged and answered 500 `WF_INTERNAL` naming the
   * field instead. For tests and development (the test suites turn it on): a server must never
   * send a body that breaks its own protocol. Env `WF_CHECK_RESPONSES` (`1`/`true`). @default false
   */
  checkResponses?: boolean;
  /** The step interpreter; replaces the grammar and the model. @default the grammar, and the model when `model` is set */
  interpreter?: StepInterpreter;
  /**
   * Durable commits: a change is on disk before the answer that reports it. Off (tests, `wf run`'s
   * throwaway server), the embedded database relaxes its syncs and PostgreSQL runs with
   * `synchronous_commit = off`. @default true
   */
  journalSync?: boolean;
  /**
   * Secret key of the request digests that idempotency compares (HMAC-SHA-256). Env
   * `WF_REQUEST_HASH_SECRET`. @default generated once into `<dataDir>/secret.key` (mode 0600)
   */
  requestHashSecret?: string;
  /**
   * Keep one browser context and page opened ahead of the next session, so creating a session
   * does not wait for Chromium (sessions with a proxy still do). Costs one idle context (a
   * renderer process, about 50 MB). `"first"`: open one ahead for the first session only and none
   * after it, for a server that will serve one session (`wf run`'s own embedded server: a
   * replacement would start a second renderer during that session's first step, for nobody).
   * Env `WF_WARM_SESSIONS` (a boolean). @default true
   */
  warmSessions?: boolean | "first";
  /**
   * Name of this server instance among those sharing one database (see `cluster/instances.ts`): the
   * sessions it holds are recorded under it, and at start it ends the ones its previous run left
   * open. Env `WF_INSTANCE_ID`. @default derived from the host name and `dataDir` (stable across
   * restarts of the same server)
   */
  instanceId?: string;
  /**
   * Base URL at which the other instances reach this one, to forward requests about the sessions
   * it holds. Env `WF_INTERNAL_URL`. @default `http://<host>:<port>` as it listens (the host name
   * of the machine when it listens on every address)
   */
  internalUrl?: string;
  /**
   * How long an instance's registration lasts without renewal, in ms; it is renewed every third of
   * that. The sessions of an instance whose lease ran out end `FAILED` with `WF_SERVER_LOST`.
   * Env `WF_INSTANCE_LEASE_MS`. @default 30000 (at least 1000)
   */
  instanceLeaseMs?: number;
  /**
   * Called inside every write transaction of the store just before it commits, with the
   * operation's name; throwing fails the write as a full disk would (rolled back, 503
   * `WF_STORAGE_UNAVAILABLE`). For tests. @default undefined
   */
  beforeStoreCommit?: BeforeCommit;
  /**
   * How V8 compiles the embedded database's WebAssembly: `"baseline"` (Liftoff only: the idle server
   * ~70 MB smaller and its start faster, the store's writes about half as fast) or `"optimizing"`
   * (V8's default). Process-wide once set, so only a process that is the server's own should ask for
   * `"baseline"`: `wf serve` and `pnpm start` do. See `PgliteWasmTier` in `store/drivers.ts`.
   * @default "optimizing"
   */
  pgliteWasmTier?: PgliteWasmTier;
}

/** {@link ServerOptions} with every field set (optional ones stay optional). */
export interface ResolvedServerOptions {
  host: string;
  port: number;
  apiKeys: string[];
  /** True when the key in `apiKeys` was generated because none was configured. */
  apiKeyGenerated: boolean;
  /** Absolute path. */
  dataDir: string;
  databaseUrl: string | undefined;
  retentionDays: number | undefined;
  /** Absolute path of the Chromium to launch; undefined when none was found or a `browserEndpoint` is used. */
  chromiumPath: string | undefined;
  /** Paths tried to find `chromiumPath` (for the start-up error). */
  chromiumCandidates: string[];
  browserEndpoint: string | undefined;
  headed: boolean;
  slowMoMs: number;
  maxSessions: number;
  idleTimeoutMs: number;
  stepTimeoutMs: number;
  bodyLimitBytes: number;
  maxDownloadBytes: number;
  metrics: boolean;
  metricsToken: string | undefined;
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  /** Undefined until the port is known; see `ServerContext.publicUrl`. */
  publicUrl: string | undefined;
  logger: FastifyServerOptions["logger"];
  workflowsDir: string | undefined;
  importModule: ((path: string) => Promise<unknown>) | undefined;
  proxyUrl: string | undefined;
  allowFileUrls: boolean;
  settleTimeoutMs: number;
  blockPrivateNetworks: boolean;
  writeLocks: boolean;
  frozenLocks: boolean;
  maxModelCalls: number | undefined;
  /** Absolute path. */
  uploadRoot: string;
  /** The model configuration, or undefined when no model is configured. */
  model: ResolvedModelOptions | undefined;
  interpreter: StepInterpreter | undefined;
  journalSync: boolean;
  requestHashSecret: string | undefined;
  warmSessions: boolean | "first";
  instanceId: string;
  /** Undefined until the port is known (see `cluster/instances.ts`). */
  internalUrl: string | undefined;
  instanceLeaseMs: number;
  beforeStoreCommit: BeforeCommit | undefined;
  pgliteWasmTier: PgliteWasmTier;
  checkResponses: boolean;
}

/** The model settings of {@link ResolvedServerOptions}. */
export interface ResolvedModelOptions {
  name: string;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  responseFormat: "json_schema" | "json_object";
  temperature: number;
  maxPromptTokens: number;
  /** Longest wait for one HTTP request to the provider, in ms. */
  timeoutMs: number;
}

/**
 * Resolves {@link ServerOptions}: explicit option, then environment variable, then default.
 *
 * @param options - what the caller passed.
 * @param env - the environment to read. @default process.env
 * @throws {@link WfError} `WF_CONFIG_INVALID` when environment variables are malformed (one message
 *   listing each, from the shared schema in `env.ts`) or an option is out of range.
 */
export function resolveServerOptions(options: ServerOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedServerOptions {
  const vars = readServerEnv(env);
  let apiKeys = options.apiKeys?.filter((k) => k.length > 0) ?? [];
  if (apiKeys.length === 0) apiKeys = vars.WF_API_KEYS ?? [];
  const apiKeyGenerated = apiKeys.length === 0;
  if (apiKeyGenerated) apiKeys = [`wf_${randomBytes(24).toString("base64url")}`];

  const browserEndpoint = options.browserEndpoint ?? vars.WF_BROWSER_ENDPOINT;
  const explicitChromium = options.chromiumPath ?? vars.WF_CHROMIUM_PATH;
  // Last: Playwright's own Chromium, where `wf install-browser` puts it when it can download it.
  const chromiumCandidates = explicitChromium ? [explicitChromium] : [...CHROMIUM_CANDIDATES, ...[playwrightChromiumPath()].filter((p) => p !== undefined)];
  const chromiumPath = browserEndpoint ? undefined : chromiumCandidates.find((p) => existsSync(p));
  const headed = options.headed ?? vars.WF_HEADED ?? false;
  if (headed && !browserEndpoint) assertDisplay(env);
  const slowMoMs = options.slowMoMs ?? vars.WF_SLOW_MO_MS ?? 0;
  if (!Number.isFinite(slowMoMs) || slowMoMs < 0) throw new WfError("WF_CONFIG_INVALID", `slowMoMs must be 0 or more milliseconds, got ${slowMoMs}.`);
  const dataDir = resolvePath(options.dataDir ?? vars.WF_DATA_DIR ?? ".wf");
  const instanceLeaseMs = options.instanceLeaseMs ?? vars.WF_INSTANCE_LEASE_MS ?? 30_000;
  if (instanceLeaseMs < 1_000) throw new WfError("WF_CONFIG_INVALID", `WF_INSTANCE_LEASE_MS must be at least 1000 ms (it is renewed every third of it), got ${instanceLeaseMs}.`);

  const writeLocks = options.writeLocks ?? vars.WF_WRITE_LOCKS ?? false;
  const frozenLocks = options.frozenLocks ?? vars.WF_FROZEN_LOCKS ?? false;
  if (writeLocks && frozenLocks) throw new WfError("WF_CONFIG_INVALID", "WF_WRITE_LOCKS and WF_FROZEN_LOCKS exclude each other (a frozen lock is never written): set one of them.");
  const maxModelCalls = options.maxModelCalls ?? vars.WF_MAX_MODEL_CALLS;
  if (maxModelCalls !== undefined && (!Number.isInteger(maxModelCalls) || maxModelCalls < 0)) {
    throw new WfError("WF_CONFIG_INVALID", `WF_MAX_MODEL_CALLS must be a whole number of model calls, 0 or more, got ${maxModelCalls}.`);
  }

  return {
    host: options.host ?? vars.WF_HOST ?? "127.0.0.1",
    port: options.port ?? vars.WF_PORT ?? 8787,
    apiKeys,
    apiKeyGenerated,
    dataDir,
    databaseUrl: options.databaseUrl ?? vars.WF_DATABASE_URL,
    retentionDays: resolveRetentionDays(options.retentionDays ?? vars.WF_RETENTION_DAYS),
    chromiumPath,
    chromiumCandidates,
    browserEndpoint,
    headed,
    slowMoMs,
    maxSessions: options.maxSessions ?? vars.WF_MAX_SESSIONS ?? 8,
    idleTimeoutMs: options.idleTimeoutMs ?? vars.WF_IDLE_TIMEOUT_MS ?? 300_000,
    stepTimeoutMs: options.stepTimeoutMs ?? vars.WF_STEP_TIMEOUT_MS ?? 30_000,
    bodyLimitBytes: options.bodyLimitBytes ?? vars.WF_BODY_LIMIT_BYTES ?? 1024 * 1024,
    maxDownloadBytes: options.maxDownloadBytes ?? vars.WF_MAX_DOWNLOAD_BYTES ?? 50 * 1024 * 1024,
    metrics: options.metrics ?? vars.WF_METRICS ?? true,
    metricsToken: options.metricsToken ?? vars.WF_METRICS_TOKEN,
    requestTimeoutMs: options.requestTimeoutMs ?? vars.WF_REQUEST_TIMEOUT_MS ?? 30_000,
    connectionTimeoutMs: options.connectionTimeoutMs ?? vars.WF_CONNECTION_TIMEOUT_MS ?? 75_000,
    publicUrl: (options.publicUrl ?? vars.WF_PUBLIC_URL)?.replace(/\/+$/, ""),
    logger: resolveLogger(options.logger, env),
    workflowsDir: options.workflowsDir ?? vars.WF_WORKFLOWS_DIR,
    importModule: options.importModule,
    proxyUrl: options.proxyUrl ?? vars.WF_PROXY_URL,
    allowFileUrls: options.allowFileUrls ?? vars.WF_ALLOW_FILE_URLS ?? false,
    settleTimeoutMs: resolveSettleTimeout(options.settleTimeoutMs ?? vars.WF_SETTLE_TIMEOUT_MS ?? DEFAULT_SETTLE_TIMEOUT_MS),
    blockPrivateNetworks: options.blockPrivateNetworks ?? vars.WF_BLOCK_PRIVATE_NETWORKS ?? false,
    writeLocks,
    frozenLocks,
    maxModelCalls,
    uploadRoot: resolvePath(options.uploadRoot ?? vars.WF_UPLOAD_ROOT ?? "."),
    model: resolveModel(options, vars),
    interpreter: options.interpreter,
    journalSync: options.journalSync ?? true,
    requestHashSecret: options.requestHashSecret ?? vars.WF_REQUEST_HASH_SECRET,
    warmSessions: options.warmSessions ?? vars.WF_WARM_SESSIONS ?? true,
    instanceId: nonBlank(options.instanceId) ?? vars.WF_INSTANCE_ID ?? defaultInstanceId(dataDir),
    internalUrl: (nonBlank(options.internalUrl) ?? vars.WF_INTERNAL_URL)?.replace(/\/+$/, ""),
    instanceLeaseMs,
    beforeStoreCommit: options.beforeStoreCommit,
    pgliteWasmTier: options.pgliteWasmTier ?? "optimizing",
    checkResponses: options.checkResponses ?? vars.WF_CHECK_RESPONSES ?? false,
  };
}

/** `<host name>-<8 hex of the data folder's path>`: the same server keeps its name across restarts; two data folders on one machine are two instances. */
function defaultInstanceId(dataDir: string): string {
  return `${hostname()}-${createHash("sha256").update(dataDir).digest("hex").slice(0, 8)}`;
}

function resolveSettleTimeout(ms: number): number {
  if (!Number.isInteger(ms) || ms < 0) throw new WfError("WF_CONFIG_INVALID", `WF_SETTLE_TIMEOUT_MS must be a whole number of milliseconds, 0 or more (e.g. 3000), got ${ms}.`);
  return ms;
}

function resolveRetentionDays(days: number | undefined): number | undefined {
  if (days === undefined) return undefined;
  if (!Number.isFinite(days) || days <= 0) throw new Error(`WF_RETENTION_DAYS must be a number of days above 0 (e.g. 30), got ${days}. Unset it to keep records forever.`);
  return days;
}

function resolveModel(options: ServerOptions, vars: ServerEnv): ResolvedModelOptions | undefined {
  const name = nonBlank(options.model) ?? vars.WF_MODEL;
  if (!name) return undefined;
  const responseFormat = options.modelResponseFormat ?? vars.WF_MODEL_RESPONSE_FORMAT ?? "json_schema";
  if (responseFormat !== "json_schema" && responseFormat !== "json_object") {
    throw new Error(`WF_MODEL_RESPONSE_FORMAT must be json_schema or json_object, got ${JSON.stringify(responseFormat)}.`);
  }
  const maxPromptTokens = options.modelMaxPromptTokens ?? vars.WF_MODEL_MAX_PROMPT_TOKENS ?? 12_000;
  if (maxPromptTokens < 1_000) throw new Error(`WF_MODEL_MAX_PROMPT_TOKENS must be at least 1000 (a prompt needs room for the page), got ${maxPromptTokens}.`);
  const timeoutMs = options.modelTimeoutMs ?? vars.WF_MODEL_TIMEOUT_MS ?? 60_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new WfError("WF_CONFIG_INVALID", `WF_MODEL_TIMEOUT_MS must be a whole number of milliseconds, 1 or more, got ${timeoutMs}.`);
  return {
    name,
    apiKey: options.modelApiKey ?? vars.OPENAI_API_KEY,
    baseUrl: (options.modelBaseUrl ?? vars.OPENAI_BASE_URL)?.replace(/\/+$/, ""),
    responseFormat,
    temperature: options.modelTemperature ?? vars.WF_MODEL_TEMPERATURE ?? 0,
    maxPromptTokens,
    timeoutMs,
  };
}

/**
 * A headed Chromium on Linux needs a display server; without one it dies with "Missing X server or
 * $DISPLAY" deep in its log. Say so first, with what to do. (macOS and Windows always have a desktop.)
 *
 * @throws {@link WfError} `WF_NO_DISPLAY` on Linux when neither `DISPLAY` nor `WAYLAND_DISPLAY` is set.
 */
export function assertDisplay(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): void {
  if (platform !== "linux" || nonBlank(env.DISPLAY) || nonBlank(env.WAYLAND_DISPLAY)) return;
  throw new WfError(
    "WF_NO_DISPLAY",
    "A headed browser needs a display, and this machine has none (neither DISPLAY nor WAYLAND_DISPLAY is set). " +
      "Run without --headed (WF_HEADED), run from a desktop session, or start a virtual one: xvfb-run wf run --headed ….",
  );
}

/** The variables {@link resolveServerOptions} reads (see `env.ts`). */
const SERVER_ENV = [
  "WF_HOST", "WF_PORT", "WF_API_KEYS", "WF_DATA_DIR", "WF_DATABASE_URL", "WF_RETENTION_DAYS", "WF_CHROMIUM_PATH", "WF_BROWSER_ENDPOINT",
  "WF_HEADED", "WF_SLOW_MO_MS", "WF_MAX_SESSIONS", "WF_IDLE_TIMEOUT_MS", "WF_STEP_TIMEOUT_MS", "WF_BODY_LIMIT_BYTES", "WF_MAX_DOWNLOAD_BYTES", "WF_METRICS", "WF_METRICS_TOKEN", "WF_REQUEST_TIMEOUT_MS",
  "WF_CONNECTION_TIMEOUT_MS", "WF_PUBLIC_URL", "WF_LOG_LEVEL", "WF_WORKFLOWS_DIR", "WF_PROXY_URL", "WF_ALLOW_FILE_URLS", "WF_BLOCK_PRIVATE_NETWORKS",
  "WF_WRITE_LOCKS", "WF_FROZEN_LOCKS", "WF_MAX_MODEL_CALLS", "WF_UPLOAD_ROOT", "WF_SETTLE_TIMEOUT_MS", "WF_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
  "WF_MODEL_RESPONSE_FORMAT", "WF_MODEL_TEMPERATURE", "WF_MODEL_MAX_PROMPT_TOKENS", "WF_MODEL_TIMEOUT_MS", "WF_CHECK_RESPONSES", "WF_REQUEST_HASH_SECRET", "WF_WARM_SESSIONS", "WF_INSTANCE_ID",
  "WF_INTERNAL_URL", "WF_INSTANCE_LEASE_MS",
  // Read as the server loads, without zod (timing.ts); checked here so a malformed value fails like any other.
  "WF_TIMING",
] as const;
type ServerEnv = Pick<WfEnv, (typeof SERVER_ENV)[number]>;

/** @throws {@link WfError} `WF_CONFIG_INVALID` listing every malformed variable (the shared parse's message). */
function readServerEnv(env: NodeJS.ProcessEnv): ServerEnv {
  try {
    return parseWfEnv(env, SERVER_ENV);
  } catch (error) {
    if (error instanceof WfEnvError) throw new WfError("WF_CONFIG_INVALID", error.message, { cause: error });
    throw error;
  }
}
