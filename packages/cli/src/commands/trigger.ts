/**
 * `wf trigger <workflowId>`: the command's flags; what it does is in `../trigger.ts`, loaded only
 * when it runs (so `wf --help` and other commands do not load it).
 */
import { TRIGGER_REPORTERS } from "../names.js";
import { defineCommand } from "./_types.js";

export const triggerCommand = defineCommand({
  command: "trigger <workflowId>",
  describe: "Run a stored workflow on the service by its id; --wait follows it to its end",
  builder: (yargs) =>
    yargs
      .positional("workflowId", { type: "string", demandOption: true, describe: "The stored workflow's id (its name; see `wf workflows`)" })
      .option("var", { alias: ["param", "p"], type: "string", array: true, default: [] as string[], describe: "A variable as key=value (repeatable; --param is the same, as on `wf run`); unknown names are refused" })
      .option("vars-file", { alias: "params-file", type: "string", describe: "A JSON object of variables (--params-file is the same, as on `wf run`); --var overrides its fields" })
      .option("proxy", { type: "boolean", default: false, describe: "Run the browser behind the service's configured proxy (WF_PROXY_URL on the server)" })
      .option("wait", { type: "boolean", default: false, describe: "Follow the run to its end, print each finished step and the output, exit by its outcome" })
      .option("reporter", { alias: "r", choices: TRIGGER_REPORTERS, describe: "As `wf run` on one workflow: pretty for people; json: the run record at the end; ndjson: one event per line [default: pretty]" })
      .option("cancel-on-interrupt", { type: "boolean", default: false, describe: "On Ctrl-C during --wait, cancel the run on the service too (else it goes on)" })
      .option("service-url", { type: "string", describe: "The wf service (else WF_SERVICE_URL or serviceUrl in wf.config.ts)" })
      .option("base-url", { type: "string", hidden: true, describe: "Deprecated: the old name of --service-url" })
      .option("api-key", { type: "string", describe: "The service's API key (else WF_API_KEY or wf.config.ts)" })
      .example("$0 trigger read-title --var url=https://example.org --wait", "Run it and wait for the output")
      .example("$0 trigger nightly-report --vars-file vars.json --reporter json", "Start it; print {sessionId, previewUrl} as JSON")
      .example("$0 trigger nightly-report --wait --reporter json > run.json", "Wait; save the run record (the shape of `wf run --reporter json`)")
      .epilog(
        "Exit codes: 0 started (or, with --wait, succeeded), 1 the run failed or was cancelled, 2 usage or configuration error " +
          "(unknown workflow, invalid variables, --proxy without a proxy on the server, no service), 130 interrupted. " +
          "Ctrl-C stops waiting; the run goes on unless --cancel-on-interrupt.",
      ),
  handler: async (args, context) => {
    const { asUsageError, openServiceClient, parseVariables, triggerWorkflow, wantsColor } = await import("../trigger.js");
    const variables = await parseVariables(args.var.map(String), args["vars-file"], context.cwd);
    const { client, config } = await openServiceClient(context, { serviceUrl: args["service-url"], baseUrl: args["base-url"], apiKey: args["api-key"] });
    for (const notice of config.notices) context.stderr.write(`wf: ${notice}\n`);
    const reporter: (typeof TRIGGER_REPORTERS)[number] = args.reporter ?? ((TRIGGER_REPORTERS as readonly string[]).includes(config.reporter) ? (config.reporter as (typeof TRIGGER_REPORTERS)[number]) : "pretty");
    try {
      const result = await triggerWorkflow({
        workflowId: args.workflowId,
        variables,
        proxy: args.proxy,
        wait: args.wait,
        reporter,
        cancelOnInterrupt: args["cancel-on-interrupt"],
        client,
        signal: context.signal,
        stdout: context.stdout,
        stderr: context.stderr,
        env: config.env,
        color: wantsColor(context.stdout, config.env),
      });
      return result.exitCode;
    } catch (error) {
      throw asUsageError(error);
    } finally {
      await client.close();
    }
  },
});
