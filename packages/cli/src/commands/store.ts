/** `wf store backup <file>` and `wf store restore <file> --data-dir …`: back up and restore the embedded store. */
import { relative, resolve } from "node:path";
import { CliUsageError, EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const storeCommand = defineCommand({
  command: "store <action> <file>",
  describe: "Back up the server's embedded store to a file, or restore it from one (`wf store backup <file>`, `wf store restore <file> --data-dir <dir>`)",
  builder: (yargs) =>
    yargs
      .positional("action", { type: "string", choices: ["backup", "restore"], demandOption: true, describe: "`backup` or `restore`" })
      .positional("file", { type: "string", demandOption: true, describe: "The backup file (a gzipped PGlite dump, e.g. wf-store.tar.gz)" })
      .option("data-dir", { type: "string", describe: "The server's data folder [backup: default WF_DATA_DIR, wf.config.ts, else .wf; restore: required]" })
      .option("force", { type: "boolean", default: false, describe: "Restore: move a database already in the data folder aside (db.replaced-<time>; never deleted)" })
      .example("$0 store backup wf-store.tar.gz", "Back up .wf (stop the server first)")
      .example("$0 store restore wf-store.tar.gz --data-dir .wf --force", "Put a damaged store aside and restore the backup")
      .epilog("Stop every server on the data folder first: the embedded database is single-process. The backup holds the records; copy secret.key, screenshots/ and traces/ beside it. With WF_DATABASE_URL (PostgreSQL), use pg_dump / pg_restore.\nExit codes: 0 done, 1 the store is damaged or the file is not a backup, 2 usage error or a database already there without --force."),
  handler: async (args, context) => {
    const show = (path: string) => relative(context.cwd, path) || path;
    if (args.action === "backup") {
      const { backupStoreFile } = await import("../store.js");
      const result = await backupStoreFile({ file: args.file, dataDir: args["data-dir"], cwd: context.cwd, env: context.env });
      context.stdout.write(`backed up ${show(result.dataDir)} to ${show(result.file)} (${result.bytes} bytes)\n`);
      return EXIT.ok;
    }
    if (!args["data-dir"]) throw new CliUsageError("WF_CLI_USAGE", "`wf store restore` needs --data-dir: the data folder to restore into (the server's --data-dir / WF_DATA_DIR).");
    const { restoreStoreFile } = await import("../store.js");
    const result = await restoreStoreFile({ file: args.file, dataDir: args["data-dir"], force: args.force, cwd: context.cwd, env: context.env }).catch((error: unknown) => {
      if ((error as { code?: string })?.code === "WF_STORE_EXISTS") throw new CliUsageError("WF_CLI_USAGE", (error as Error).message, { cause: error });
      throw error;
    });
    context.stdout.write(`restored ${show(result.databaseDir)} from ${show(resolve(context.cwd, args.file))}${result.movedAside ? `; the database that was there is in ${show(result.movedAside)}` : ""}\n`);
    return EXIT.ok;
  },
});
