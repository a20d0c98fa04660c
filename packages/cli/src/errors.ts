/**
 * Errors of `@wf/cli`. Each carries the process exit code it maps to, so `bin.ts` is the only
 * place that turns an error into an exit, and messages say what is wrong and what to do.
 */
import { WfError, isWfError } from "@wf/core/errors";

/** Exit codes of the `wf` command. */
export const EXIT = {
  /** The command did what was asked (for `wf run`: the workflow succeeded). */
  ok: 0,
  /** The workflow failed (a step, the output schema, a timeout), or `wf check`/`wf plan` found problems. */
  failed: 1,
  /** Usage or configuration error: bad flag, missing file, bad params, bad config, unreachable service. */
  usage: 2,
  /** Interrupted by Ctrl-C (SIGINT); the session was closed first. */
  interrupted: 130,
} as const;

/** A process exit code of `wf`: see {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A problem with how `wf` was called or configured. Exit code 2.
 *
 * Codes: `WF_CLI_USAGE` (bad flag or argument), `WF_CLI_FILE_NOT_FOUND`, `WF_CLI_NO_WORKFLOW`
 * (the file has no default-exported workflow), `WF_CLI_LOAD_FAILED` (the file throws or does not
 * compile), `WF_CLI_CONFIG_INVALID` (`wf.config.ts` or an environment variable),
 * `WF_CLI_SERVICE_UNREACHABLE` (no service answers at the base URL), `WF_CLI_NO_DISPLAY` (`--headed`
 * on a machine without a display), `WF_CLI_FILE_EXISTS`
 * (`wf init` would overwrite a file).
 */
export class CliUsageError extends WfError {
  override name = "CliUsageError";
  /** The exit code this error ends the process with. */
  readonly exitCode: ExitCode = EXIT.usage;
  /** The file concerned, when there is one. */
  readonly path: string | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; path?: string }) {
    super(code, message, options);
    this.path = options?.path;
  }
}

/**
 * The exit code for an error that reached the top of a command: 2 for usage, configuration and
 * params errors (`CliUsageError`, `WF_PARAMS_INVALID`, `WF_SCHEMA_UNSUPPORTED` before the run),
 * 130 for an interrupt, 1 for anything else.
 */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliUsageError) return error.exitCode;
  if (isWfError(error)) {
    if (error.code.startsWith("WF_CLI_") || error.code === "WF_PARAMS_INVALID" || error.code === "WF_CONFIG_INVALID") return EXIT.usage;
    if (error.code === "WF_INTERRUPTED") return EXIT.interrupted;
  }
  return EXIT.failed;
}

/** Connection-level error codes of Node and undici: the service is not there at all. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ECONNRESET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** True when `error`, or an error in its `cause` chain, says that no service could be reached. */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || /UNREACHABLE|CONNECTION|NETWORK/.test(code))) return true;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((e) => isConnectionError(e))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
