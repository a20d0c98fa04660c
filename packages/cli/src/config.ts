/**
 * Configuration of the `wf` command: `wf.config.ts` (loaded with c12), the environment (and a
 * `.env` file in the working directory), and flags. Precedence, written once in
 * {@link resolveCliConfig}: flag, then environment variable, then config file, then default
 * (Playwright's order, so CI can override a committed `wf.config.ts` without editing it).
 */
import { z } from "zod";
import { importTs } from "./_import.js";
import { CliUsageError } from "./errors.js";
import { LOCK_MODES, nonBlank, parseWfEnv, TRACE_MODES, WfEnvError, type WfEnv, type WfEnvName } from "@wf/server/env";

import type { ScreenshotMode, SessionContextOptions } from "@wf/core/protocol";
import { DEBUG_SLOW_MO_MS, REPORTERS, SCREENSHOT_MODES, type ReporterName } from "./names.js";
import { ProjectSchema, resolveProjects, UseSchema, useKeyHint, type ProjectConfig, type ResolvedProject, type UseOptions } from "./projects.js";

export type { ProjectConfig, ResolvedProject, UseOptions };

export { REPORTERS, type ReporterName };

/** The action-lock modes of `wf run` (see docs/cli/lock.md). */
export const LOCK_MODE_NAMES = LOCK_MODES;
export type LockModeName = (typeof LOCK_MODE_NAMES)[number];
/**
 * When `wf run` records a Playwright trace of a workflow's session, in Playwright's words: `on`
 * (every attempt), `off`, `retain-on-failure` (every attempt, kept only when it failed),
 * `on-first-retry` (only the first retry's attempt).
 */
export { TRACE_MODES };
export type TraceMode = (typeof TRACE_MODES)[number];

/** Options of a reporter. */
export interface ReporterOptions {
  /** Write the report to this file (relative to the working directory) instead of stdout. */
  outputFile?: string;
}
/** One reporter and its options, as `reporter: [["list"], ["junit", { outputFile: "junit.xml" }]]` writes it. */
export interface ReporterSpec {
  name: ReporterName;
  outputFile?: string | undefined;
}

/** What `wf.config.ts` may set. Every field is optional. */
export interface WfConfig {
  /**
   * The wf service to run steps on, e.g. `"http://127.0.0.1:8787"`. Env `WF_SERVICE_URL`, flag
   * `--service-url`. Unset: an embedded `@wf/server` is started. Not the app's address: that is `use.baseURL`.
   */
  serviceUrl?: string;
  /** @deprecated The old name of {@link WfConfig.serviceUrl} (the wf service, not the app: that is `use.baseURL`); still read, with a notice. */
  baseUrl?: string;
  /**
   * How each workflow's browser context is made, Playwright's `use`: the app's `baseURL` (`go to
   * /login` opens `<baseURL>/login`), `viewport`, `locale`, `timezoneId`, `colorScheme`,
   * `userAgent`, or a device (`...devices["Pixel 7"]`). Each project's `use` is laid over it.
   * `--app-url` / `WF_APP_URL` beat every `baseURL`.
   */
  use?: UseOptions;
  /**
   * Projects, as Playwright's: every selected workflow runs once per project, with the project's
   * `use` over the top-level one; reports name the project (`[mobile] › flows/cart.ts › cart`).
   * `--project <name>` (repeatable) runs some. @default none: each workflow runs once, with `use`
   */
  projects?: ProjectConfig[];
  /** Checks (`check()`, `check.soft()`). */
  check?: {
    /** How long a check that sets no `timeoutMs` retries, in ms (Playwright's `expect: { timeout }`). 0 to 570,000. @default 5_000 */
    timeoutMs?: number;
  };
  /** The service's API key (sent as the `api-key` header). Prefer `WF_API_KEY` in `.env` to committing it. */
  apiKey?: string;
  /**
   * Reporter(s) of `wf run`: a name, or Playwright's list of `[name, options?]` pairs.
   * @default "pretty" for one workflow, "list" for several
   */
  reporter?: ReporterName | ReadonlyArray<readonly [ReporterName] | readonly [ReporterName, ReporterOptions]>;
  /** Folder `wf run` without files runs: every `.ts` file under it that default-exports a workflow. @default "workflows" */
  testDir?: string;
  /** Workflows run at once by `wf run` on several files. @default half the CPU cores, at least 1 */
  workers?: number;
  /** Runs again a failed workflow up to this many times; one that passes on a retry is "flaky". @default 0 */
  retries?: number;
  /** Stop starting workflows after this many failed. @default 0 (no limit) */
  maxFailures?: number;
  /** Run each workflow this many times, each run reported on its own (Playwright's `repeatEach`). Env `WF_REPEAT_EACH`. @default 1 */
  repeatEach?: number;
  /**
   * Show the embedded server's browser window (Chromium not headless). Needs a display (`DISPLAY`
   * or `WAYLAND_DISPLAY` on Linux). No effect with a base URL: that service's browser is its own.
   * Env `WF_HEADED` (`1`/`true`). @default false
   */
  headed?: boolean;
  /** Slow each browser operation of the embedded server down by this many ms (Playwright's `slowMo`). Env `WF_SLOW_MO_MS`. @default 0 */
  slowMoMs?: number;
  /** Abort a whole run after this many ms. @default no limit */
  timeoutMs?: number;
  /** Per-request timeout of the service client, in ms. @default the runtime's */
  requestTimeoutMs?: number;
  /**
   * The model for free-form steps on the embedded server and `wf serve` (`gpt-4.1-mini`,
   * `qwen2.5:7b`); the provider comes from `OPENAI_API_KEY` and `OPENAI_BASE_URL`. Env `WF_MODEL`.
   * @default none: only the grammar runs
   */
  model?: string;
  /**
   * How `wf run` uses the action lock beside each workflow (`<name>.wf.lock.json`): `frozen`
   * (replay; an ACT with no entry that needs the model fails `WF_LOCK_MISSING`), `read` (replay;
   * an ACT with no entry may use the model, and says so), `write` (record), `heal` (replay, and let
   * the model repair what no longer replays), `off`. The `--lock` flag wins; on CI (`CI=true`) the
   * default is `frozen` whatever this says.
   * @default "heal" when a model is configured, else "read"
   */
  lock?: LockModeName;
  /**
   * The most model calls one workflow run may make (ACT and ASK alike, counted from each step's
   * `usage.calls`): the run fails `WF_MODEL_BUDGET_EXCEEDED` once it would make one more; 0: no
   * model call at all. Env `WF_MAX_MODEL_CALLS`; flag `--max-model-calls`. @default no limit
   */
  maxModelCalls?: number;
  /**
   * Playwright traces of the workflows' sessions, downloaded into the report
   * (`<reportDir>/<workflow>/trace.zip`, open with `wf show-trace`). Env `WF_TRACE`.
   * @default "retain-on-failure"
   */
  trace?: TraceMode;
  /**
   * Which steps get a screenshot after them (Playwright Test's `screenshot` values): `on` every
   * step, `only-on-failure` the failed ones, `off` none. Fewer pictures make steps faster; the
   * report then shows the pictures there are. Env `WF_SCREENSHOT`.
   * @default "only-on-failure" (as Playwright Test)
   */
  screenshot?: ScreenshotMode;
  /**
   * Folder of the HTML report `wf run` writes on every run (screenshots and traces beside it),
   * emptied at the start of a run; `wf show-report` serves it. Env `WF_REPORT_DIR`.
   * @default "wf-report"
   */
  reportDir?: string;
  /**
   * Params read from environment variables, by param name: `{ password: "SHOP_PASSWORD" }` gives
   * the param `password` the value of `$SHOP_PASSWORD`, converted by the param's zod type as
   * `--param` values are. Keeps secrets off the command line (`ps`, shell history) and out of
   * files. `--param-env` adds to it; `--param` beats both. A variable that is not set fails the run
   * with `WF_CLI_PARAM_ENV_MISSING` naming it.
   */
  paramsFromEnv?: Record<string, string>;
  /** Options of `wf serve` and of the embedded server. */
  server?: {
    /** @default "127.0.0.1" */
    host?: string;
    /** @default the server's (`wf serve`); a random port for the embedded server */
    port?: number;
    /** Folder of stored workflow files to load (`wf serve --workflows`). */
    workflowsDir?: string;
    /** Where run records are kept. @default the server's */
    dataDir?: string;
  };
}

/**
 * Defines the `wf.config.ts` configuration: a typed identity function.
 *
 * @example
 * // wf.config.ts
 * import { defineConfig } from "@wf/cli";
 * export default defineConfig({ use: { baseURL: "http://localhost:3000" }, reporter: "list" });
 */
export function defineConfig(config: WfConfig): WfConfig {
  return config;
}

const ConfigSchema = z
  .object({
    serviceUrl: z.url({ protocol: /^https?$/ }).optional(),
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    use: UseSchema.optional(),
    projects: z.array(ProjectSchema).optional(),
    check: z.object({ timeoutMs: z.number().int().min(0).max(570_000).optional() }).strict().optional(),
    apiKey: z.string().min(1).optional(),
    reporter: z
      .union([z.enum(REPORTERS), z.array(z.union([z.tuple([z.enum(REPORTERS)]), z.tuple([z.enum(REPORTERS), z.object({ outputFile: z.string().min(1).optional() }).strict()])])).min(1)])
      .optional(),
    testDir: z.string().min(1).optional(),
    workers: z.number().int().positive().optional(),
    retries: z.number().int().min(0).optional(),
    maxFailures: z.number().int().min(0).optional(),
    repeatEach: z.number().int().positive().optional(),
    headed: z.boolean().optional(),
    slowMoMs: z.number().int().min(0).optional(),
    timeoutMs: z.number().int().positive().optional(),
    requestTimeoutMs: z.number().int().positive().optional(),
    model: z.string().min(1).optional(),
    lock: z.enum(LOCK_MODE_NAMES).optional(),
    maxModelCalls: z.number().int().min(0).optional(),
    trace: z.enum(TRACE_MODES).optional(),
    screenshot: z.enum(SCREENSHOT_MODES).optional(),
    reportDir: z.string().min(1).optional(),
    paramsFromEnv: z.record(z.string().min(1), z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")).optional(),
    server: z
      .object({
        host: z.string().min(1).optional(),
        port: z.number().int().min(0).max(65535).optional(),
        workflowsDir: z.string().min(1).optional(),
        dataDir: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Flags that override configuration; `undefined` means "not given". */
export interface CliFlags {
  /** `--service-url`: the wf service. */
  serviceUrl?: string | undefined;
  /** @deprecated `--base-url`, the old name of `--service-url` (read, with a notice). */
  baseUrl?: string | undefined;
  /** `--app-url`: the app's base URL, over every `use.baseURL`. */
  appUrl?: string | undefined;
  /** `--project`: the projects to run (names of `projects` in wf.config.ts); none: all. */
  projects?: ReadonlyArray<string> | undefined;
  /** `--debug`: headed, slowed down, one worker, no run timeout, a pause before each step. */
  debug?: boolean | undefined;
  apiKey?: string | undefined;
  /** One name or several separated by commas (`list,junit`). */
  reporter?: string | undefined;
  timeoutMs?: number | undefined;
  workers?: number | undefined;
  retries?: number | undefined;
  maxFailures?: number | undefined;
  repeatEach?: number | undefined;
  headed?: boolean | undefined;
  slowMoMs?: number | undefined;
  model?: string | undefined;
  lock?: string | undefined;
  maxModelCalls?: number | undefined;
  trace?: string | undefined;
  screenshot?: string | undefined;
  reportDir?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  workflowsDir?: string | undefined;
  dataDir?: string | undefined;
}

/** Options of {@link resolveCliConfig}. */
export interface ResolveCliConfigOptions {
  /** Folder the config file and `.env` are looked up in. @default process.cwd() */
  cwd?: string;
  /** The environment. @default process.env */
  env?: Record<string, string | undefined>;
  /** Flags from the command line. */
  flags?: CliFlags;
  /** Read `wf.config.ts` (and `.ts/.mjs/.js/.json` variants) from `cwd`. @default true */
  configFile?: boolean;
  /** Read `.env` from `cwd`; its values lose to variables already in `env`. @default true */
  dotenv?: boolean;
}

/** Every setting of the CLI, resolved. `undefined` fields mean "the runtime's or server's default". */
export interface ResolvedCliConfig {
  /** Absolute path of the config file read, if any. */
  configFile: string | undefined;
  /** The wf service's URL (`--service-url`, `WF_SERVICE_URL`, `serviceUrl`); `undefined` means start the embedded server. */
  serviceUrl: string | undefined;
  /** The context options of every session (`use`, with `--app-url`/`WF_APP_URL` as its `baseURL`); a project's replace them. */
  use: SessionContextOptions;
  /** The projects to run (those `--project` picked, else all); empty when wf.config.ts has none. */
  projects: ResolvedProject[];
  /** How long a check that sets no `timeoutMs` retries (`check.timeoutMs`); `undefined`: the default (5 s). */
  checkTimeoutMs: number | undefined;
  /** `--debug` (or Playwright's `PWDEBUG`): a pause before each step; headed, slowed down, one worker, no run timeout. */
  debug: boolean;
  /** One-line notices for stderr: deprecated names read, settings that cannot apply. */
  notices: string[];
  apiKey: string | undefined;
  /** The first of {@link reporters}: what a single-workflow run uses. */
  reporter: ReporterName;
  /** Every reporter asked for, in order. */
  reporters: ReporterSpec[];
  /** False when no flag, variable or file chose a reporter (the default then depends on the number of workflows). */
  reporterChosen: boolean;
  /** Folder of workflows, absolute. */
  testDir: string;
  workers: number;
  retries: number;
  /** 0: no limit. */
  maxFailures: number;
  /** Runs of each workflow, 1 or more. */
  repeatEach: number;
  /** Show the embedded server's browser window. */
  headed: boolean;
  /** Delay of each browser operation of the embedded server, in ms; 0: none. */
  slowMoMs: number;
  timeoutMs: number | undefined;
  requestTimeoutMs: number | undefined;
  /** The model for free-form steps; `undefined`: none (the grammar alone). */
  model: string | undefined;
  /**
   * How `wf run` uses the action lock: the `--lock` flag; else `frozen` on CI (`CI=true`); else
   * `lock` of wf.config.ts; else `heal` with a model, `read` without.
   */
  lock: LockModeName;
  /** The most model calls of one workflow run (`--max-model-calls`, `WF_MAX_MODEL_CALLS`, `maxModelCalls`); undefined: no limit. */
  maxModelCalls: number | undefined;
  /** When runs record a Playwright trace (`--trace`, `WF_TRACE`, `trace`). */
  trace: TraceMode;
  /** Which steps get a screenshot (`--screenshot`, `WF_SCREENSHOT`, `screenshot`). */
  screenshot: ScreenshotMode;
  /** Folder of the HTML report, absolute (`--report-dir`, `WF_REPORT_DIR`, `reportDir`). */
  reportDir: string;
  /** Params read from environment variables, by param name (`paramsFromEnv` of wf.config.ts). */
  paramsFromEnv: Record<string, string>;
  server: { host: string; port: number | undefined; workflowsDir: string | undefined; dataDir: string | undefined };
  /** The environment after `.env` was merged in (process variables win). */
  env: Record<string, string | undefined>;
}

/**
 * Loads `wf.config.ts` and `.env` and resolves every setting: flag, then environment variable
 * (`WF_SERVICE_URL`, `WF_APP_URL`, `WF_API_KEY`, `WF_REPORTER`, `WF_TIMEOUT_MS`, `WF_REQUEST_TIMEOUT_MS`,
 * `WF_MODEL`, `WF_MAX_MODEL_CALLS`, `WF_TEST_DIR`, `WF_WORKERS`, `WF_RETRIES`, `WF_MAX_FAILURES`, `WF_REPEAT_EACH`,
 * `WF_HEADED`, `WF_SLOW_MO_MS`, `WF_TRACE`, `WF_SCREENSHOT`, `WF_REPORT_DIR`, `WF_HOST`, `WF_PORT`,
 * `WF_WORKFLOWS_DIR`, `WF_DATA_DIR`; process variables beat `.env`), then config file, then default.
 *
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` when the config file does not load or has a
 *   wrong field, or a flag or variable has a wrong value (e.g. `WF_PORT=abc`), or `--project`
 *   names no project.
 */
export async function resolveCliConfig(options: ResolveCliConfigOptions = {}): Promise<ResolvedCliConfig> {
  const cwd = options.cwd ?? process.cwd();
  const flags = options.flags ?? {};
  let env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  let file: WfConfig = {};
  let configFile: string | undefined;

  // c12 takes a few hundred ms to import: only when there is a file for it to read.
  const wantConfig = options.configFile !== false && (await anyExists(cwd, CONFIG_FILES));
  const wantDotenv = options.dotenv !== false && (await anyExists(cwd, [".env"]));
  if (wantConfig || wantDotenv) {
    const { loadConfig, loadDotenv } = await import("c12");
    if (wantDotenv) {
      const fromFile = await loadDotenv({ cwd, fileName: ".env", env: {} }).catch((error: unknown) => {
        throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Could not read ${cwd}/.env: ${(error as Error).message}. Fix or remove the file.`, { cause: error });
      });
      env = { ...pickStrings(fromFile), ...env };
    }
    if (wantConfig) {
      let loaded: { config?: unknown; configFile?: string | undefined };
      try {
        loaded = await loadConfig({
          name: "wf",
          cwd,
          rcFile: false,
          globalRc: false,
          packageJson: false,
          dotenv: false,
          giget: false,
          envName: false,
          extend: false,
          // c12's default loader (jiti) transpiles the config's whole import graph with Babel, which
          // takes seconds once it imports @wf/cli; tsx (esbuild) loads the same file at once.
          jiti: tsxLoader() as never,
        });
      } catch (error) {
        throw new CliUsageError(
          "WF_CLI_CONFIG_INVALID",
          `Could not load wf.config in ${cwd}: ${(error as Error).message}. Fix the file (it should \`export default defineConfig({...})\`) or remove it.`,
          { cause: error },
        );
      }
      const raw = loaded.config ?? {};
      if (loaded.configFile && (await exists(loaded.configFile))) configFile = loaded.configFile;
      const parsed = ConfigSchema.safeParse(raw);
      if (!parsed.success) {
        const where = configFile ?? `${cwd}/wf.config.ts`;
        throw new CliUsageError(
          "WF_CLI_CONFIG_INVALID",
          `Invalid configuration in ${where}:\n${parsed.error.issues.map(configIssue).join("\n")}\nFix the file; see \`wf --help\` for the fields.`,
          { path: where },
        );
      }
      file = parsed.data as WfConfig;
    }
  }

  const vars = readCliEnv(env);
  const reporterText = nonBlank(flags.reporter) ?? vars.WF_REPORTER;
  const reporters: ReporterSpec[] =
    reporterText !== undefined
      ? parseReporterList(reporterText)
      : file.reporter === undefined
        ? [{ name: "pretty" }]
        : typeof file.reporter === "string"
          ? [{ name: file.reporter }]
          : file.reporter.map(([name, opts]) => ({ name, ...(opts && "outputFile" in opts && opts.outputFile ? { outputFile: opts.outputFile } : {}) }));
  const notices: string[] = [];
  const serviceUrl = resolveServiceUrl(flags, vars, file, notices);
  const { use, projects } = resolveProjects(file, nonBlank(flags.appUrl) ?? vars.WF_APP_URL, flags.projects ?? [], notices);
  // Playwright's PWDEBUG=1 (bin.ts keeps it from playwright-core, whose own inspector would pause every browser call).
  const debug = flags.debug ?? (nonBlank(env.PWDEBUG) !== undefined && !["0", "false"].includes(env.PWDEBUG!.trim().toLowerCase()));
  const model = nonBlank(flags.model) ?? vars.WF_MODEL ?? file.model;
  // The lock: the flag, then frozen on CI (no model call for a locked step, like `npm ci`), then the file, then heal with a model.
  const lock = nonBlank(flags.lock) ?? (isCi(env) ? "frozen" : undefined) ?? file.lock ?? (model ? "heal" : "read");
  if (!(LOCK_MODE_NAMES as readonly string[]).includes(lock)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown lock mode "${lock}". Use one of: ${LOCK_MODE_NAMES.join(", ")}.`);
  }
  const maxModelCalls = flags.maxModelCalls ?? vars.WF_MAX_MODEL_CALLS ?? file.maxModelCalls;
  if (maxModelCalls !== undefined && (!Number.isInteger(maxModelCalls) || maxModelCalls < 0)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `The model budget must be a whole number of calls, 0 or more, got ${maxModelCalls}.`);
  }
  const trace = nonBlank(flags.trace) ?? vars.WF_TRACE ?? file.trace ?? "retain-on-failure";
  if (!(TRACE_MODES as readonly string[]).includes(trace)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown trace mode "${trace}". Use one of: ${TRACE_MODES.join(", ")}.`);
  }
  const screenshot = nonBlank(flags.screenshot) ?? vars.WF_SCREENSHOT ?? file.screenshot ?? "only-on-failure";
  if (!(SCREENSHOT_MODES as readonly string[]).includes(screenshot)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown screenshot mode "${screenshot}". Use one of: ${SCREENSHOT_MODES.join(", ")}.`);
  }
  const { availableParallelism } = await import("node:os");
  const { resolve } = await import("node:path");
  // --debug runs one workflow at a time, as Playwright's does.
  const workers = debug ? 1 : (flags.workers ?? vars.WF_WORKERS ?? file.workers ?? Math.max(1, Math.floor(availableParallelism() / 2)));
  if (workers < 1) throw new CliUsageError("WF_CLI_CONFIG_INVALID", `workers must be 1 or more, got ${workers}.`);
  const repeatEach = flags.repeatEach ?? vars.WF_REPEAT_EACH ?? file.repeatEach ?? 1;
  if (repeatEach < 1) throw new CliUsageError("WF_CLI_CONFIG_INVALID", `repeatEach must be 1 or more, got ${repeatEach}.`);
  return {
    configFile,
    serviceUrl: serviceUrl?.replace(/\/+$/, ""),
    use,
    projects,
    checkTimeoutMs: file.check?.timeoutMs,
    debug,
    notices,
    apiKey: nonBlank(flags.apiKey) ?? vars.WF_API_KEY ?? file.apiKey,
    reporter: reporters[0]!.name,
    reporters,
    reporterChosen: reporterText !== undefined || file.reporter !== undefined,
    testDir: resolve(cwd, vars.WF_TEST_DIR ?? file.testDir ?? "workflows"),
    workers,
    retries: debug ? 0 : (flags.retries ?? vars.WF_RETRIES ?? file.retries ?? 0),
    maxFailures: flags.maxFailures ?? vars.WF_MAX_FAILURES ?? file.maxFailures ?? 0,
    repeatEach,
    // --debug: headed (unless --no-headed) and slowed down (DEBUG_SLOW_MO_MS unless a delay is set), no run timeout.
    headed: flags.headed ?? (debug || (vars.WF_HEADED ?? file.headed ?? false)),
    slowMoMs: flags.slowMoMs ?? vars.WF_SLOW_MO_MS ?? file.slowMoMs ?? (debug ? DEBUG_SLOW_MO_MS : 0),
    timeoutMs: debug ? undefined : (flags.timeoutMs ?? vars.WF_TIMEOUT_MS ?? file.timeoutMs),
    requestTimeoutMs: vars.WF_REQUEST_TIMEOUT_MS ?? file.requestTimeoutMs,
    model,
    lock: lock as LockModeName,
    maxModelCalls,
    trace: trace as TraceMode,
    screenshot: screenshot as ScreenshotMode,
    reportDir: resolve(cwd, nonBlank(flags.reportDir) ?? vars.WF_REPORT_DIR ?? file.reportDir ?? "wf-report"),
    paramsFromEnv: { ...file.paramsFromEnv },
    server: {
      host: nonBlank(flags.host) ?? vars.WF_HOST ?? file.server?.host ?? "127.0.0.1",
      port: flags.port ?? vars.WF_PORT ?? file.server?.port,
      workflowsDir: nonBlank(flags.workflowsDir) ?? vars.WF_WORKFLOWS_DIR ?? file.server?.workflowsDir,
      dataDir: nonBlank(flags.dataDir) ?? vars.WF_DATA_DIR ?? file.server?.dataDir,
    },
    env,
  };
}

/**
 * The wf service's URL: `--service-url`, `WF_SERVICE_URL`, `serviceUrl`; the old names
 * (`--base-url`, `WF_BASE_URL`, `baseUrl`) are read where the new one is not set, each with a
 * one-line notice.
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` for a URL that is not http(s).
 */
function resolveServiceUrl(flags: CliFlags, vars: Pick<WfEnv, "WF_SERVICE_URL" | "WF_BASE_URL">, file: WfConfig, notices: string[]): string | undefined {
  const old = (name: string, value: string | undefined, instead: string): string | undefined => {
    if (value !== undefined) notices.push(`${name} is deprecated: it names the wf service, now ${instead} (the app's address is use.baseURL / --app-url / WF_APP_URL).`);
    return value;
  };
  const url =
    nonBlank(flags.serviceUrl) ??
    old("--base-url", nonBlank(flags.baseUrl), "--service-url") ??
    vars.WF_SERVICE_URL ??
    old("WF_BASE_URL", vars.WF_BASE_URL, "WF_SERVICE_URL") ??
    file.serviceUrl ??
    old("baseUrl in wf.config.ts", file.baseUrl, "serviceUrl");
  if (url !== undefined && !/^https?:\/\/[^/\s]+/.test(url)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Service URL "${url}" is not an http(s) URL. Pass one like --service-url http://127.0.0.1:8787, or leave it unset to use the embedded server.`);
  }
  return url;
}

/** One line of a config error: the field, what is wrong, and where wf keeps a Playwright `use` option it does not take there. */
function configIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.join(".") || "(root)";
  if (issue.code === "unrecognized_keys" && /(^|\.)use$/.test(where)) {
    const hints = issue.keys.map((key) => useKeyHint(key)).filter((h): h is string => h !== undefined);
    if (hints.length > 0) return `  - ${where}: ${issue.message}: ${hints.join("; ")}.`;
  }
  return `  - ${where}: ${issue.message}`;
}

/** The one method c12 uses of its jiti instance, backed by tsx (see `_import.ts`). */
function tsxLoader(): { import(file: string, options?: { default?: boolean }): Promise<unknown> } {
  return {
    async import(file, options) {
      const mod = (await importTs(file)) as { default?: unknown };
      let value: unknown = options?.default ? (mod.default ?? mod) : mod;
      // A file compiled as CommonJS puts the ESM default one level down.
      if (options?.default && value && typeof value === "object" && "default" in value && Object.keys(value).length === 1) value = (value as { default: unknown }).default;
      return value;
    },
  };
}

/** True on CI: `CI` set to anything but empty, `0` or `false` (as most CI services and tools read it). */
function isCi(env: Record<string, string | undefined>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/**
 * Parses `--reporter list,junit` (or `WF_REPORTER`): names separated by commas.
 *
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` for an unknown name.
 */
export function parseReporterList(text: string): ReporterSpec[] {
  const names = text.split(",").map((n) => n.trim()).filter(Boolean);
  for (const name of names) {
    if (!(REPORTERS as readonly string[]).includes(name)) {
      throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown reporter "${name}". Use one of: ${REPORTERS.join(", ")} (several separated by commas, like list,junit).`);
    }
  }
  if (names.length === 0) throw new CliUsageError("WF_CLI_CONFIG_INVALID", `No reporter named in "${text}". Use one of: ${REPORTERS.join(", ")}.`);
  return names.map((name) => ({ name: name as ReporterName }));
}

/** The variables {@link resolveCliConfig} reads (see `@wf/server/env`). */
const CLI_ENV = [
  "WF_REPORTER", "WF_SERVICE_URL", "WF_BASE_URL", "WF_APP_URL", "WF_API_KEY", "WF_MODEL", "WF_MAX_MODEL_CALLS", "WF_TRACE", "WF_SCREENSHOT", "WF_WORKERS", "WF_REPEAT_EACH", "WF_TEST_DIR",
  "WF_RETRIES", "WF_MAX_FAILURES", "WF_HEADED", "WF_SLOW_MO_MS", "WF_TIMEOUT_MS", "WF_REQUEST_TIMEOUT_MS", "WF_REPORT_DIR", "WF_HOST", "WF_PORT",
  "WF_WORKFLOWS_DIR", "WF_DATA_DIR",
  // Read before the configuration, without zod (see @wf/server/env-flag); checked here so a malformed value fails like any other.
  "WF_TIMING", "WF_DEBUG",
] as const;

/** @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` listing every malformed variable (the shared parse's message). */
function readCliEnv(env: Record<string, string | undefined>): Pick<WfEnv, (typeof CLI_ENV)[number]> {
  return parseCliEnv(env, CLI_ENV);
}

/**
 * Reads the variables `names` of `env` through the one environment schema (`@wf/server/env`):
 * how every part of the CLI reads a `WF_*` variable.
 *
 * @returns each variable's value, `undefined` when unset or blank.
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` listing every malformed one, what it should
 *   be and what to do (the schema's message).
 */
export function parseCliEnv<const K extends WfEnvName>(env: Record<string, string | undefined>, names: readonly K[]): Pick<WfEnv, K> {
  try {
    return parseWfEnv(env, names);
  } catch (error) {
    if (error instanceof WfEnvError) throw new CliUsageError("WF_CLI_CONFIG_INVALID", error.message, { cause: error });
    throw error;
  }
}

function pickStrings(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === "string") out[key] = value;
  return out;
}

/** The config file names c12 looks for with `name: "wf"` (its supported extensions). */
const CONFIG_FILES = ["ts", "mts", "cts", "js", "mjs", "cjs", "json", "jsonc", "json5", "yaml", "yml", "toml"].map((ext) => `wf.config.${ext}`);

async function anyExists(dir: string, names: ReadonlyArray<string>): Promise<boolean> {
  const { join } = await import("node:path");
  for (const name of names) if (await exists(join(dir, name))) return true;
  return false;
}

async function exists(path: string): Promise<boolean> {
  const { access } = await import("node:fs/promises");
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Whether a model is configured for the project in `cwd`: `model` in wf.config.ts, else `WF_MODEL`
 * (from the environment or `.env`). What `wf plan` and `wf check` lint act wording against.
 */
export async function modelConfigured(context: { cwd: string; env: Record<string, string | undefined> }): Promise<boolean> {
  const config = await resolveCliConfig({ cwd: context.cwd, env: context.env });
  return config.model !== undefined;
}
