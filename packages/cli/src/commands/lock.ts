/** `wf lock <file> --prune` and `wf lock diff [files..]`: maintain and review action locks. */
import { relative } from "node:path";
import { CliUsageError, EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const lockCommand = defineCommand({
  command: "lock <target> [files..]",
  describe: "Maintain and review action locks (<name>.wf.lock.json): `wf lock diff` shows what changed since git HEAD; `wf lock <file> --prune` removes entries no act() call uses",
  builder: (yargs) =>
    yargs
      .positional("target", { type: "string", demandOption: true, describe: "`diff`, or the workflow file to --prune" })
      .positional("files", { type: "string", array: true, default: [] as string[], describe: "With diff: lock files or workflow files [default: every lock file git sees changed]" })
      .option("prune", { type: "boolean", default: false, describe: "Remove the entries whose call site is gone or now says something else" })
      .option("dry-run", { type: "boolean", default: false, describe: "With --prune: list what would go, write nothing" })
      .option("json", { type: "boolean", default: false, describe: "With diff: print the changes as JSON (per file: lockPath, base, changes with old and new entries)" })
      .example("$0 lock diff", "What a heal or write run changed in the locks, against the committed ones")
      .example("$0 lock diff flows/sign-in.ts", "The same for one workflow's lock")
      .example("$0 lock flows/sign-in.ts --prune", "Drop entries of act() calls that were removed or moved")
      .epilog("Exit codes: 0 done, 2 usage error, the file does not exist, or (diff) not in a git work tree."),
  handler: async (args, context) => {
    const files = (args.files ?? []).map(String);
    if (args.target === "diff") {
      const { diffLockFiles, formatLockDiff } = await import("../lock-diff.js");
      const diffs = await diffLockFiles(files, { cwd: context.cwd });
      context.stdout.write(args.json ? JSON.stringify(diffs, null, 2) + "\n" : formatLockDiff(diffs, context.cwd));
      return EXIT.ok;
    }
    if (files.length > 0) throw new CliUsageError("WF_CLI_USAGE", `\`wf lock <file> --prune\` takes one workflow file; got ${files.length + 1}. Did you mean \`wf lock diff ${[args.target, ...files].join(" ")}\`?`);
    if (!args.prune) throw new CliUsageError("WF_CLI_USAGE", "Say what to do with the lock: `wf lock diff [files]` (what changed since git HEAD), or `wf lock <file> --prune` (add --dry-run to only list).");
    const { pruneLock } = await import("../lock.js");
    const result = await pruneLock(args.target, { cwd: context.cwd, dryRun: args["dry-run"] });
    const show = relative(context.cwd, result.lockPath) || result.lockPath;
    for (const { entry, reason } of result.removed) context.stdout.write(`${args["dry-run"] ? "would remove" : "removed"} ${JSON.stringify(entry.instruction)} at ${entry.callSite}: ${reason}\n`);
    context.stdout.write(`${show}: ${result.removed.length} entr${result.removed.length === 1 ? "y" : "ies"} ${args["dry-run"] ? "to remove" : "removed"}, ${result.kept} kept\n`);
    return EXIT.ok;
  },
});
