/**
 * `wf trigger <workflowId>`: runs a stored workflow on the service by its id, prints the session
 * id and preview address, and with `--wait` follows the run by long-poll to its end.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createColors } from "picocolors";
import { RunAbortedError, WRAPPER_KEY, isWfError, untilAborted } from "@wf/core";
import type { RunWorkflowRequest, RunWorkflowResponse, SessionStatus, StepStatus } from "@wf/core/protocol";
import { resolveCliConfig } from "../config.js";
import { CliUsageError, EXIT, isConnectionError, type ExitCode } from "../errors.js";
import { defineCommand, type CliContext } from "./_types.js";

/** Reporters of `wf trigger`: `pretty` for people, `json` for scripts (one JSON document at the end). */
export const TRIGGER_REPORTERS = ["pretty", "json"] as const;
export type TriggerReporter = (typeof TRIGGER_REPORTERS)[number];

/** How long each long-poll of `--wait` asks the service to hold the answer, in ms. */
export const TRIGGER_POLL_WAIT_MS = 25_000;

/** The part of the `@wf/runtime` service client that `wf trigger` uses. */
export interface TriggerClient {
  runStoredWorkflow(body: RunWorkflowRequest): Promise<RunWorkflowResponse>;
  getSessionStatus(id: string, options?: { waitMs?: number; since?: number; signal?: AbortSignal }): Promise<SessionStatus>;
  cancelSession(id: string): Promise<SessionStatus>;
}

/** Somewhere to print: `process.stdout`, or a buffer in tests. */
export interface TextSink {
  write(text: string): unknown;
}

/** Options of {@link triggerWorkflow}. */
export interface TriggerOptions {
  /** The stored workflow's id (its `name`). */
  workflowId: string;
  /** The inputs, already parsed (see {@link parseVariables}). @default {} */
  variables?: Record<string, string>;
  /** Run the session's browser behind the server's proxy (`WF_PROXY_URL` of the server). @default false */
  proxy?: boolean;
  /** Follow the run to its end and exit by its outcome. @default false */
  wait?: boolean;
  /** @default "pretty" */
  reporter?: TriggerReporter;
  /** On interrupt (`signal` aborts) during `--wait`, cancel the remote session too. @default false: the run goes on. */
  cancelOnInterrupt?: boolean;
  /** The service client (`createServiceClient({ baseUrl, apiKey })` of `@wf/runtime`). */
  client: TriggerClient;
  /** Aborts on Ctrl-C: stops waiting (and cancels the run with `cancelOnInterrupt`). */
  signal?: AbortSignal;
  /** Where results go. @default process.stdout */
  stdout?: TextSink;
  /** Where progress and notes go. @default process.stderr */
  stderr?: TextSink;
  /** Colour the pretty output. @default false */
  color?: boolean;
}

/** What {@link triggerWorkflow} did. */
export interface TriggerResult {
  /** 0 started (or, with `wait`, succeeded), 1 the run failed or was cancelled, 130 interrupted. */
  exitCode: ExitCode;
  sessionId: string;
  previewUrl: string;
  /** With `wait`: the last status seen (the final one unless interrupted). */
  status?: SessionStatus;
}

/**
 * Parses `--var key=value` pairs and a `--vars-file` (a JSON object of strings; numbers and
 * booleans are turned into strings) into the `variables` of a run. `--var` wins over the file.
 *
 * @param pairs - `key=value` strings; the value is everything after the first `=` and may be empty.
 * @param varsFile - path of the JSON file, relative to `cwd`.
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for a pair without `=` or an empty key, or a file that
 *   is missing, not JSON, or not an object of strings.
 */
export async function parseVariables(pairs: readonly string[] = [], varsFile?: string, cwd: string = process.cwd()): Promise<Record<string, string>> {
  const variables: Record<string, string> = {};
  if (varsFile) {
    const path = resolve(cwd, varsFile);
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(path, "utf8"));
    } catch (error) {
      throw new CliUsageError("WF_CLI_USAGE", `Cannot read --vars-file ${path}: ${(error as Error).message}. Pass a JSON object like {"url": "https://example.org"}.`, {
        cause: error,
        path,
      });
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new CliUsageError("WF_CLI_USAGE", `--vars-file ${path} must hold a JSON object of strings, like {"url": "https://example.org"}.`, { path });
    }
    for (const [key, value] of Object.entries(raw)) {
      if (typeof value === "string") variables[key] = value;
      else if (typeof value === "number" || typeof value === "boolean") variables[key] = String(value);
      else throw new CliUsageError("WF_CLI_USAGE", `--vars-file ${path}: "${key}" must be a string (variables are strings), got ${JSON.stringify(value)}.`, { path });
    }
  }
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new CliUsageError("WF_CLI_USAGE", `--var ${JSON.stringify(pair)} is not key=value. Write it like --var url=https://example.org.`);
    variables[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return variables;
}

/**
 * Starts stored workflow `workflowId` on the service and prints its `sessionId` and `previewUrl`.
 * With `wait`, follows the session by long-poll (`?since=version`), printing each step as it
 * finishes, then the output or the error.
 *
 * Errors of the service (unknown workflow 404, invalid variables or proxy 422) are thrown as the
 * client's `ServiceError`; the command turns them into exit code 2 (see {@link triggerExitCodeOf}).
 *
 * @returns the exit code by outcome: 0 started (without `wait`) or succeeded, 1 failed or
 *   cancelled, 130 interrupted by `signal`.
 */
export async function triggerWorkflow(options: TriggerOptions): Promise<TriggerResult> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const reporter = options.reporter ?? "pretty";
  const c = createColors(options.color ?? false);
  const body: RunWorkflowRequest = { workflowId: options.workflowId };
  if (options.variables && Object.keys(options.variables).length > 0) body.variables = options.variables;
  if (options.proxy) body.proxy = true;

  const started = await options.client.runStoredWorkflow(body);
  const { sessionId, previewUrl } = started;
  if (reporter === "pretty") {
    stdout.write(`${c.bold("session")}  ${sessionId}\n${c.bold("preview")}  ${previewUrl}\n`);
  }
  if (!options.wait) {
    if (reporter === "json") stdout.write(JSON.stringify({ sessionId, previewUrl }, null, 2) + "\n");
    return { exitCode: EXIT.ok, sessionId, previewUrl };
  }

  const printed = new Set<string>();
  let status: SessionStatus | undefined;
  // since=0 answers at once (versions start at 1); each later poll waits for a newer version.
  let version = 0;
  const signal = options.signal;
  try {
    for (;;) {
      if (signal?.aborted) throw new RunAbortedError(signal.reason);
      const polling = options.client.getSessionStatus(sessionId, {
        waitMs: TRIGGER_POLL_WAIT_MS,
        since: version,
        ...(signal ? { signal } : {}),
      });
      const next = await (signal ? untilAborted(polling, signal) : polling);
      status = next;
      version = next.version;
      if (reporter === "pretty") {
        for (const step of [...next.steps].sort((a, b) => a.index - b.index)) {
          if ((step.status === "SUCCEEDED" || step.status === "FAILED") && !printed.has(step.stepId)) {
            printed.add(step.stepId);
            stderr.write(formatStep(step, c) + "\n");
          }
        }
      }
      if (next.status !== "RUNNING") break;
    }
  } catch (error) {
    // Ctrl-C while following: the run goes on (or is cancelled below); anything else is an error.
    if (!(signal?.aborted && isWfError(error) && error.code === "WF_ABORTED")) throw error;
    if (options.cancelOnInterrupt) {
      try {
        status = await options.client.cancelSession(sessionId);
        stderr.write(`Interrupted: cancelled session ${sessionId}.\n`);
      } catch (cancelError) {
        stderr.write(`Interrupted; cancelling session ${sessionId} failed: ${(cancelError as Error).message}\n`);
      }
    } else {
      stderr.write(
        `Interrupted: stopped waiting. The run goes on in session ${sessionId}; watch it at ${previewUrl} ` +
          `(pass --cancel-on-interrupt to cancel it on Ctrl-C).\n`,
      );
    }
    if (reporter === "json") stdout.write(JSON.stringify({ sessionId, previewUrl, interrupted: true, ...(status ? { status } : {}) }, null, 2) + "\n");
    return { exitCode: EXIT.interrupted, sessionId, previewUrl, ...(status ? { status } : {}) };
  }

  const final = status!;
  if (reporter === "json") {
    stdout.write(JSON.stringify({ ...final, previewUrl }, null, 2) + "\n");
  } else if (final.status === "SUCCEEDED") {
    stderr.write(c.green(`✓ ${final.workflowId ?? options.workflowId} succeeded`) + durationOf(final) + "\n");
    if (final.output !== undefined) stdout.write(JSON.stringify(final.output, null, 2) + "\n");
  } else if (final.status === "CANCELLED") {
    stderr.write(c.yellow(`■ ${final.workflowId ?? options.workflowId} was cancelled`) + (final.error ? `: ${final.error.message}` : "") + "\n");
  } else {
    stderr.write(c.red(`✗ ${final.workflowId ?? options.workflowId} failed`) + (final.error ? `: ${final.error.message} [${final.error.code}]` : "") + "\n");
  }
  return { exitCode: final.status === "SUCCEEDED" ? EXIT.ok : EXIT.failed, sessionId, previewUrl, status: final };
}

/**
 * The exit code of an error thrown by {@link triggerWorkflow}: 2 for what the caller must fix
 * (a usage or config error, a 4xx answer of the service such as an unknown workflow or invalid
 * variables, a service that cannot be reached), 1 otherwise.
 */
export function triggerExitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliUsageError) return EXIT.usage;
  if (isWfError(error)) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500) return EXIT.usage;
    if (error.code === "WF_SERVICE_UNREACHABLE" || error.code.startsWith("WF_CLI_")) return EXIT.usage;
  }
  return EXIT.failed;
}

type Colors = ReturnType<typeof createColors>;

function formatStep(step: StepStatus, c: Colors): string {
  const ok = step.status === "SUCCEEDED";
  const mark = ok ? c.green("✓") : c.red("✗");
  const tokens = step.usage ? ` · ${step.usage.totalTokens} tokens` : "";
  const duration = step.durationMs !== null ? c.dim(` ${Math.round(step.durationMs)} ms${tokens}`) : "";
  let line = `${mark} ${step.index + 1} ${step.type} ${step.step}${duration}`;
  if (step.interpreter === "model" && step.resolved) line += `\n    ${c.dim(`↳ model: ${step.resolved}`)}`;
  if (ok && step.type === "ASK" && step.result !== undefined) line += `\n    ${c.cyan("→")} ${JSON.stringify(decodeStepAnswer(step.result))}`;
  if (!ok && step.error) line += `\n    ${c.red(`${step.error.message} [${step.error.code}]`)}`;
  return line;
}

/**
 * The answer of a succeeded ASK step as the workflow sees it, from the step's `result` on the wire.
 *
 * The service stores the answer as the strict schema has it: a schema whose root is not an object
 * (a string, a number, an array, an enum, …) travels wrapped as `{ "value": … }` (`WRAPPER_KEY` and
 * `isWrapped` of `@wf/core`). The step status carries neither the zod schema nor its JSON Schema,
 * so the rule here is by shape: a plain object whose only key is `value` is unwrapped; anything
 * else is shown as it is. The one case this reads wrongly is an object schema with a single field
 * named `value` (`z.object({ value: … })`): its answer is shown as the field's value. The `json`
 * reporter of `wf trigger` prints the status as the service sent it, undecoded.
 *
 * @param result - `StepStatus.result` of an ASK step.
 * @returns the unwrapped value, or `result` unchanged.
 */
export function decodeStepAnswer(result: unknown): unknown {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return result;
  const keys = Object.keys(result);
  return keys.length === 1 && keys[0] === WRAPPER_KEY ? (result as Record<string, unknown>)[WRAPPER_KEY] : result;
}

function durationOf(status: SessionStatus): string {
  if (!status.finishedAt) return "";
  const ms = Date.parse(status.finishedAt) - Date.parse(status.createdAt);
  return Number.isFinite(ms) ? ` in ${ms} ms` : "";
}

/**
 * A client of the configured service for `wf trigger` and `wf workflows`: base URL and key from
 * the flags, `wf.config.ts` or `WF_BASE_URL`/`WF_API_KEY`. A stored workflow lives on a service,
 * so there is no embedded default here.
 *
 * @throws {@link CliUsageError} `WF_CLI_NO_SERVICE` when no base URL is configured, and
 *   `WF_CLI_CONFIG_INVALID` for a bad configuration.
 */
export async function openServiceClient(
  context: Pick<CliContext, "cwd" | "env">,
  flags: { baseUrl?: string | undefined; apiKey?: string | undefined; reporter?: string | undefined },
) {
  const config = await resolveCliConfig({ cwd: context.cwd, env: context.env, flags });
  if (!config.baseUrl) {
    throw new CliUsageError(
      "WF_CLI_NO_SERVICE",
      "No service to talk to: stored workflows live on a running service. Pass --base-url, set WF_BASE_URL (and WF_API_KEY), " +
        "or set baseUrl in wf.config.ts; start one with `wf serve --workflows <dir>`.",
    );
  }
  const { createServiceClient } = await import("@wf/runtime");
  const client = createServiceClient({
    baseUrl: config.baseUrl,
    ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
    ...(config.requestTimeoutMs !== undefined ? { requestTimeoutMs: config.requestTimeoutMs } : {}),
  });
  return { client, config };
}

/**
 * Rewords what the service refused (a 4xx: unknown workflow, invalid variables, no proxy) and an
 * unreachable service as {@link CliUsageError}s (exit code 2); other errors pass unchanged.
 */
export function asUsageError(error: unknown): unknown {
  if (error instanceof CliUsageError) return error;
  if (triggerExitCodeOf(error) === EXIT.usage || isConnectionError(error)) {
    const code = isWfError(error) && error.code === "WF_SERVICE_UNREACHABLE" ? "WF_CLI_SERVICE_UNREACHABLE" : "WF_CLI_SERVICE_REFUSED";
    return new CliUsageError(code, (error as Error).message, { cause: error });
  }
  return error;
}

/** True when colours are wanted on `stream` (https://no-color.org; `FORCE_COLOR`; a terminal). */
export function wantsColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

export const triggerCommand = defineCommand({
  command: "trigger <workflowId>",
  describe: "Run a stored workflow on the service by its id; --wait follows it to its end",
  builder: (yargs) =>
    yargs
      .positional("workflowId", { type: "string", demandOption: true, describe: "The stored workflow's id (its name; see `wf workflows`)" })
      .option("var", { alias: ["param", "p"], type: "string", array: true, default: [] as string[], describe: "A variable as key=value (repeatable; --param is the same, as on `wf run`); unknown names are refused" })
      .option("vars-file", { type: "string", describe: "A JSON object of variables; --var overrides its fields" })
      .option("proxy", { type: "boolean", default: false, describe: "Run the browser behind the service's configured proxy (WF_PROXY_URL on the server)" })
      .option("wait", { type: "boolean", default: false, describe: "Follow the run to its end, print each finished step and the output, exit by its outcome" })
      .option("reporter", { alias: "r", choices: TRIGGER_REPORTERS, describe: "pretty: for people; json: one JSON document on stdout [default: pretty]" })
      .option("cancel-on-interrupt", { type: "boolean", default: false, describe: "On Ctrl-C during --wait, cancel the run on the service too (else it goes on)" })
      .option("base-url", { type: "string", describe: "The wf service (else WF_BASE_URL or wf.config.ts)" })
      .option("api-key", { type: "string", describe: "The service's API key (else WF_API_KEY or wf.config.ts)" })
      .example("$0 trigger read-title --var url=https://example.org --wait", "Run it and wait for the output")
      .example("$0 trigger nightly-report --vars-file vars.json --reporter json", "Start it; print {sessionId, previewUrl} as JSON")
      .epilog(
        "Exit codes: 0 started (or, with --wait, succeeded), 1 the run failed or was cancelled, 2 usage or configuration error " +
          "(unknown workflow, invalid variables, --proxy without a proxy on the server, no service), 130 interrupted. " +
          "Ctrl-C stops waiting; the run goes on unless --cancel-on-interrupt.",
      ),
  handler: async (args, context) => {
    const variables = await parseVariables(args.var.map(String), args["vars-file"], context.cwd);
    const { client, config } = await openServiceClient(context, { baseUrl: args["base-url"], apiKey: args["api-key"] });
    const reporter: TriggerReporter = args.reporter ?? (config.reporter === "pretty" ? "pretty" : "json");
    try {
      const result = await triggerWorkflow({
        workflowId: args.workflowId,
        variables,
        proxy: args.proxy,
        wait: args.wait,
        reporter,
        cancelOnInterrupt: args["cancel-on-interrupt"],
        client,
        signal: context.signal,
        stdout: context.stdout,
        stderr: context.stderr,
        color: wantsColor(context.stderr, config.env),
      });
      return result.exitCode;
    } catch (error) {
      throw asUsageError(error);
    } finally {
      await client.close();
    }
  },
});
