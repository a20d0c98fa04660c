/**
 * The environment variables of wf, declared once: every `WF_*` variable (and `OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`) that the server (`resolveServerOptions`) and the `wf` command
 * (`resolveCliConfig`, `wf serve`) read, as one zod object schema with a description per variable.
 *
 * Rules, the same for every variable: a value is trimmed; empty (or only spaces) means unset;
 * flags take what `z.stringbool()` takes (`1`/`true`/`yes`/`on`/`y`/`enabled` or
 * `0`/`false`/`no`/`off`/`n`/`disabled`, any case); numbers are decimal (`z.coerce.number()`);
 * modes are enums. The module imports only zod and `env-flag.ts` (the CLI reads it at start, before
 * loading the server: `@wf/server/env`), and never reads `process.env` itself: callers pass the environment.
 * Its zod-free part (blank values, the yes/no words, the flags read before any configuration:
 * `WF_TIMING`, `WF_DEBUG`) is `env-flag.ts`.
 *
 * The runtime (`@wf/runtime`) reads no variable: its service client takes its base URL and API key
 * from its caller (the CLI reads `WF_SERVICE_URL`, `WF_API_KEY` here); see docs/decisions/0031-environment-schema-zod-free-part.md.
 */
import { z } from "zod";
import type { ScreenshotMode } from "@wf/core/protocol";
import { FLAG_FALSE, FLAG_TRUE, nonBlank } from "./env-flag.js";

export { nonBlank };

/** When `wf run` records a Playwright trace (`--trace`, `WF_TRACE`), in Playwright's words. */
export const TRACE_MODES = ["on", "off", "retain-on-failure", "on-first-retry"] as const;
/** Which steps get a screenshot (`--screenshot`, `WF_SCREENSHOT`): the protocol's `ScreenshotMode`. */
export const ENV_SCREENSHOT_MODES = ["on", "only-on-failure", "off"] as const satisfies ReadonlyArray<ScreenshotMode>;
/** pino's levels, and `silent` for no log (`WF_LOG_LEVEL`). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** How ACTs use the action lock (`wf run --lock`, `lock` in wf.config.ts, `WF_LOCK` for `@wf/cli/vitest`); see docs/cli/lock.md. */
export const LOCK_MODES = ["frozen", "read", "write", "heal", "off"] as const;
/** How model answers are constrained (`WF_MODEL_RESPONSE_FORMAT`). */
export const RESPONSE_FORMATS = ["json_schema", "json_object"] as const;

/** What a variable's value must be, in words, for the error message ("is not …"). */
interface EnvMeta {
  description: string;
  expected: string;
  /** An example of a good value, for "set it to …". */
  example: string;
}

function blankToUndefined(value: unknown): unknown {
  return typeof value === "string" ? nonBlank(value) : value;
}

function withMeta<T extends z.ZodType>(inner: T, meta: EnvMeta) {
  return z.preprocess(blankToUndefined, inner.optional()).meta(meta as unknown as Record<string, unknown>);
}

function text(description: string, example = "a value") {
  return withMeta(z.string(), { description, expected: "a string", example });
}

function flag(description: string) {
  return withMeta(z.stringbool({ truthy: [...FLAG_TRUE], falsy: [...FLAG_FALSE], case: "insensitive" }), { description, expected: "a yes/no value", example: "1/true/yes or 0/false/no" });
}

/** A whole number, `min` or more, of `unit`s. */
function whole(description: string, unit: string, min = 0, example = min === 0 ? 0 : min) {
  return withMeta(z.coerce.number().int().min(min), { description, expected: `a whole number of ${unit}, ${min} or more`, example: `a number like ${example}` });
}

/** Any decimal number above (or at) `min`. */
function decimal(description: string, unit: string, min: number, exclusive: boolean) {
  const schema = exclusive ? z.coerce.number().gt(min) : z.coerce.number().min(min);
  const range = exclusive ? `above ${min}` : `${min} or more`;
  return withMeta(schema, { description, expected: `a number of ${unit} ${range}`, example: `a number like ${exclusive ? 30 : 0.5}` });
}

function oneOf<const T extends readonly [string, ...string[]]>(description: string, values: T, example: T[number] = values[0]) {
  const schema = z.preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(values));
  return withMeta(schema, { description, expected: `one of ${values.join(", ")}`, example });
}

/**
 * Every variable, by name: a function that builds its schema (built on first use, so a caller
 * pays only for the variables it reads: building them all costs a few ms at start). The server
 * README ("Options") and the CLI README ("Configuration") list the same variables.
 */
const FIELDS = {
  // Both the server and the CLI.
  WF_HOST: () => text("Interface the server listens on (`wf serve`, the embedded server). Default 127.0.0.1.", "127.0.0.1"),
  WF_PORT: () => withMeta(z.coerce.number().int().min(0).max(65_535), {
    description: "TCP port of the server; 0 picks a free one. Default 8787 (`wf serve`), a free one (embedded).",
    expected: "a port number, 0 to 65535",
    example: "a number like 8787",
  }),
  WF_DATA_DIR: () => text("Folder of the embedded database, screenshots and secret key. Default .wf.", ".wf"),
  WF_WORKFLOWS_DIR: () => text("Folder of stored workflows the server serves.", "workflows"),
  WF_HEADED: () => flag("Show the browser window (Chromium not headless); needs a display. Default false."),
  WF_SLOW_MO_MS: () => whole("Slow every browser operation down by this many ms (Playwright's slowMo). Default 0.", "milliseconds", 0, 250),
  WF_MODEL: () => text("The model for free-form steps (gpt-4.1-mini, qwen2.5:7b); unset, only the grammar runs.", "gpt-4.1-mini"),
  WF_MAX_MODEL_CALLS: () => whole("The most model calls one workflow run may make; 0: none. Default no limit.", "model calls"),
  WF_REQUEST_TIMEOUT_MS: () => whole(
    "Server: longest a client may take to send a whole request (0: off; default 30000). CLI: per-request timeout of the service client (default the runtime's).",
    "milliseconds",
    0,
    30000,
  ),
  WF_LOG_LEVEL: () => oneOf("Level of the server's log (pino JSON lines). Default off; info in `wf serve`.", LOG_LEVELS, "info"),
  WF_TIMING: () => flag("Write start-up milestones on stderr, one line each: `wf timing: <epoch ms> <label>` (ms since the Unix epoch). Read as `wf` and the server load, before the configuration (see env-flag.ts). Default false."),

  // The server.
  WF_API_KEYS: () => withMeta(z.string().transform((keys) => keys.split(",").map((k) => k.trim()).filter((k) => k.length > 0)), {
    description: "Accepted API keys, comma-separated. Unset: one key is generated and printed at start.",
    expected: "a comma-separated list of keys",
    example: "key-1,key-2",
  }),
  WF_DATABASE_URL: () => text("postgres://user:password@host:5432/db for PostgreSQL, memory: for none; unset: the embedded database.", "postgres://user:password@host:5432/wf"),
  WF_RETENTION_DAYS: () => decimal("Finished sessions older than this many days are deleted. Default: kept forever.", "days", 0, true),
  WF_CHROMIUM_PATH: () => text("Chromium executable to launch. Default: the first system Chromium or Chrome found.", "/usr/bin/chromium"),
  WF_BROWSER_ENDPOINT: () => text("CDP endpoint of a browser that runs elsewhere (connectOverCDP instead of launching).", "ws://127.0.0.1:9222"),
  WF_MAX_SESSIONS: () => whole("Sessions open at once; one more is a 429. Default 8.", "sessions", 0, 8),
  WF_IDLE_TIMEOUT_MS: () => whole("A step session with no step for this long is closed. Default 300000.", "milliseconds", 0, 300000),
  WF_STEP_TIMEOUT_MS: () => whole("Default step timeout. Default 30000.", "milliseconds", 0, 30000),
  WF_BODY_LIMIT_BYTES: () => whole("Largest request body; more is a 413. Default 1048576 (1 MiB).", "bytes", 0, 1048576),
  WF_MAX_DOWNLOAD_BYTES: () => whole("Largest file a step may download; a larger one is cancelled and its step fails WF_DOWNLOAD_TOO_LARGE. Default 52428800 (50 MiB).", "bytes", 0, 52428800),
  WF_METRICS: () => flag("Serve GET /metrics (Prometheus text format; the API key or WF_METRICS_TOKEN). Default true."),
  WF_METRICS_TOKEN: () => text("A token that opens GET /metrics only (Authorization: Bearer …), for a scraper that must not hold an API key.", "a long random string"),
  WF_CONNECTION_TIMEOUT_MS: () => whole("A connection silent this long is closed; 0: off. Default 75000.", "milliseconds", 0, 75000),
  WF_PUBLIC_URL: () => text("Base URL of the links the server hands out (debuggerUrl, viewUrl). Default http://<host>:<port>.", "https://wf.example.com"),
  WF_PROXY_URL: () => text("Proxy URL a stored run with `proxy: true` uses.", "http://proxy:3128"),
  WF_ALLOW_FILE_URLS: () => flag("Let steps open file: URLs. Default false."),
  WF_BLOCK_PRIVATE_NETWORKS: () => flag("Refuse every request of a session's browser to loopback, private and link-local addresses. Default false."),
  WF_WRITE_LOCKS: () => flag("Stored runs record and heal the action lock beside each workflow file. Default false."),
  WF_FROZEN_LOCKS: () => flag("Stored runs replay the action lock frozen (no model call for a missing entry). Default false."),
  WF_SETTLE_TIMEOUT_MS: () =>
    whole(
      "Longest wait for the page to settle (its own requests, then a quiet DOM) before a step reads it; long-lived requests are not waited for; reaching it is reported in the step. 0 reads at once. Default 3000.",
      "milliseconds",
      0,
      3000,
    ),
  WF_UPLOAD_ROOT: () => text("Folder `upload` steps resolve paths under. Default the working directory.", "uploads"),
  WF_MODEL_RESPONSE_FORMAT: () => oneOf("How model answers are constrained. Default json_schema.", RESPONSE_FORMATS),
  WF_MODEL_TEMPERATURE: () => decimal("Sampling temperature of the model. Default 0.", "temperature", 0, false),
  WF_MODEL_MAX_PROMPT_TOKENS: () => whole("Largest prompt of one model call, in estimated tokens; at least 1000. Default 12000.", "tokens", 0, 12000),
  WF_MODEL_TIMEOUT_MS: () => whole("Longest wait for one HTTP request to the model provider (the SDK retries a timed-out one); then WF_MODEL_TIMEOUT. Default 60000.", "milliseconds", 1, 60000),
  WF_CHECK_RESPONSES: () => flag("Check every JSON answer of the server against its route's protocol schema before sending it (500 WF_INTERNAL when it does not fit). For tests and development. Default false."),
  WF_REQUEST_HASH_SECRET: () => text("Secret key of the request digests idempotency compares. Default generated into <dataDir>/secret.key.", "a long random string"),
  WF_WARM_SESSIONS: () => flag("Keep one browser context opened ahead of the next session. Default true."),
  WF_INSTANCE_ID: () => text("Name of this server instance among those sharing a database. Default <host name>-<8 hex of dataDir>.", "wf-1"),
  WF_INTERNAL_URL: () => text("Base URL at which other instances reach this one. Default http://<host>:<port>.", "http://10.0.0.5:8787"),
  WF_INSTANCE_LEASE_MS: () => whole("Lease of the instance's registration, renewed every third of it; at least 1000. Default 30000.", "milliseconds", 0, 30000),
  OPENAI_API_KEY: () => text("API key of the model provider (the openai SDK's own variable).", "sk-…"),
  OPENAI_BASE_URL: () => text("Base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama). Default OpenAI's.", "http://127.0.0.1:11434/v1"),

  // The CLI.
  WF_SERVICE_URL: () => text("The wf service `wf run`, `wf trigger` and `wf workflows` use; unset: `wf run` starts an embedded server.", "http://127.0.0.1:8787"),
  WF_BASE_URL: () => text("Deprecated: the old name of WF_SERVICE_URL (read when it is unset, with a notice).", "http://127.0.0.1:8787"),
  WF_APP_URL: () => text("The app's base URL: `go to /login` opens <url>/login (Playwright's baseURL); beats use.baseURL of wf.config.ts and of every project.", "http://localhost:3000"),
  WF_API_KEY: () => text("The service's API key (`api-key` header).", "wf_…"),
  WF_REPORTER: () => text("Reporter(s) of `wf run`, comma-separated (list,junit).", "list"),
  WF_TEST_DIR: () => text("Folder `wf run` without files runs. Default workflows.", "workflows"),
  WF_WORKERS: () => whole("Workflows run at once. Default half the CPU cores.", "workers", 1),
  WF_RETRIES: () => whole("Runs a failed workflow again up to this many times. Default 0.", "retries"),
  WF_MAX_FAILURES: () => whole("Stop starting workflows after this many failed; 0: no limit. Default 0.", "failures"),
  WF_REPEAT_EACH: () => whole("Runs of each workflow. Default 1.", "runs", 1),
  WF_TIMEOUT_MS: () => whole("Abort a whole `wf run` after this many ms. Default no limit.", "milliseconds", 0, 600000),
  WF_TRACE: () => oneOf("When runs record a Playwright trace. Default retain-on-failure.", TRACE_MODES, "retain-on-failure"),
  WF_SCREENSHOT: () => oneOf("Which steps get a screenshot. Default only-on-failure.", ENV_SCREENSHOT_MODES, "only-on-failure"),
  WF_REPORT_DIR: () => text("Folder of the HTML report. Default wf-report.", "wf-report"),
  WF_JUNIT_OUTPUT_FILE: () => text("File the junit reporter writes when its outputFile is not set, relative to the working directory. Default wf-report/junit.xml.", "results/junit.xml"),
  WF_LOCK: () => oneOf("How the ACTs of a Vitest test (`@wf/cli/vitest`) use the action lock beside the test file; useWf({ lock }) wins. Default the config's lock (frozen on CI, heal with a model, else read).", LOCK_MODES, "write"),
  WF_DEBUG: () => flag("`wf` prints the stack of an unexpected error below its message. Default false."),
};

type Fields = typeof FIELDS;
/** The typed environment: every variable, `undefined` when unset or blank. */
export type WfEnv = { [K in keyof Fields]: z.output<ReturnType<Fields[K]>> };
/** A variable's name. */
export type WfEnvName = keyof Fields;
/** Every variable's name, in declaration order. */
export const WF_ENV_NAMES = Object.keys(FIELDS) as WfEnvName[];

const built = new Map<WfEnvName, z.ZodType>();
function field<K extends WfEnvName>(name: K): ReturnType<Fields[K]> {
  let schema = built.get(name);
  if (schema === undefined) {
    schema = FIELDS[name]();
    built.set(name, schema);
  }
  return schema as ReturnType<Fields[K]>;
}

/** The zod object schema of the variables `names` (every variable when omitted). */
export function wfEnvSchema<const K extends WfEnvName = WfEnvName>(names: readonly K[] = WF_ENV_NAMES as K[]): z.ZodObject<{ [P in K]: ReturnType<Fields[P]> }> {
  return z.object(Object.fromEntries(names.map((name) => [name, field(name)]))) as unknown as z.ZodObject<{ [P in K]: ReturnType<Fields[P]> }>;
}

/** One variable that did not parse. */
export interface WfEnvProblem {
  name: WfEnvName;
  /** The value as set (untrimmed). */
  value: string;
  /** What it should be, in words ("a whole number of milliseconds, 0 or more"). */
  expected: string;
  /** The line for the error message: what is wrong and what to do. */
  message: string;
}

/**
 * Thrown by {@link parseWfEnv}: every bad variable, one line each. Each side wraps it in its own
 * error (`WF_CONFIG_INVALID` in the server, `WF_CLI_CONFIG_INVALID` in the CLI).
 */
export class WfEnvError extends Error {
  readonly code = "WF_ENV_INVALID";
  constructor(readonly problems: WfEnvProblem[]) {
    super(
      problems.length === 1
        ? problems[0]!.message
        : `${problems.length} environment variables are wrong:\n${problems.map((p) => `  - ${p.message}`).join("\n")}`,
    );
    this.name = "WfEnvError";
  }
}

/** Description, expected value and example of a variable (what the READMEs list). */
export function describeWfEnv(name: WfEnvName): EnvMeta {
  return field(name).meta() as unknown as EnvMeta;
}

/**
 * Reads the variables `names` from `env`, typed.
 *
 * @param env - the environment (the caller's `process.env`, or a test's object).
 * @param names - the variables to read; others are ignored, even when malformed.
 * @returns each named variable's value, `undefined` when unset or blank.
 * @throws {@link WfEnvError} listing every named variable whose value is wrong, what it should be,
 *   and what to do.
 */
export function parseWfEnv<const K extends WfEnvName>(env: Record<string, string | undefined>, names: readonly K[]): Pick<WfEnv, K> {
  // Field by field, and only the variables set: building a zod schema costs ~0.25 ms a variable,
  // and an object schema's first parse compiles a parser; every `wf` start would pay both.
  const values: Record<string, unknown> = {};
  const problems: WfEnvProblem[] = [];
  for (const name of names) {
    if (nonBlank(env[name]) === undefined) {
      values[name] = undefined;
      continue;
    }
    const parsed = field(name).safeParse(env[name]);
    if (parsed.success) {
      values[name] = parsed.data;
      continue;
    }
    const { expected, example } = describeWfEnv(name);
    const value = env[name] ?? "";
    problems.push({ name, value, expected, message: `Environment variable ${name}=${JSON.stringify(value)} is not ${expected}. Set it to ${example}, or unset it.` });
  }
  if (problems.length === 0) return values as Pick<WfEnv, K>;
  throw new WfEnvError(problems);
}
