/** `wf plan <file>`: lists a workflow's steps without running it, and lints them. */
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const planCommand = defineCommand({
  command: "plan <file>",
  describe: "List a workflow file's act/ask steps in source order, without running it, and flag problems",
  builder: (yargs) =>
    yargs
      .positional("file", { type: "string", demandOption: true, describe: "The workflow file" })
      .option("json", { type: "boolean", default: false, describe: "Print the plan as JSON" })
      .example("$0 plan workflows/search.ts", "Show the steps and the findings")
      .epilog("Exit codes: 0 no findings, 1 findings, 2 the file does not exist."),
  handler: async (args, context) => {
    // Loaded here, not at start-up: only plan and check need ts-morph's wrappers.
    const { formatPlan, planWorkflowFile } = await import("../plan.js");
    // A model is configured by WF_MODEL (the config's `model` field is wired in by the caller).
    const result = await planWorkflowFile(args.file, { cwd: context.cwd, modelConfigured: await (await import("../config.js")).modelConfigured(context) });
    context.stdout.write((args.json ? JSON.stringify(result, null, 2) : formatPlan(result, context.cwd)) + "\n");
    return result.findings.length > 0 ? EXIT.failed : EXIT.ok;
  },
});
