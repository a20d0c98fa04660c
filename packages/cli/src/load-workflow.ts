/**
 * Loading a workflow file: the user's TypeScript, compiled on the fly by tsx (no build step),
 * and its default-exported workflow.
 */
import { access } from "node:fs/promises";
import { resolve } from "node:path";
import { isWorkflow, isWfError, type Workflow } from "@wf/core";
import { importTs } from "./_import.js";
import { CliUsageError } from "./errors.js";

/**
 * Imports `file` with tsx (see `_import.ts`) and returns its default-exported workflow.
 *
 * @param file - path of a `.ts`/`.mts`/`.js` workflow file, relative to `cwd`.
 * @param cwd - @default process.cwd()
 * @param options.fresh - import it anew, with its helpers, rather than from the module cache (watch mode). @default false
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when the file does not exist,
 *   `WF_CLI_LOAD_FAILED` when it does not compile or throws while loading,
 *   `WF_CLI_NO_WORKFLOW` when its default export is not a `workflow(...)`.
 */
export async function loadWorkflowFile(file: string, cwd: string = process.cwd(), options: { fresh?: boolean } = {}): Promise<{ workflow: Workflow; path: string }> {
  const path = resolve(cwd, file);
  try {
    await access(path);
  } catch {
    throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `Workflow file not found: ${path}. Check the path (it is relative to ${cwd}).`, { path });
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importTs(path, options);
  } catch (error) {
    throw new CliUsageError("WF_CLI_LOAD_FAILED", `Could not load ${path}: ${describeLoadError(error)}\nFix the file and run again (\`wf check ${file}\` type-checks it).`, {
      cause: error,
      path,
    });
  }
  let candidate = mod.default;
  // A file compiled as CommonJS puts the ESM default one level down.
  if (!isWorkflow(candidate) && candidate && typeof candidate === "object" && "default" in candidate) candidate = (candidate as { default: unknown }).default;
  if (!isWorkflow(candidate)) {
    const named = Object.entries(mod).filter(([, v]) => isWorkflow(v)).map(([k]) => k);
    throw new CliUsageError(
      "WF_CLI_NO_WORKFLOW",
      `${path} has no default-exported workflow` +
        (named.length ? ` (it exports ${named.map((n) => `"${n}"`).join(", ")} by name)` : "") +
        `. End the file with \`export default workflow({ name: "my-workflow" }, async ({ params }) => { ... })\`.`,
      { path },
    );
  }
  return { workflow: candidate, path };
}

function describeLoadError(error: unknown): string {
  if (isWfError(error)) return error.message;
  if (!(error instanceof Error)) return String(error);
  // esbuild's "Transform failed with N errors:\n<file>:<line>:<col>: ERROR: ..." is already one paragraph.
  const first = error.message.split("\n").filter((l) => l.trim()).slice(0, 4).join("\n  ");
  return `${error.name === "Error" ? "" : `${error.name}: `}${first}`;
}
