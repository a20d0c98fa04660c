/**
 * `wf workflows`: lists the stored workflows the service offers, with their params, and the
 * workflow files it could not load.
 */
import { createColors } from "picocolors";
import type { WorkflowInfo, WorkflowList } from "@wf/core/protocol";
import { EXIT, type ExitCode } from "../errors.js";
import { defineCommand } from "./_types.js";
import type { TextSink } from "../trigger.js";

/** The part of the `@wf/runtime` service client that `wf workflows` uses. */
export interface WorkflowsClient {
  listWorkflows(): Promise<WorkflowList>;
}

/** Options of {@link listStoredWorkflows}. */
export interface ListWorkflowsOptions {
  client: WorkflowsClient;
  /** Print the service's answer as JSON instead of a table. @default false */
  json?: boolean;
  /** @default process.stdout */
  stdout?: TextSink;
  /** Where the files that failed to load are reported (table mode). @default process.stderr */
  stderr?: TextSink;
  /** Colour the table. @default false */
  color?: boolean;
}

/**
 * Fetches `GET /apis/request/workflows` and prints it: a table of id, params and description
 * (required params bare, optional ones with `?`), then the files that failed to load; or, with
 * `json`, the answer as is.
 *
 * @returns exit code 0, and the list.
 * @throws the client's `ServiceError` when the service refuses or cannot be reached.
 */
export async function listStoredWorkflows(options: ListWorkflowsOptions): Promise<{ exitCode: ExitCode; list: WorkflowList }> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const list = await options.client.listWorkflows();
  if (options.json) {
    stdout.write(JSON.stringify(list, null, 2) + "\n");
    return { exitCode: EXIT.ok, list };
  }
  const c = createColors(options.color ?? false);
  if (list.workflows.length === 0) {
    stdout.write("The service offers no stored workflows. Start it with `wf serve --workflows <dir>`.\n");
  } else {
    const rows = list.workflows.map((w) => [w.workflowId, describeParams(w), w.description ?? ""]);
    const header = ["WORKFLOW", "PARAMS", "DESCRIPTION"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd();
    stdout.write(c.bold(line(header)) + "\n");
    for (const row of rows) stdout.write(line(row) + "\n");
  }
  if (list.errors.length > 0) {
    stderr.write(c.yellow(`${list.errors.length} workflow file(s) failed to load:`) + "\n");
    for (const error of list.errors) stderr.write(`  ${error.message.startsWith(error.file) ? error.message : `${error.file}: ${error.message}`}\n`);
  }
  return { exitCode: EXIT.ok, list };
}

/** `url, rounds?` from the params' JSON Schema: required names bare, optional ones with `?`. */
function describeParams(info: WorkflowInfo): string {
  const schema = info.params as { properties?: Record<string, unknown>; required?: unknown } | null;
  if (!schema?.properties) return "-";
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(schema.properties).map((name) => (required.has(name) ? name : `${name}?`));
  return names.length > 0 ? names.join(", ") : "-";
}

export const workflowsCommand = defineCommand({
  command: "workflows",
  describe: "List the stored workflows the service offers, with their params",
  builder: (yargs) =>
    yargs
      .option("json", { type: "boolean", default: false, describe: "Print the service's answer as JSON" })
      .option("service-url", { type: "string", describe: "The wf service (else WF_SERVICE_URL or serviceUrl in wf.config.ts)" })
      .option("base-url", { type: "string", hidden: true, describe: "Deprecated: the old name of --service-url" })
      .option("api-key", { type: "string", describe: "The service's API key (else WF_API_KEY or wf.config.ts)" })
      .example("$0 workflows", "A table of ids, params and descriptions")
      .example("$0 workflows --json", "The list as JSON, with the files that failed to load"),
  handler: async (args, context) => {
    const { asUsageError, openServiceClient, wantsColor } = await import("../trigger.js");
    const { client, config } = await openServiceClient(context, { serviceUrl: args["service-url"], baseUrl: args["base-url"], apiKey: args["api-key"] });
    for (const notice of config.notices) context.stderr.write(`wf: ${notice}\n`);
    try {
      const result = await listStoredWorkflows({
        client,
        json: args.json,
        stdout: context.stdout,
        stderr: context.stderr,
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
