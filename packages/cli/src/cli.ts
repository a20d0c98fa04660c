/**
 * The `wf` command line: one yargs instance built from {@link COMMANDS}, a table of command
 * modules (one per file in `./commands/`). `runCli()` parses the arguments, runs the command and
 * returns the exit code; only `bin.ts` touches `process.argv` and exits.
 */
import yargs, { type Argv } from "yargs";
import { isWfError } from "@wf/core/errors";
import { earlyFlag } from "@wf/server/env-flag";
import { checkCommand } from "./commands/check.js";
import { initCommand } from "./commands/init.js";
import { installBrowserCommand } from "./commands/install-browser.js";
import { lockCommand } from "./commands/lock.js";
import { planCommand } from "./commands/plan.js";
import { runCommand } from "./commands/run.js";
import { serveCommand } from "./commands/serve.js";
import { showReportCommand } from "./commands/show-report.js";
import { showTraceCommand } from "./commands/show-trace.js";
import { mergeReportsCommand } from "./commands/merge-reports.js";
import { storeCommand } from "./commands/store.js";
import { triggerCommand } from "./commands/trigger.js";
import { workflowsCommand } from "./commands/workflows.js";
import type { CliContext, WfCommand } from "./commands/_types.js";
import { helpWidth } from "./cached-help.js";
import { CliUsageError, EXIT, exitCodeOf } from "./errors.js";

/** The commands of `wf`, in the order `wf --help` lists them. Add a command with one line here. */
export const COMMANDS: ReadonlyArray<WfCommand<any>> = [
  runCommand,
  showReportCommand,
  showTraceCommand,
  mergeReportsCommand,
  serveCommand,
  triggerCommand,
  workflowsCommand,
  planCommand,
  checkCommand,
  lockCommand,
  storeCommand,
  initCommand,
  installBrowserCommand,
];

/** The version `wf --version` prints: `@wf/cli`'s. */
const VERSION = "0.1.0";

/**
 * Runs the `wf` command line.
 *
 * @param args - the arguments after `wf`, e.g. `["run", "flow.ts", "--param", "q=pg"]`.
 * @param context - I/O of the process; each field defaults to the real one (`process.cwd()`,
 *   `process.env`, `process.stdout`, `process.stderr`, a signal that never aborts).
 * @returns the exit code (see `EXIT`): errors are printed to `stderr` as one paragraph, never a stack
 *   trace (set `WF_DEBUG=1` for the stack).
 */
export async function runCli(args: ReadonlyArray<string>, context: Partial<CliContext> = {}): Promise<number> {
  const ctx: CliContext = {
    cwd: context.cwd ?? process.cwd(),
    env: context.env ?? process.env,
    stdout: context.stdout ?? process.stdout,
    stderr: context.stderr ?? process.stderr,
    signal: context.signal ?? new AbortController().signal,
    ...(context.stdin ? { stdin: context.stdin } : {}),
  };
  let exitCode: number = EXIT.ok;
  let ran = false;
  const parser = yargs()
    .scriptName("wf")
    .usage("$0 <command> [options]\n\nBrowser workflows as TypeScript code: write act()/ask() steps, run them on a real browser.")
    .version(VERSION)
    .help()
    .alias("h", "help")
    .alias("v", "version")
    .strict()
    .recommendCommands()
    .demandCommand(1, `Name a command: ${COMMANDS.map((c) => `wf ${c.command}`).join(", ")}.`)
    .wrap(helpWidth(ctx.stdout.columns))
    .example("$0 run workflows/search.ts --param query=postgres", "Run a workflow on the embedded server")
    .example("$0 plan workflows/search.ts", "List its steps without running it")
    .example("$0 check workflows/*.ts", "Type-check and lint workflow files")
    .example("$0 serve --port 8787", "Run the service for other clients")
    .example("$0 init my-workflows", "Start a new project")
    .example("$0 install-browser", "Install a Chromium for the embedded server")
    .epilog("Configuration: flags > environment (WF_SERVICE_URL, WF_APP_URL, WF_API_KEY, …; .env is read) > wf.config.ts (defineConfig) > defaults.\nExit codes: 0 ok, 1 workflow failed or findings, 2 usage or configuration error, 130 interrupted.")
    .exitProcess(false)
    .fail(false)
    // yargs makes an array of a flag given twice; a flag that takes one value must not get one.
    .middleware((argv) => refuseRepeatedFlags(argv, parser), true);
  for (const command of COMMANDS) {
    parser.command({
      command: command.command,
      describe: command.describe,
      builder: command.builder,
      handler: async (argv: unknown) => {
        ran = true;
        exitCode = await command.handler(argv, ctx);
      },
    });
  }
  skipHelpRendering(parser);
  let output = "";
  try {
    await parser.parseAsync([...args], {}, (_error: unknown, _argv: unknown, text: string) => {
      output = text;
    });
  } catch (error) {
    if (output) ctx.stdout.write(output + "\n");
    return report(error, ctx, ran);
  }
  if (output) ctx.stdout.write(output + "\n");
  return exitCode;
}

/**
 * Refuses a flag that takes one value given more than once (`--data-dir a --data-dir b`): yargs
 * hands the command an array, which no command expects. Flags declared `array` (`--param`) may repeat.
 * @throws a usage error (exit 2) naming the flag and its values.
 */
function refuseRepeatedFlags(argv: Record<string, unknown>, parser: Argv): void {
  const options = (parser as unknown as { getOptions?: () => { array?: string[]; key?: Record<string, unknown> } }).getOptions?.();
  if (!options?.key) return;
  const repeatable = new Set(options.array ?? []);
  for (const name of Object.keys(options.key)) {
    const value = argv[name];
    if (!Array.isArray(value) || repeatable.has(name) || name === "_" || name === "$0") continue;
    throw new CliUsageError(
      "WF_CLI_USAGE",
      `--${name} takes one value, and was given ${value.length}: ${value.map((v) => JSON.stringify(String(v))).join(", ")}. Give it once.`,
    );
  }
}

/**
 * Stops yargs from rendering a command's help text before running its handler: yargs does it
 * unconditionally (`cacheHelpMessage`, to print the help on a later failure of the handler), ~60 ms
 * of string-width in a cold process, paid by every `wf run`. With `.fail(false)` failures are
 * thrown to us and printed by {@link report}, never with the help, so the text was never read.
 * `--help` and usage errors are unaffected (checked in tests/cli.test.ts). A yargs without this
 * internal hook is left as it is.
 */
function skipHelpRendering(parser: Argv): void {
  const internal = (parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: unknown } } }).getInternalMethods?.();
  const usage = internal?.getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

/** Prints an error as one paragraph and returns its exit code. */
function report(error: unknown, ctx: CliContext, ran: boolean): number {
  const isYargsError = error instanceof Error && error.name === "YError";
  if (isYargsError || (!ran && !isWfError(error))) {
    ctx.stderr.write(`wf: ${(error as Error).message}\nRun \`wf --help\` (or \`wf <command> --help\`) for the usage.\n`);
    return EXIT.usage;
  }
  const code = exitCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  ctx.stderr.write(`wf: ${message}\n`);
  // Read without zod, as the other early flag (a malformed value fails resolveCliConfig, like any variable).
  if (earlyFlag(ctx.env, "WF_DEBUG") && error instanceof Error && error.stack) ctx.stderr.write(error.stack + "\n");
  return code;
}
