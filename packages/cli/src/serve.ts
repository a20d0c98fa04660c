/**
 * `serve()`: the programmatic `wf serve`. Starts `@wf/server` and keeps it until the signal aborts.
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { LOG_LEVELS, nonBlank, parseWfEnv, WfEnvError, type WfEnv } from "@wf/server/env";
import { resolveCliConfig } from "./config.js";
import { CliUsageError } from "./errors.js";
import type { OutputStream } from "./reporters.js";

/** Options of {@link serve}. Unset fields come from `wf.config.ts`, the environment, then the server's defaults. */
export interface ServeOptions {
  /** @default "127.0.0.1" */
  host?: string;
  /** @default the server's default port (`WF_PORT`); 0 picks a free one */
  port?: number;
  /** A folder of workflow files to serve as stored workflows. */
  workflowsDir?: string;
  /** Where session and run records are kept. @default the server's */
  dataDir?: string;
  /** The API key clients must send. @default `WF_API_KEY`, else the server's `WF_API_KEYS`, else a generated one (printed) */
  apiKey?: string;
  /** Let steps open `file:` URLs on this machine. @default the server's (`WF_ALLOW_FILE_URLS`, else false) */
  allowFileUrls?: boolean;
  /** The model for free-form steps. @default `model` of wf.config.ts, else `WF_MODEL`, else none */
  model?: string;
  /** Let stored runs write the action lock beside each workflow file (`heal`; else `read`). @default the server's (`WF_WRITE_LOCKS`, else false) */
  writeLocks?: boolean;
  /** @default process.cwd() */
  cwd?: string;
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** Read `wf.config.ts` and `.env`. @default true */
  loadConfigFile?: boolean;
  /** Where the URL and key are printed. @default process.stdout */
  stdout?: OutputStream;
  /**
   * Log level of the server's log (pino JSON lines: requests, and every 5xx with its stack):
   * `fatal`, `error`, `warn`, `info`, `debug`, `trace`, or `silent` for none.
   * @default `WF_LOG_LEVEL`, else "info"
   */
  logLevel?: string;
  /** Where the server's log goes. @default process.stderr */
  logStream?: OutputStream;
  /** The server stops when this aborts (Ctrl-C in `wf serve`). Without one, {@link serve} resolves once the server is up. */
  signal?: AbortSignal;
}

/** A running server started by {@link serve}. */
export interface ServeHandle {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * Starts the wf service and prints its URL and API key. With the embedded database, its
 * WebAssembly is compiled by V8's baseline compiler only (`pgliteWasmTier: "baseline"` of
 * `@wf/server`: a smaller, quicker-starting service), a V8 flag that holds for the whole process.
 *
 * @returns the running server; with `signal`, only after the signal aborted and the server closed.
 * @throws {@link CliUsageError} `WF_CLI_SERVER_FAILED` when the server cannot start (port taken,
 *   no Chromium, a damaged data folder: the message says which and what to do), `WF_CLI_CONFIG_INVALID`
 *   for bad configuration.
 */
export async function serve(options: ServeOptions = {}): Promise<ServeHandle> {
  const cwd = options.cwd ?? process.cwd();
  const stdout = options.stdout ?? process.stdout;
  const config = await resolveCliConfig({
    cwd,
    env: options.env ?? process.env,
    configFile: options.loadConfigFile ?? true,
    dotenv: options.loadConfigFile ?? true,
    flags: { host: options.host, port: options.port, workflowsDir: options.workflowsDir, dataDir: options.dataDir, apiKey: options.apiKey, model: options.model },
  });
  // The embedded database's WebAssembly compiles (off the main thread) while the server's modules load.
  (await import("@wf/server/store-ahead")).prepareStore(config.env.WF_DATABASE_URL, "baseline");
  const { startServer } = await import("@wf/server");
  let vars: Pick<WfEnv, "WF_LOG_LEVEL" | "WF_API_KEYS">;
  try {
    vars = parseWfEnv(config.env, ["WF_LOG_LEVEL", "WF_API_KEYS"]);
  } catch (error) {
    if (error instanceof WfEnvError) throw new CliUsageError("WF_CLI_CONFIG_INVALID", error.message, { cause: error });
    throw error;
  }
  const level = (nonBlank(options.logLevel) ?? vars.WF_LOG_LEVEL ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `The log level "${level}" is not one of ${LOG_LEVELS.join(", ")}.`);
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      host: config.server.host,
      ...(config.server.port !== undefined ? { port: config.server.port } : {}),
      // Unset: the server's own WF_API_KEYS, else a key made here (printed below, once).
      ...(config.apiKey ? { apiKeys: [config.apiKey] } : vars.WF_API_KEYS?.length ? {} : { apiKeys: [`wf_${randomBytes(24).toString("base64url")}`] }),
      ...(config.server.dataDir ? { dataDir: resolve(cwd, config.server.dataDir) } : {}),
      ...(config.server.workflowsDir ? { workflowsDir: resolve(cwd, config.server.workflowsDir) } : {}),
      ...(options.allowFileUrls !== undefined ? { allowFileUrls: options.allowFileUrls } : {}),
      ...(options.writeLocks !== undefined ? { writeLocks: options.writeLocks } : {}),
      ...(config.model ? { model: config.model } : {}),
      logger: { level, stream: options.logStream ?? process.stderr },
      // The service's process: PGlite compiled baseline-only, ~70 MB less idle memory and a quicker
      // start for writes about half as fast (@wf/server's PgliteWasmTier; no effect on PostgreSQL).
      pgliteWasmTier: "baseline",
    }, config.env);
  } catch (error) {
    throw new CliUsageError("WF_CLI_SERVER_FAILED", `Could not start the wf server on ${config.server.host}:${config.server.port ?? "(default port)"}: ${(error as Error).message}${startHint(error)}`, {
      cause: error,
    });
  }
  const apiKey = server.apiKey;
  const model = server.context.options.model;
  const steps = model ? `steps: the grammar, then the model ${model.name} at ${model.baseUrl ?? "OpenAI"} (${model.responseFormat})` : "steps: the grammar only (no model configured: set WF_MODEL or --model)";
  stdout.write(`wf server listening on ${server.url}\napi key: ${apiKey}\n${steps}\n  WF_SERVICE_URL=${server.url} WF_API_KEY=${apiKey} wf run <file>\nPress Ctrl-C to stop.\n`);
  const handle: ServeHandle = { url: server.url, apiKey, close: () => server.close() };
  if (options.signal) {
    const signal = options.signal;
    await new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener("abort", () => done(), { once: true })));
    await server.close();
  }
  return handle;
}

/**
 * What to do about a start that failed, by its cause: the port for a listen error, nothing more
 * where the error already says it (a damaged store, no Chromium), a generic line otherwise.
 */
function startHint(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") return "\nPick another --port (or --host), or stop what listens there.";
  if (code === "WF_STORE_DAMAGED" || code === "WF_BROWSER_NOT_FOUND") return "";
  return "\nRun it again with WF_DEBUG=1 to see where it failed.";
}
