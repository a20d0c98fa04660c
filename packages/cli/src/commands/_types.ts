/**
 * The shape of a `wf` command module: one per file in this folder, listed in `../cli.ts`'s
 * command table.
 */
import type { Argv } from "yargs";
import type { ExitCode } from "../errors.js";
import type { OutputStream } from "../reporters.js";

/** What a command handler gets besides its flags: the process's I/O, passed in so tests can hand in their own. */
export interface CliContext {
  /** Working directory files and `wf.config.ts` are resolved from. */
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: OutputStream;
  stderr: OutputStream;
  /** Aborts on Ctrl-C (SIGINT/SIGTERM): long-running commands stop and clean up. */
  signal: AbortSignal;
  /** Where `wf run --debug` reads its "go on" lines. @default process.stdin */
  stdin?: NodeJS.ReadableStream;
}

/** One `wf` command. */
export interface WfCommand<Args = Record<string, unknown>> {
  /** yargs command string, e.g. `"run <file>"`. */
  command: string;
  /** One line for `wf --help`. */
  describe: string;
  /** Declares the flags, positional arguments and examples. */
  builder: (yargs: Argv) => Argv<Args>;
  /** Runs the command; returns the process exit code. Throw `CliUsageError` for usage errors (exit 2). */
  handler: (args: Args, context: CliContext) => Promise<ExitCode | number>;
}

/** Helps type a command module: `export const runCommand = defineCommand({...})`. */
export function defineCommand<Args>(command: WfCommand<Args>): WfCommand<Args> {
  return command;
}
