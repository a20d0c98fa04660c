/** `wf lock <file> --prune`: removes the action-lock entries no call site uses any more. */
import { relative } from "node:path";
import { CliUsageError, EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const lockCommand = defineCommand({
  command: "lock <file>",
  describe: "Maintain a workflow's action lock (<name>.wf.lock.json): --prune removes entries no act() call uses",
  builder: (yargs) =>
    yargs
      .positional("file", { type: "string", demandOption: true, describe: "The workflow file" })
      .option("prune", { type: "boolean", default: false, describe: "Remove the entries whose call site is gone or now says something else" })
      .option("dry-run", { type: "boolean", default: false, describe: "With --prune: list what would go, write nothing" })
      .example("$0 lock flows/sign-in.ts --prune", "Drop entries of act() calls that were removed or moved")
      .epilog("Exit codes: 0 done, 2 usage error or the file does not exist."),
  handler: async (args, context) => {
    if (!args.prune) throw new CliUsageError("WF_CLI_USAGE", "Say what to do with the lock: `wf lock <file> --prune` (add --dry-run to only list).");
    const { pruneLock } = await import("../lock.js");
    const result = await pruneLock(args.file, { cwd: context.cwd, dryRun: args["dry-run"] });
    const show = relative(context.cwd, result.lockPath) || result.lockPath;
    for (const { entry, reason } of result.removed) context.stdout.write(`${args["dry-run"] ? "would remove" : "removed"} ${JSON.stringify(entry.instruction)} at ${entry.callSite}: ${reason}\n`);
    context.stdout.write(`${show}: ${result.removed.length} entr${result.removed.length === 1 ? "y" : "ies"} ${args["dry-run"] ? "to remove" : "removed"}, ${result.kept} kept\n`);
    return EXIT.ok;
  },
});
