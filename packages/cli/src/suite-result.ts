/**
 * What a run of many workflows is made of and ends with: the workflows found, each one's result,
 * the whole run's. Shared by the runner, the suite reporters and the HTML report.
 */
import type { Workflow } from "@wf/core";
import type { RunRecord } from "@wf/runtime";
import type { ResolvedProject } from "./projects.js";

/** A workflow found by `findWorkflows` (runner.ts). */
export interface WorkflowEntry {
  /** Absolute path of its file. */
  file: string;
  /** The file relative to the working directory, as reports show it. */
  relFile: string;
  /** The workflow's `name`. */
  name: string;
  /** How reports name this run: the `name`, then ` (repeat #k)` for the k-th repeat of `--repeat-each`. */
  title: string;
  /** Which of the `repeatEach` runs of this workflow this is, from 0 (Playwright's `repeatEachIndex`). */
  repeatEachIndex: number;
  workflow: Workflow;
  /** The project this run belongs to (`projects` of wf.config.ts); none without projects. */
  project?: ResolvedProject | undefined;
  /** The workflow's tags (`workflow({ tags: ["@smoke"] })`). */
  tags?: ReadonlyArray<string>;
}

/** A key of one run of a workflow: its project, file and repeat (what report folders and artifacts are kept by). */
export function entryKey(entry: Pick<WorkflowEntry, "file" | "repeatEachIndex" | "project">): string {
  return `${entry.project?.name ?? ""}\u0000${entry.file}\u0000${entry.repeatEachIndex}`;
}

/** How reporters name a run: `[project] › file › title`, then its tags (`@smoke`). */
export function entryLabel(entry: Pick<WorkflowEntry, "relFile" | "title" | "project" | "tags">): string {
  const tags = entry.tags?.length ? ` ${entry.tags.join(" ")}` : "";
  return `${entry.project ? `[${entry.project.name}] › ` : ""}${entry.relFile} › ${entry.title}${tags}`;
}

/**
 * How a workflow ended, in Playwright's words: `passed` on its first run, `flaky` when it failed
 * and then passed on a retry, `failed` when every attempt failed, `interrupted` when Ctrl-C
 * cancelled it, `skipped` when it never started (`maxFailures` reached, or interrupted before).
 */
export type WorkflowOutcome = "passed" | "flaky" | "failed" | "interrupted" | "skipped";

/** One workflow's result: every attempt's run record (secrets redacted), first to last. */
export interface WorkflowResult {
  entry: WorkflowEntry;
  outcome: WorkflowOutcome;
  attempts: RunRecord[];
  /** Sum of the attempts' durations, in ms. */
  durationMs: number;
}

/** The whole run, as reporters see it at the end. */
export interface SuiteResult {
  /** `passed` when no workflow failed (flaky ones pass), `failed`, or `interrupted`. */
  status: "passed" | "failed" | "interrupted";
  results: WorkflowResult[];
  startedAt: string;
  durationMs: number;
  stats: { passed: number; flaky: number; failed: number; interrupted: number; skipped: number };
  /** The part of the selected workflows this run ran (`--shard i/n`); absent when it ran them all. */
  shard?: { current: number; total: number };
}
