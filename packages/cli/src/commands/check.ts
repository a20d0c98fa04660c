/** `wf check <files..>`: type-checks workflow files and lints them. */
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const checkCommand = defineCommand({
  command: "check <files..>",
  describe: "Type-check workflow files (with the project's tsconfig) and run the plan lint; exit 1 on findings",
  builder: (yargs) =>
    yargs
      .positional("files", { type: "string", array: true, demandOption: true, describe: "Workflow files" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" })
      .example("$0 check workflows/*.ts", "Check every workflow in a folder")
      .epilog("Exit codes: 0 no findings, 1 findings, 2 a file does not exist."),
  handler: async (args, context) => {
    const { checkWorkflowFiles, formatFindings } = await import("../plan.js");
    const result = await checkWorkflowFiles(args.files.map(String), { cwd: context.cwd, modelConfigured: await (await import("../config.js")).modelConfigured(context) });
    if (args.json) {
      context.stdout.write(JSON.stringify(result, null, 2) + "\n");
    } else {
      for (const file of result.files) {
        if (file.findings.length > 0) context.stdout.write(formatFindings(file.findings, context.cwd).join("\n") + "\n");
        if (file.notes.length > 0) context.stdout.write(formatFindings(file.notes, context.cwd).join("\n") + "\n");
      }
      const n = result.findingCount;
      context.stdout.write(`${n === 0 ? "✔" : "✖"} ${result.files.length} file${result.files.length === 1 ? "" : "s"} checked, ${n} finding${n === 1 ? "" : "s"}\n`);
    }
    return result.findingCount > 0 ? EXIT.failed : EXIT.ok;
  },
});
