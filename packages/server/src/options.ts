/**
 * Options of the server: {@link ServerOptions} (all optional, what users pass) and
 * {@link resolveServerOptions}, which fills every field. Precedence, written once here: explicit
 * option, then environment variable, then default.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import type { FastifyServerOptions } from "fastify";
import { playwrightChromiumPath } from "./browser.js";
import type { StepInterpreter } from "./interpreter/types.js";

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
  /** Folder of the journal and screenshots. Env `WF_DATA_DIR`. @default ".wf" */
  dataDir?: string;
  /** Chromium executable. Env `WF_CHROMIUM_PATH`; else the first of {@link CHROMIUM_CANDIDATES} that exists, else Playwright's own Chromium (`wf install-browser`). */
  chromiumPath?: string;
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
  /** Base URL of the links the server hands out (`debuggerUrl`, `viewUrl`). Env `WF_PUBLIC_URL`. @default `http://<host>:<port>` */
  publicUrl?: string;
  /** Fastify's logger option (`true`, pino options, or `false`). @default false */
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
  /** Folder that `upload "file" to "field"` resolves paths under; paths outside are refused. Env `WF_UPLOAD_ROOT`. @default the working directory */
  uploadRoot?: string;
  /** The step interpreter. @default createDeterministicInterpreter({ uploadRoot, allowFileUrls }) */
  interpreter?: StepInterpreter;
  /** Sync the journal to disk (`fdatasync`) before answering. @default true */
  journalSync?: boolean;
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
  /** Absolute path of the Chromium to launch; undefined when none was found or a `browserEndpoint` is used. */
  chromiumPath: string | undefined;
  /** Paths tried to find `chromiumPath` (for the start-up error). */
  chromiumCandidates: string[];
  browserEndpoint: string | undefined;
  maxSessions: number;
  idleTimeoutMs: number;
  stepTimeoutMs: number;
  bodyLimitBytes: number;
  /** Undefined until the port is known; see `ServerContext.publicUrl`. */
  publicUrl: string | undefined;
  logger: FastifyServerOptions["logger"];
  workflowsDir: string | undefined;
  importModule: ((path: string) => Promise<unknown>) | undefined;
  proxyUrl: string | undefined;
  allowFileUrls: boolean;
  /** Absolute path. */
  uploadRoot: string;
  interpreter: StepInterpreter | undefined;
  journalSync: boolean;
}

/**
 * Resolves {@link ServerOptions}: explicit option, then environment variable, then default.
 *
 * @param options - what the caller passed.
 * @param env - the environment to read. @default process.env
 * @throws {@link Error} when a numeric environment variable is not a number.
 */
export function resolveServerOptions(options: ServerOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedServerOptions {
  const envKeys = (env.WF_API_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  let apiKeys = options.apiKeys?.filter((k) => k.length > 0) ?? [];
  if (apiKeys.length === 0) apiKeys = envKeys;
  const apiKeyGenerated = apiKeys.length === 0;
  if (apiKeyGenerated) apiKeys = [`wf_${randomBytes(24).toString("base64url")}`];

  const browserEndpoint = options.browserEndpoint ?? nonEmpty(env.WF_BROWSER_ENDPOINT);
  const explicitChromium = options.chromiumPath ?? nonEmpty(env.WF_CHROMIUM_PATH);
  // Last: Playwright's own Chromium, where `wf install-browser` puts it when it can download it.
  const chromiumCandidates = explicitChromium ? [explicitChromium] : [...CHROMIUM_CANDIDATES, ...[playwrightChromiumPath()].filter((p) => p !== undefined)];
  const chromiumPath = browserEndpoint ? undefined : chromiumCandidates.find((p) => existsSync(p));

  return {
    host: options.host ?? nonEmpty(env.WF_HOST) ?? "127.0.0.1",
    port: options.port ?? envNumber(env, "WF_PORT") ?? 8787,
    apiKeys,
    apiKeyGenerated,
    dataDir: resolvePath(options.dataDir ?? nonEmpty(env.WF_DATA_DIR) ?? ".wf"),
    chromiumPath,
    chromiumCandidates,
    browserEndpoint,
    maxSessions: options.maxSessions ?? envNumber(env, "WF_MAX_SESSIONS") ?? 8,
    idleTimeoutMs: options.idleTimeoutMs ?? envNumber(env, "WF_IDLE_TIMEOUT_MS") ?? 300_000,
    stepTimeoutMs: options.stepTimeoutMs ?? envNumber(env, "WF_STEP_TIMEOUT_MS") ?? 30_000,
    bodyLimitBytes: options.bodyLimitBytes ?? envNumber(env, "WF_BODY_LIMIT_BYTES") ?? 1024 * 1024,
    publicUrl: (options.publicUrl ?? nonEmpty(env.WF_PUBLIC_URL))?.replace(/\/+$/, ""),
    logger: options.logger ?? false,
    workflowsDir: options.workflowsDir ?? nonEmpty(env.WF_WORKFLOWS_DIR),
    importModule: options.importModule,
    proxyUrl: options.proxyUrl ?? nonEmpty(env.WF_PROXY_URL),
    allowFileUrls: options.allowFileUrls ?? envFlag(env, "WF_ALLOW_FILE_URLS") ?? false,
    uploadRoot: resolvePath(options.uploadRoot ?? nonEmpty(env.WF_UPLOAD_ROOT) ?? "."),
    interpreter: options.interpreter,
    journalSync: options.journalSync ?? true,
  };
}

/** `1`/`true`/`yes` → true, `0`/`false`/`no` → false, unset → undefined. */
function envFlag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = nonEmpty(env[name])?.toLowerCase();
  if (value === undefined) return undefined;
  if (["1", "true", "yes"].includes(value)) return true;
  if (["0", "false", "no"].includes(value)) return false;
  throw new Error(`${name} must be 1/true/yes or 0/false/no, got ${JSON.stringify(env[name])}.`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw} is not a non-negative number. Set it to a number or unset it.`);
  return value;
}
