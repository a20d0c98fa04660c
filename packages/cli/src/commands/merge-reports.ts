/** `wf merge-reports <dirs..>`: one HTML report and one JUnit file from the reports of `wf run --shard i/n` runs. */
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const mergeReportsCommand = defineCommand({
  command: "merge-reports <dirs..>",
  describe: "Merge the report folders of sharded runs (wf run --shard i/n) into one HTML report and one JUnit file",
  builder: (yargs) =>
    yargs
      .positional("dirs", { type: "string", array: true, describe: "The shards' report folders, in shard order" })
      .option("report-dir", { type: "string", describe: "Where the merged report goes [default: reportDir of wf.config.ts, or WF_REPORT_DIR, else wf-report]" })
      .example("$0 merge-reports shard-1/wf-report shard-2/wf-report", "One report in wf-report/ (index.html, report.json, junit.xml)")
      .example("$0 merge-reports all-reports/* --report-dir merged", "Every downloaded shard report, merged into merged/"),
  handler: async (args, context) => {
    const { resolveCliConfig } = await import("../config.js");
    const config = await resolveCliConfig({ cwd: context.cwd, env: context.env, flags: { reportDir: args["report-dir"] } });
    const { mergeReports } = await import("../report/merge.js");
    const merged = await mergeReports({ dirs: (args.dirs ?? []).map(String), outDir: config.reportDir, cwd: context.cwd });
    const { stats } = merged.data;
    const counts = Object.entries(stats)
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => `${n} ${outcome}`)
      .join(", ");
    context.stdout.write(
      `Merged ${(args.dirs ?? []).length} reports: ${merged.data.workflows.length} workflow runs (${counts || "none"}), ${merged.data.status}.\n` +
        `  HTML report: ${merged.data.reportDir}/index.html (open it with: wf show-report ${merged.data.reportDir})\n` +
        `  JUnit: ${merged.data.reportDir}/junit.xml\n`,
    );
    return EXIT.ok;
  },
});
