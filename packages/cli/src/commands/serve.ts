/** `wf serve`: runs the wf service until Ctrl-C. */
import { EXIT } from "../errors.js";
import { defineCommand } from "./_types.js";

export const serveCommand = defineCommand({
  command: "serve",
  describe: "Run the wf service (@wf/server) until Ctrl-C; prints its URL and API key",
  builder: (yargs) =>
    yargs
      .option("port", { type: "number", describe: "Port to listen on (0: any free port) [default: the server's, or WF_PORT]" })
      .option("host", { type: "string", describe: "Interface to listen on [default: 127.0.0.1, or WF_HOST]" })
      .option("workflows", { type: "string", describe: "A folder of workflow files to serve as stored workflows (run by id)" })
      .option("data-dir", { type: "string", describe: "Where session and run records are kept [default: the server's, or WF_DATA_DIR]" })
      .option("api-key", { type: "string", describe: "The key clients must send [default: WF_API_KEY, else a random one]" })
      .option("model", { type: "string", describe: "Model for free-form steps, e.g. gpt-4.1-mini or qwen2.5:7b (else wf.config.ts model, or WF_MODEL; provider from OPENAI_API_KEY / OPENAI_BASE_URL) [default: none]" })
      .option("allow-file-urls", { type: "boolean", describe: "Let steps open file: URLs on this machine (anyone with the key can then read its files) [default: WF_ALLOW_FILE_URLS, else false]" })
      .option("write-locks", { type: "boolean", describe: "Let stored runs record and heal the action lock beside each workflow file (else they only replay it) [default: WF_WRITE_LOCKS, else false]" })
      .example("$0 serve --port 8787", "Serve on http://127.0.0.1:8787")
      .example("$0 serve --workflows workflows --data-dir .wf", "Serve stored workflows from a folder")
      .example("$0 serve --workflows examples/pg-numeric-types --allow-file-urls", "Serve an example that reads local docs (file: URLs)"),
  handler: async (args, context) => {
    const { serve } = await import("../serve.js");
    await serve({
      cwd: context.cwd,
      env: context.env,
      stdout: context.stdout,
      signal: context.signal,
      ...(args.port !== undefined ? { port: args.port } : {}),
      ...(args.host !== undefined ? { host: args.host } : {}),
      ...(args.workflows !== undefined ? { workflowsDir: args.workflows } : {}),
      ...(args["data-dir"] !== undefined ? { dataDir: args["data-dir"] } : {}),
      ...(args["api-key"] !== undefined ? { apiKey: args["api-key"] } : {}),
      ...(args["allow-file-urls"] !== undefined ? { allowFileUrls: args["allow-file-urls"] } : {}),
      ...(args.model !== undefined ? { model: args.model } : {}),
      ...(args["write-locks"] !== undefined ? { writeLocks: args["write-locks"] } : {}),
    });
    context.stdout.write("wf server stopped.\n");
    return EXIT.ok;
  },
});
