/** `wf show-report [dir]`: serves the HTML report of the last run and opens it in the browser, until Ctrl-C. */
import { resolve } from "node:path";
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const showReportCommand = defineCommand({
  command: "show-report [dir]",
  describe: "Serve the HTML report of the last wf run and open it in the browser, until Ctrl-C",
  builder: (yargs) =>
    yargs
      .positional("dir", { type: "string", describe: "The report folder [default: reportDir of wf.config.ts, or WF_REPORT_DIR, else wf-report]" })
      .option("port", { type: "number", describe: "Port to serve on (0: any free port) [default: 9323]" })
      .option("host", { type: "string", describe: "Interface to serve on [default: 127.0.0.1]" })
      .option("open", { type: "boolean", describe: "Open the page in the default browser; --no-open only prints its URL [default: true on a terminal]" })
      .example("$0 show-report", "Serve wf-report/ on http://127.0.0.1:9323 and open it")
      .example("$0 show-report ci-artifacts/wf-report --port 0 --no-open", "Serve a report downloaded from CI on any free port"),
  handler: async (args, context) => {
    const { CliUsageError } = await import("../errors.js");
    if (args.port !== undefined && (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)) {
      throw new CliUsageError("WF_CLI_USAGE", `--port must be a whole number from 0 to 65535, got ${args.port}.`);
    }
    let dir: string;
    if (args.dir !== undefined) dir = resolve(context.cwd, args.dir);
    else {
      const { resolveCliConfig } = await import("../config.js");
      dir = (await resolveCliConfig({ cwd: context.cwd, env: context.env })).reportDir;
    }
    const { showReport } = await import("../report/show.js");
    const shown = await showReport({
      dir,
      stdout: context.stdout,
      // Like Playwright: a browser opens for a person at a terminal, not in CI or a pipe.
      open: args.open ?? Boolean(context.stdout.isTTY),
      ...(args.port !== undefined ? { port: args.port } : {}),
      ...(args.host !== undefined ? { host: args.host } : {}),
    });
    if (!context.signal.aborted) await new Promise<void>((done) => context.signal.addEventListener("abort", () => done(), { once: true }));
    await shown.close();
    return EXIT.ok;
  },
});
