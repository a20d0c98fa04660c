/** `wf run <file>`: runs a workflow file. */
import { REPORTERS, type ReporterName } from "../config.js";
import { parseParamFlags } from "../params.js";
import { runWorkflowFile } from "../run.js";
import { defineCommand } from "./_types.js";

export const runCommand = defineCommand({
  command: "run <file>",
  describe: "Run a workflow file (the embedded server unless a base URL is configured)",
  builder: (yargs) =>
    yargs
      .positional("file", { type: "string", demandOption: true, describe: "The workflow file (.ts), default-exporting workflow(...)" })
      .option("param", { alias: "p", type: "string", array: true, default: [] as string[], describe: "A param as key=value (repeatable); converted by the param's zod type" })
      .option("params-file", { type: "string", describe: "A JSON object of params; --param overrides its fields" })
      .option("base-url", { type: "string", describe: "The wf service to use (else WF_BASE_URL, wf.config.ts, or an embedded server)" })
      .option("api-key", { type: "string", describe: "The service's API key (else WF_API_KEY or wf.config.ts)" })
      .option("reporter", { alias: "r", choices: REPORTERS, describe: "pretty: live steps for people; json: the run record at the end; ndjson: one event per line [default: pretty]" })
      .option("out", { alias: "o", type: "string", describe: "Write the run record (JSON, secrets redacted) to this file" })
      .option("timeout", { type: "number", describe: "Abort the whole run after this many ms (status cancelled, exit 1)" })
      .option("model", { type: "string", describe: "Model for free-form steps on the embedded server, e.g. gpt-4.1-mini (else wf.config.ts model, or WF_MODEL; provider from OPENAI_API_KEY / OPENAI_BASE_URL)" })
      .option("lock", {
        choices: ["read", "write", "heal", "off"] as const,
        describe:
          "The action lock beside the workflow (<name>.wf.lock.json): read = replay recorded steps without the model; write = record what the model resolves; heal = replay, and let the model repair a step that no longer replays; off [default: heal with a model, else read; read on CI (CI=true); or lock in wf.config.ts]",
      })
      .example("$0 run workflows/search.ts --param query=postgres", "Run on the embedded server with one param")
      .example("$0 run flow.ts --params-file params.json --reporter json --out run.json", "Params from a file; print and save the run record")
      .example("WF_BASE_URL=http://127.0.0.1:8787 WF_API_KEY=… $0 run flow.ts", "Run on a service started with `wf serve`")
      .example("OPENAI_API_KEY=sk-… $0 run flow.ts --model gpt-4.1-mini", "Free-form steps through a model")
      .example("$0 run flow.ts --lock write --model gpt-4.1-mini", "Record flow.wf.lock.json; later runs replay it with no model call")
      .epilog("Exit codes: 0 succeeded, 1 the workflow failed or timed out, 2 usage or configuration error, 130 interrupted (Ctrl-C; the session is closed first)."),
  handler: async (args, context) => {
    if (args.timeout !== undefined && (!Number.isInteger(args.timeout) || args.timeout <= 0)) {
      const { CliUsageError } = await import("../errors.js");
      throw new CliUsageError("WF_CLI_USAGE", `--timeout must be a whole number of milliseconds above 0, got ${args.timeout}.`);
    }
    // Start loading the runtime (the service client) now: it arrives while the config and the
    // workflow file load, instead of after them.
    import("@wf/runtime").catch(() => {});
    const result = await runWorkflowFile({
      file: args.file,
      cwd: context.cwd,
      env: context.env,
      stdout: context.stdout,
      stderr: context.stderr,
      signal: context.signal,
      params: parseParamFlags(args.param.map(String)),
      ...(args["params-file"] !== undefined ? { paramsFile: args["params-file"] } : {}),
      ...(args["base-url"] !== undefined ? { baseUrl: args["base-url"] } : {}),
      ...(args["api-key"] !== undefined ? { apiKey: args["api-key"] } : {}),
      ...(args.reporter !== undefined ? { reporter: args.reporter as ReporterName } : {}),
      ...(args.out !== undefined ? { out: args.out } : {}),
      ...(args.timeout !== undefined ? { timeoutMs: args.timeout } : {}),
      ...(args.model !== undefined ? { model: args.model } : {}),
      ...(args.lock !== undefined ? { lock: args.lock } : {}),
    });
    return result.exitCode;
  },
});
