/** `wf lock <file>`, `wf lock <file> --prune` and `wf lock diff [files..]`: list, maintain and review action locks. */
import { relative } from "node:path";
import { CliUsageError, EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const lockCommand = defineCommand({
  command: "lock <target> [files..]",
  describe: "List, maintain and review action locks (<name>.wf.lock.json): `wf lock <file>` lists the entries and the reads with no recipe (and why); `wf lock diff` shows what changed since git HEAD; `wf lock <file> --prune` removes entries no act() call uses",
  builder: (yargs) =>
    yargs
      .positional("target", { type: "string", demandOption: true, describe: "`diff`, or a workflow file (or its lock file) to list or --prune" })
      .positional("files", { type: "string", array: true, default: [] as string[], describe: "With diff: lock files or workflow files [default: every lock file git sees changed]" })
      .option("prune", { type: "boolean", default: false, describe: "Remove the entries whose call site is gone or now says something else" })
      .option("dry-run", { type: "boolean", default: false, describe: "With --prune: list what would go, write nothing" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON: with diff, per file lockPath, base, changes with old and new entries; a list, lockPath, exists, entries (entry, kind act|read|model, detail)" })
      .example("$0 lock flows/orders.ts", "Each entry of the lock: an act's actions, what a read's recipe reads, why a read has none (it goes to the model on every run)")
      .example("$0 lock diff", "What a heal or write run changed in the locks, against the committed ones")
      .example("$0 lock diff flows/sign-in.ts", "The same for one workflow's lock")
      .example("$0 lock flows/sign-in.ts --prune", "Drop entries of act() calls that were removed or moved")
      .epilog("Exit codes: 0 done, 2 usage error, a file that is not a wf lock, the file does not exist (--prune), or (diff) not in a git work tree."),
  handler: async (args, context) => {
    const files = (args.files ?? []).map(String);
    if (args.target === "diff") {
      const { diffLockFiles, formatLockDiff } = await import("../lock-diff.js");
      const diffs = await diffLockFiles(files, { cwd: context.cwd });
      context.stdout.write(args.json ? JSON.stringify(diffs, null, 2) + "\n" : formatLockDiff(diffs, context.cwd));
      return EXIT.ok;
    }
    if (files.length > 0) throw new CliUsageError("WF_CLI_USAGE", `\`wf lock <file> --prune\` takes one workflow file; got ${files.length + 1}. Did you mean \`wf lock diff ${[args.target, ...files].join(" ")}\`?`);
    if (!args.prune) {
      if (files.length > 0) throw new CliUsageError("WF_CLI_USAGE", `\`wf lock <file>\` lists one workflow's lock; got ${files.length + 1} files. Did you mean \`wf lock diff ${[args.target, ...files].join(" ")}\`?`);
      if (args["dry-run"]) throw new CliUsageError("WF_CLI_USAGE", "--dry-run goes with --prune: `wf lock <file> --prune --dry-run` lists what would be removed.");
      const { listLock } = await import("../lock.js");
      let listed: Awaited<ReturnType<typeof listLock>>;
      try {
        listed = await listLock(args.target, { cwd: context.cwd });
      } catch (error) {
        throw new CliUsageError("WF_CLI_CONFIG_INVALID", (error as Error).message, { path: args.target });
      }
      if (args.json) {
        context.stdout.write(JSON.stringify(listed, null, 2) + "\n");
        return EXIT.ok;
      }
      const show = relative(context.cwd, listed.lockPath) || listed.lockPath;
      if (!listed.exists) {
        context.stdout.write(`${show}: no lock file (record one with \`wf run ${args.target} --lock write\`, a model configured)\n`);
        return EXIT.ok;
      }
      const count = (kind: string) => listed.entries.filter((e) => e.kind === kind).length;
      const acts = count("act");
      const reads = count("read");
      const checks = count("check");
      const model = count("model");
      const parts = [
        `${acts} act${acts === 1 ? "" : "s"}`,
        `${reads} read${reads === 1 ? "" : "s"} replayed by a recipe`,
        ...(checks > 0 ? [`${checks} check${checks === 1 ? "" : "s"} replayed by a recipe`] : []),
        `${model} read${model === 1 ? "" : "s"} with no recipe`,
      ];
      context.stdout.write(`${show}: ${listed.entries.length} entr${listed.entries.length === 1 ? "y" : "ies"} (${parts.join(", ")})\n`);
      for (const e of listed.entries) {
        const detail = e.kind === "model" ? `no recipe, goes to the model on every run (fails WF_LOCK_MISSING under --lock frozen): ${e.detail}` : e.detail;
        context.stdout.write(`  ${e.kind.padEnd(5)} ${e.entry}: ${detail}\n`);
      }
      return EXIT.ok;
    }
    const { pruneLock } = await import("../lock.js");
    const result = await pruneLock(args.target, { cwd: context.cwd, dryRun: args["dry-run"] });
    const show = relative(context.cwd, result.lockPath) || result.lockPath;
    for (const { entry, reason } of result.removed) context.stdout.write(`${args["dry-run"] ? "would remove" : "removed"} ${JSON.stringify(entry.instruction)} at ${entry.callSite}: ${reason}\n`);
    context.stdout.write(`${show}: ${result.removed.length} entr${result.removed.length === 1 ? "y" : "ies"} ${args["dry-run"] ? "to remove" : "removed"}, ${result.kept} kept\n`);
    return EXIT.ok;
  },
});
