/**
 * Loading the stored workflows: every workflow file of the workflows folder, imported once at
 * start. A file that fails to load is reported (path and error) and the others still serve.
 */
import { readdir } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { WfError, isWorkflow, paramsJsonSchema, type Workflow } from "@wf/core";
import type { WorkflowInfo, WorkflowList } from "@wf/core/protocol";

/** Imports one module by absolute path and returns its namespace (`{ default, ... }`). */
export type ImportModule = (path: string) => Promise<unknown>;

/** File name endings of workflow files. `.d.ts` files are skipped. */
export const WORKFLOW_FILE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"] as const;

/** A workflow file could not be loaded. Code `WF_WORKFLOW_LOAD_FAILED`; `file` is relative to the folder. */
export class WorkflowLoadError extends WfError {
  override name = "WorkflowLoadError";
  /** The file, relative to the workflows folder. */
  readonly file: string;
  /** Why it failed, without the file name. */
  readonly reason: string;
  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super("WF_WORKFLOW_LOAD_FAILED", `${file}: ${reason}`, options);
    this.file = file;
    this.reason = reason;
  }
}

/** One loaded stored workflow. */
export interface StoredWorkflow {
  /** The workflow's `name`: the `workflowId` it is run by. */
  workflowId: string;
  workflow: Workflow;
  /** Absolute path of its file. */
  path: string;
  /** What `GET /workflows` lists for it. */
  info: WorkflowInfo;
}

/** What {@link loadStoredWorkflows} found. */
export interface StoredWorkflowCatalog {
  /** The folder read (absolute), or `null` when none is configured. */
  dir: string | null;
  /** Loaded workflows by `workflowId`. */
  workflows: ReadonlyMap<string, StoredWorkflow>;
  /** Files that failed to load, in file-name order. */
  errors: ReadonlyArray<WorkflowLoadError>;
}

/**
 * The default {@link ImportModule}: tsx's `tsImport`, so `.ts` workflow files load with no build
 * step. Each call loads the file in its own namespace.
 */
export const defaultImportModule: ImportModule = async (path) => {
  const { tsImport } = await import("tsx/esm/api");
  return (await tsImport(pathToFileURL(path).href, import.meta.url)) as unknown;
};

/**
 * Loads every workflow file directly inside `dir` (not sub-folders; files ending in
 * {@link WORKFLOW_FILE_EXTENSIONS}, except `.d.ts` and `.test.*`), in file-name order.
 *
 * A file loads when its default export is a workflow (`workflow(...)` of `@wf/core`). Its
 * `workflowId` is the workflow's `name`. A file that throws on import, has no workflow default
 * export, or reuses a name an earlier file took (the second file is the error) becomes a
 * {@link WorkflowLoadError} in `errors`; the others still load.
 *
 * @param dir - the workflows folder; `null`/`undefined` gives an empty catalog.
 * @param importModule - imports a file by absolute path. @default {@link defaultImportModule}
 * @throws {@link WfError} `WF_WORKFLOWS_DIR_UNREADABLE` when the folder cannot be read.
 */
export async function loadStoredWorkflows(
  dir: string | null | undefined,
  importModule: ImportModule = defaultImportModule,
): Promise<StoredWorkflowCatalog> {
  if (!dir) return { dir: null, workflows: new Map(), errors: [] };
  const root = resolve(dir);
  let names: string[];
  try {
    const entries = await readdir(root, { withFileTypes: true });
    names = entries.filter((e) => e.isFile() && isWorkflowFileName(e.name)).map((e) => e.name).sort();
  } catch (error) {
    throw new WfError(
      "WF_WORKFLOWS_DIR_UNREADABLE",
      `Cannot read the workflows folder ${root}: ${(error as Error).message}. Pass an existing folder to --workflows.`,
      { cause: error },
    );
  }
  const workflows = new Map<string, StoredWorkflow>();
  const errors: WorkflowLoadError[] = [];
  for (const name of names) {
    const path = join(root, name);
    const file = relative(root, path);
    let namespace: { default?: unknown } | null | undefined;
    try {
      namespace = (await importModule(path)) as typeof namespace;
    } catch (error) {
      errors.push(new WorkflowLoadError(file, `failed to load: ${firstLine(error)}`, { cause: error }));
      continue;
    }
    let candidate = namespace?.default;
    // A file compiled as CommonJS puts the ESM default one level down.
    if (!isWorkflow(candidate) && typeof candidate === "object" && candidate !== null && "default" in candidate) {
      candidate = (candidate as { default: unknown }).default;
    }
    if (!isWorkflow(candidate)) {
      errors.push(new WorkflowLoadError(file, `the default export is not a workflow; export default workflow({ name, ... }, handler).`));
      continue;
    }
    const existing = workflows.get(candidate.name);
    if (existing) {
      errors.push(
        new WorkflowLoadError(file, `workflow name "${candidate.name}" is already used by ${existing.info.file}; workflow names must be unique.`),
      );
      continue;
    }
    let params: Record<string, unknown> | null;
    try {
      params = paramsJsonSchema(candidate);
    } catch (error) {
      errors.push(new WorkflowLoadError(file, `its params cannot be described as JSON Schema: ${firstLine(error)}`, { cause: error }));
      continue;
    }
    workflows.set(candidate.name, {
      workflowId: candidate.name,
      workflow: candidate,
      path,
      info: { workflowId: candidate.name, description: candidate.description ?? null, params, file },
    });
  }
  return { dir: root, workflows, errors };
}

/** The body of `GET /workflows` for a catalog. */
export function toWorkflowList(catalog: StoredWorkflowCatalog): WorkflowList {
  return {
    workflows: [...catalog.workflows.values()].map((w) => w.info).sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
    errors: catalog.errors.map((e) => ({ file: e.file, message: e.message })),
  };
}

function isWorkflowFileName(name: string): boolean {
  if (name.endsWith(".d.ts") || name.endsWith(".d.mts") || /\.test\.[mc]?[jt]s$/.test(name)) return false;
  return WORKFLOW_FILE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}
