/**
 * Configuration of the `wf` command: `wf.config.ts` (loaded with c12), the environment (and a
 * `.env` file in the working directory), and flags. Precedence, written once in
 * {@link resolveCliConfig}: flag, then config file, then environment variable, then default.
 */
import { z } from "zod";
import { importTs } from "./_import.js";
import { CliUsageError } from "./errors.js";

/** Reporters of `wf run`. */
export const REPORTERS = ["pretty", "json", "ndjson"] as const;
/** A reporter name: `pretty` (people; plain lines off a terminal), `json` (the run record at the end), `ndjson` (one event per line). */
export type ReporterName = (typeof REPORTERS)[number];

/** What `wf.config.ts` may set. Every field is optional. */
export interface WfConfig {
  /** The service to run steps on, e.g. `"http://127.0.0.1:8787"`. Unset: an embedded `@wf/server` is started. */
  baseUrl?: string;
  /** The service's API key (sent as the `api-key` header). Prefer `WF_API_KEY` in `.env` to committing it. */
  apiKey?: string;
  /** Reporter of `wf run`. @default "pretty" */
  reporter?: ReporterName;
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
   * How `wf run` uses the action lock beside each workflow (`<name>.wf.lock.json`): `read` (replay),
   * `write` (record), `heal` (replay, and let the model repair what no longer replays), `off`.
   * The `--lock` flag wins; on CI (`CI=true`) the default is `read` whatever this says.
   * @default "heal" when a model is configured, else "read"
   */
  lock?: "read" | "write" | "heal" | "off";
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
 * export default defineConfig({ baseUrl: "http://127.0.0.1:8787", reporter: "pretty" });
 */
export function defineConfig(config: WfConfig): WfConfig {
  return config;
}

const ConfigSchema = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    apiKey: z.string().min(1).optional(),
    reporter: z.enum(REPORTERS).optional(),
    timeoutMs: z.number().int().positive().optional(),
    requestTimeoutMs: z.number().int().positive().optional(),
    model: z.string().min(1).optional(),
    lock: z.enum(["read", "write", "heal", "off"]).optional(),
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
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  reporter?: string | undefined;
  timeoutMs?: number | undefined;
  model?: string | undefined;
  lock?: string | undefined;
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
  /** The service URL; `undefined` means start the embedded server. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  reporter: ReporterName;
  timeoutMs: number | undefined;
  requestTimeoutMs: number | undefined;
  /** The model for free-form steps; `undefined`: none (the grammar alone). */
  model: string | undefined;
  /**
   * How `wf run` uses the action lock: the `--lock` flag; else `read` on CI (`CI=true`); else
   * `lock` of wf.config.ts; else `heal` with a model, `read` without.
   */
  lock: "read" | "write" | "heal" | "off";
  server: { host: string; port: number | undefined; workflowsDir: string | undefined; dataDir: string | undefined };
  /** The environment after `.env` was merged in (process variables win). */
  env: Record<string, string | undefined>;
}

/**
 * Loads `wf.config.ts` and `.env` and resolves every setting: flag, then config file, then
 * environment variable (`WF_BASE_URL`, `WF_API_KEY`, `WF_REPORTER`, `WF_TIMEOUT_MS`,
 * `WF_REQUEST_TIMEOUT_MS`, `WF_HOST`, `WF_PORT`, `WF_WORKFLOWS_DIR`, `WF_DATA_DIR`), then default.
 *
 * @throws {@link CliUsageError} `WF_CLI_CONFIG_INVALID` when the config file does not load or has a
 *   wrong field, or a flag or variable has a wrong value (e.g. `WF_PORT=abc`).
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
          `Invalid configuration in ${where}:\n${parsed.error.issues.map((i) => `  - ${i.path.join(".") || "(root)"}: ${i.message}`).join("\n")}\nFix the file; see \`wf --help\` for the fields.`,
          { path: where },
        );
      }
      file = parsed.data as WfConfig;
    }
  }

  const reporter = flags.reporter ?? file.reporter ?? env.WF_REPORTER ?? "pretty";
  if (!(REPORTERS as readonly string[]).includes(reporter)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown reporter "${reporter}". Use one of: ${REPORTERS.join(", ")}.`);
  }
  const baseUrl = nonEmpty(flags.baseUrl) ?? file.baseUrl ?? nonEmpty(env.WF_BASE_URL);
  if (baseUrl !== undefined && !/^https?:\/\/[^/\s]+/.test(baseUrl)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Base URL "${baseUrl}" is not an http(s) URL. Pass one like --base-url http://127.0.0.1:8787, or leave it unset to use the embedded server.`);
  }
  const model = nonEmpty(flags.model) ?? file.model ?? nonEmpty(env.WF_MODEL);
  const lock = nonEmpty(flags.lock) ?? (isCi(env) ? "read" : undefined) ?? file.lock ?? (model ? "heal" : "read");
  if (!["read", "write", "heal", "off"].includes(lock)) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Unknown lock mode "${lock}". Use one of: read, write, heal, off.`);
  }
  return {
    configFile,
    baseUrl: baseUrl?.replace(/\/+$/, ""),
    apiKey: nonEmpty(flags.apiKey) ?? file.apiKey ?? nonEmpty(env.WF_API_KEY),
    reporter: reporter as ReporterName,
    timeoutMs: flags.timeoutMs ?? file.timeoutMs ?? intFromEnv(env, "WF_TIMEOUT_MS"),
    requestTimeoutMs: file.requestTimeoutMs ?? intFromEnv(env, "WF_REQUEST_TIMEOUT_MS"),
    model,
    lock: lock as ResolvedCliConfig["lock"],
    server: {
      host: nonEmpty(flags.host) ?? file.server?.host ?? nonEmpty(env.WF_HOST) ?? "127.0.0.1",
      port: flags.port ?? file.server?.port ?? intFromEnv(env, "WF_PORT"),
      workflowsDir: nonEmpty(flags.workflowsDir) ?? file.server?.workflowsDir ?? nonEmpty(env.WF_WORKFLOWS_DIR),
      dataDir: nonEmpty(flags.dataDir) ?? file.server?.dataDir ?? nonEmpty(env.WF_DATA_DIR),
    },
    env,
  };
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

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function intFromEnv(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new CliUsageError("WF_CLI_CONFIG_INVALID", `Environment variable ${name}="${raw}" is not a whole number. Set it to a number like 30000, or unset it.`);
  }
  return value;
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
