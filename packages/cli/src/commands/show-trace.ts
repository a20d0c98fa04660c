/** `wf show-trace <file>`: serves a trace.zip in Playwright's trace viewer and opens it, until Ctrl-C. */
import { resolve } from "node:path";
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const showTraceCommand = defineCommand({
  command: "show-trace <file>",
  describe: "Open a Playwright trace (a trace.zip of the report) in Playwright's trace viewer, until Ctrl-C",
  builder: (yargs) =>
    yargs
      .positional("file", { type: "string", demandOption: true, describe: "The trace zip, e.g. wf-report/checkout/trace.zip" })
      .option("port", { type: "number", describe: "Port to serve on (0: any free port) [default: 9323]" })
      .option("host", { type: "string", describe: "Interface to serve on [default: 127.0.0.1]" })
      .option("open", { type: "boolean", describe: "Open the viewer in the default browser; --no-open only prints its URL [default: true on a terminal]" })
      .example("$0 show-trace wf-report/checkout/trace.zip", "Open the failed workflow's trace"),
  handler: async (args, context) => {
    const { CliUsageError } = await import("../errors.js");
    if (args.port !== undefined && (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)) {
      throw new CliUsageError("WF_CLI_USAGE", `--port must be a whole number from 0 to 65535, got ${args.port}.`);
    }
    const { showTrace } = await import("../report/show.js");
    const shown = await showTrace({
      file: resolve(context.cwd, args.file),
      stdout: context.stdout,
      open: args.open ?? Boolean(context.stdout.isTTY),
      ...(args.port !== undefined ? { port: args.port } : {}),
      ...(args.host !== undefined ? { host: args.host } : {}),
    });
    if (!context.signal.aborted) await new Promise<void>((done) => context.signal.addEventListener("abort", () => done(), { once: true }));
    await shown.close();
    return EXIT.ok;
  },
});
