/**
 * `wf trigger <workflowId>`: runs a stored workflow on the service by its id, prints the session
 * id and preview address, and with `--wait` follows the run by long-poll to its end.
 */
import { createColors } from "picocolors";
import { RunAbortedError, isWfError, untilAborted } from "@wf/core";
import type { RunWorkflowRequest, RunWorkflowResponse, SessionStatus, WorkflowList } from "@wf/core/protocol";
import { resolveCliConfig } from "./config.js";
import { CliUsageError, EXIT, isConnectionError, type ExitCode } from "./errors.js";
import { assertKnownParamNames, parseParamFlags, readParamsFile } from "./params.js";
import { createReporter } from "./reporters.js";
import { createSessionEventStream } from "./session-record.js";
import type { CliContext } from "./commands/_types.js";
import { TRIGGER_REPORTERS } from "./names.js";

export { decodeStepAnswer } from "./session-record.js";

/**
 * Reporters of `wf trigger`, those of `wf run` on one workflow: `pretty` for people, `json` (the
 * run record at the end, docs/run-report.md), `ndjson` (one event per line, as `wf run` emits them).
 */
export { TRIGGER_REPORTERS };
export type TriggerReporter = (typeof TRIGGER_REPORTERS)[number];

/** How long each long-poll of `--wait` asks the service to hold the answer, in ms. */
export const TRIGGER_POLL_WAIT_MS = 25_000;

/** The part of the `@wf/runtime` service client that `wf trigger` uses. */
export interface TriggerClient {
  runStoredWorkflow(body: RunWorkflowRequest): Promise<RunWorkflowResponse>;
  getSessionStatus(id: string, options?: { waitMs?: number; since?: number; signal?: AbortSignal }): Promise<SessionStatus>;
  cancelSession(id: string): Promise<SessionStatus>;
  /** Lets unknown variable names be refused as `wf run` refuses them; without it the service's 422 says so. */
  listWorkflows?(): Promise<WorkflowList>;
}

/** Somewhere to print: `process.stdout`, or a buffer in tests. */
export interface TextSink {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
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
  /** The environment the pretty reporter reads (`NO_COLOR`, `FORCE_COLOR`, `TERM`). @default process.env */
  env?: Record<string, string | undefined>;
  /** Colour the session line. @default false */
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
 * Parses `--var key=value` pairs and a `--vars-file` (a JSON object; numbers and booleans are
 * turned into strings) into the `variables` of a run. `--var` wins over the file. The same rules
 * and messages as `--param`/`--params-file` of `wf run`.
 *
 * @param pairs - `key=value` strings; the value is everything after the first `=` and may be empty.
 * @param varsFile - path of the JSON file, relative to `cwd`.
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for a pair without `=` or an empty key, or a file that
 *   is not JSON, not an object, or holds a value that is not a string, number or boolean;
 *   `WF_CLI_FILE_NOT_FOUND` for a missing file.
 */
export async function parseVariables(pairs: readonly string[] = [], varsFile?: string, cwd: string = process.cwd()): Promise<Record<string, string>> {
  const variables: Record<string, string> = {};
  if (varsFile) {
    for (const [key, value] of Object.entries(await readParamsFile(varsFile, cwd))) {
      if (typeof value === "string") variables[key] = value;
      else if (typeof value === "number" || typeof value === "boolean") variables[key] = String(value);
      else throw new CliUsageError("WF_CLI_USAGE", `--vars-file ${varsFile}: "${key}" must be a string, number or boolean (a stored run's variables are strings), got ${JSON.stringify(value)}.`);
    }
  }
  return { ...variables, ...parseParamFlags(pairs, "--var") };
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
  const reporterName = options.reporter ?? "pretty";
  const c = createColors(options.color ?? false);
  const body: RunWorkflowRequest = { workflowId: options.workflowId };
  const names = Object.keys(options.variables ?? {});
  if (names.length > 0) {
    body.variables = options.variables!;
    await assertKnownVariables(options.client, options.workflowId, names);
  }
  if (options.proxy) body.proxy = true;

  const started = await options.client.runStoredWorkflow(body);
  const { sessionId, previewUrl } = started;
  if (reporterName === "pretty") {
    stdout.write(`${c.bold("session")}  ${sessionId}\n${options.wait ? "" : `${c.bold("preview")}  ${previewUrl}\n`}`);
  }
  if (!options.wait) {
    if (reporterName !== "pretty") stdout.write(JSON.stringify({ sessionId, previewUrl }, null, reporterName === "json" ? 2 : undefined) + "\n");
    return { exitCode: EXIT.ok, sessionId, previewUrl };
  }

  // The events of `wf run`, made from each status the long-poll brings, through `wf run`'s reporters.
  const reporter = createReporter(reporterName, { stdout, stderr, env: options.env ?? process.env });
  const events = createSessionEventStream(previewUrl);
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
      for (const event of events.next(next)) reporter.onEvent(event);
      if (next.status !== "RUNNING") break;
    }
  } catch (error) {
    // Ctrl-C while following: the run goes on (or is cancelled below); anything else is an error.
    reporter.end();
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
    if (reporterName !== "pretty") stdout.write(JSON.stringify({ sessionId, previewUrl, interrupted: true }, null, reporterName === "json" ? 2 : undefined) + "\n");
    return { exitCode: EXIT.interrupted, sessionId, previewUrl, ...(status ? { status } : {}) };
  }
  reporter.end();
  const final = status!;
  return { exitCode: final.status === "SUCCEEDED" ? EXIT.ok : EXIT.failed, sessionId, previewUrl, status: final };
}

/**
 * Refuses variable names the stored workflow does not declare, with the same message as
 * `wf run --param` (the service would refuse them too, with a 422). Does nothing when the client
 * cannot list workflows or the workflow is not listed (the service then answers 404).
 */
async function assertKnownVariables(client: TriggerClient, workflowId: string, names: string[]): Promise<void> {
  if (!client.listWorkflows) return;
  const info = (await client.listWorkflows()).workflows.find((w) => w.workflowId === workflowId);
  if (!info) return;
  const properties = (info.params as { properties?: Record<string, unknown> } | null)?.properties ?? {};
  assertKnownParamNames(workflowId, Object.keys(properties), names, "--var");
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

/**
 * A client of the configured service for `wf trigger` and `wf workflows`: base URL and key from
 * the flags, `wf.config.ts` or `WF_SERVICE_URL`/`WF_API_KEY`. A stored workflow lives on a service,
 * so there is no embedded default here.
 *
 * @throws {@link CliUsageError} `WF_CLI_NO_SERVICE` when no service URL is configured, and
 *   `WF_CLI_CONFIG_INVALID` for a bad configuration.
 */
export async function openServiceClient(
  context: Pick<CliContext, "cwd" | "env">,
  flags: { serviceUrl?: string | undefined; baseUrl?: string | undefined; apiKey?: string | undefined; reporter?: string | undefined },
) {
  const config = await resolveCliConfig({ cwd: context.cwd, env: context.env, flags });
  if (!config.serviceUrl) {
    throw new CliUsageError(
      "WF_CLI_NO_SERVICE",
      "No service to talk to: stored workflows live on a running service. Pass --service-url, set WF_SERVICE_URL (and WF_API_KEY), " +
        "or set serviceUrl in wf.config.ts; start one with `wf serve --workflows <dir>`.",
    );
  }
  const { createServiceClient } = await import("@wf/runtime");
  const client = createServiceClient({
    baseUrl: config.serviceUrl,
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

export { wantsColor } from "./color.js";
