/** `wf install-browser`: a Chromium for the embedded server, with one command. */
import { defineCommand } from "./_types.js";

export const installBrowserCommand = defineCommand({
  command: "install-browser",
  describe: "Install a Chromium for wf run / wf serve: Playwright's download, else the system's (apt-get as root on Debian/Ubuntu)",
  builder: (yargs) =>
    yargs
      .option("dry-run", { type: "boolean", default: false, describe: "Print what it would run; run nothing" })
      .example("$0 install-browser", "Install a Chromium unless one is already there")
      .example("$0 install-browser --dry-run", "Show the commands it would run")
      .epilog(
        "Does nothing when a Chromium that starts is found where the server looks (WF_CHROMIUM_PATH, the usual system paths, Playwright's own). " +
          "Else runs `playwright install chromium`; when that fails (no network, unsupported system), `apt-get install -y chromium fonts-liberation` as root on Debian/Ubuntu, else prints the command to run.\n" +
          "Exit codes: 0 a Chromium is there (or --dry-run), 1 none could be installed from here (the command to run is printed).",
      ),
  handler: async (args, context) => {
    const { installBrowser } = await import("../install-browser.js");
    const result = await installBrowser({ dryRun: args["dry-run"], env: context.env, stdout: context.stdout, stderr: context.stderr, signal: context.signal });
    return result.exitCode;
  },
});
