/**
 * Which workflow runs a `wf run` makes, from the workflows found, in Playwright Test's order: each
 * workflow once per project (`projects` of wf.config.ts, `--project`), then `--grep` /
 * `--grep-invert` (on the project, file, name and tags, as Playwright matches), then
 * `--last-failed` (the failed set the last run kept in `<reportDir>/.last-run.json`), then
 * `--repeat-each`, then `--shard`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ResolvedProject } from "./projects.js";
import { CliUsageError } from "./errors.js";
import { shardOf, type Shard } from "./shard.js";
import type { SuiteResult, WorkflowEntry } from "./suite-result.js";

/** The file the failed set is kept in, in the report folder (Playwright keeps `.last-run.json` in its output folder). */
export const LAST_RUN_FILE = ".last-run.json";

/** What a run selects, and how. */
export interface SelectOptions {
  /** The projects to run each workflow in; empty: once, with no project. */
  projects?: ReadonlyArray<ResolvedProject>;
  grep?: string | undefined;
  grepInvert?: string | undefined;
  /** `--last-failed`: the ids ({@link entryId}) of the workflow runs that failed last time. */
  lastFailed?: ReadonlySet<string> | undefined;
  repeatEach?: number;
  shard?: Shard | undefined;
}

/** What {@link selectEntries} picked: everything selected, and the part this shard runs. */
export interface Selection {
  /** After projects, grep, last-failed and repeat-each. */
  selected: WorkflowEntry[];
  /** `selected`, or this shard's part of it. */
  entries: WorkflowEntry[];
  /** Whether grep, last-failed or the shard left out workflows (CLI params then bind only where declared, unknown names are no error). */
  cut: boolean;
}

/**
 * Selects the runs of `found` (see the module comment).
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for a grep that is not a regular expression.
 */
export function selectEntries(found: ReadonlyArray<WorkflowEntry>, options: SelectOptions): Selection {
  const withProjects = inProjects(found, options.projects ?? []);
  const grepped = selectWorkflows(withProjects, options.grep, options.grepInvert);
  const failed = options.lastFailed ? grepped.filter((e) => options.lastFailed!.has(entryId(e))) : grepped;
  const selected = repeatWorkflows(failed, options.repeatEach ?? 1);
  const entries = options.shard ? shardOf(selected, options.shard) : selected;
  return { selected, entries, cut: options.grep !== undefined || options.grepInvert !== undefined || options.lastFailed !== undefined || options.shard !== undefined };
}

/** Each workflow once per project, project by project (Playwright's order); unchanged without projects. */
export function inProjects(entries: ReadonlyArray<WorkflowEntry>, projects: ReadonlyArray<ResolvedProject>): WorkflowEntry[] {
  if (projects.length === 0) return [...entries];
  return projects.flatMap((project) => entries.map((entry) => ({ ...entry, project })));
}

/**
 * Keeps the workflows whose text matches `grep` and does not match `grepInvert` (regular
 * expressions). The text is Playwright's: the project, the file, the name and the tags, joined by
 * spaces (`mobile flows/cart.ts cart @smoke`).
 *
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for an invalid expression.
 */
export function selectWorkflows(entries: WorkflowEntry[], grep?: string, grepInvert?: string): WorkflowEntry[] {
  const compile = (source: string, flag: string) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw new CliUsageError("WF_CLI_USAGE", `${flag} ${JSON.stringify(source)} is not a regular expression: ${(error as Error).message}.`);
    }
  };
  const keep = grep ? compile(grep, "--grep") : undefined;
  const drop = grepInvert ? compile(grepInvert, "--grep-invert") : undefined;
  return entries.filter((e) => {
    const text = grepText(e);
    return (!keep || keep.test(text)) && (!drop || !drop.test(text));
  });
}

function grepText(entry: WorkflowEntry): string {
  return [entry.project?.name, entry.relFile, entry.name, ...(entry.tags ?? [])].filter(Boolean).join(" ");
}

/**
 * Each entry `count` times in a row (Playwright's `repeatEach`): the k-th copy (from 0) has
 * `repeatEachIndex` k and, from the second on, the title `name (repeat #k)`, so reports keep them apart.
 */
export function repeatWorkflows(entries: WorkflowEntry[], count: number): WorkflowEntry[] {
  if (count <= 1) return entries;
  return entries.flatMap((entry) => Array.from({ length: count }, (_, k) => ({ ...entry, repeatEachIndex: k, title: k === 0 ? entry.name : `${entry.name} (repeat #${k})` })));
}

/** How a workflow run is named in the failed set: `[project] file › name`, repeats aside. */
export function entryId(entry: Pick<WorkflowEntry, "relFile" | "name" | "project">): string {
  return `${entry.project ? `[${entry.project.name}] ` : ""}${entry.relFile} › ${entry.name}`;
}

/** What `.last-run.json` holds: the run's status and the ids of the workflows that failed. */
export interface LastRun {
  status: SuiteResult["status"];
  failedTests: string[];
}

/**
 * Writes `<reportDir>/.last-run.json`: the run's status and the workflows that failed (after
 * their retries; flaky ones passed), for `--last-failed`. A failure to write is told to `warn`.
 */
export async function writeLastRun(reportDir: string, result: SuiteResult, warn: (message: string) => void): Promise<void> {
  const failed = [...new Set(result.results.filter((r) => r.outcome === "failed").map((r) => entryId(r.entry)))];
  const lastRun: LastRun = { status: result.status, failedTests: failed };
  await writeFile(join(reportDir, LAST_RUN_FILE), `${JSON.stringify(lastRun, null, 2)}\n`).catch((error: Error) => warn(`Could not keep the failed set for --last-failed in ${reportDir}: ${error.message}`));
}

/**
 * Reads the failed set of the last run in `reportDir` (`--last-failed`).
 * @returns the ids of the workflows that failed, or undefined when no run left the file.
 * @throws {@link CliUsageError} `WF_CLI_USAGE` when the file is there but is not a failed set.
 */
export async function readLastFailed(reportDir: string): Promise<Set<string> | undefined> {
  const path = join(reportDir, LAST_RUN_FILE);
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new CliUsageError("WF_CLI_USAGE", `Could not read the last run's failed set ${path}: ${error.message}.`, { path });
  });
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<LastRun>;
    if (!Array.isArray(value.failedTests) || !value.failedTests.every((t) => typeof t === "string")) throw new Error("no failedTests list");
    return new Set(value.failedTests);
  } catch (error) {
    throw new CliUsageError("WF_CLI_USAGE", `${path} is not the failed set wf keeps (${(error as Error).message}). Delete it and run without --last-failed.`, { path });
  }
}
