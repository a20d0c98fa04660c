/**
 * `wf merge-reports <dirs…>`: the reports of a run split over machines (`wf run --shard i/n`, one
 * report folder per shard) merged into one HTML report and one JUnit file, as Playwright's
 * `merge-reports` does. Reads each folder's `report.json` (the page's data, docs/run-report.md),
 * copies each shard's screenshots, traces and downloads under `shard-<k>/`, and writes the merged page,
 * `report.json` and `junit.xml` into the output folder.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { RunRecord } from "@wf/runtime";
import { CliUsageError } from "../errors.js";
import type { SuiteResult, WorkflowOutcome, WorkflowResult } from "../runner.js";
import { junitXml } from "../suite-reporters.js";
import { createRunReport, REPORT_JSON, shownPath, writeReportFiles, type ReportData } from "./report.js";

/** Options of {@link mergeReports}. */
export interface MergeReportsOptions {
  /** The shards' report folders (absolute, or relative to `cwd`), in shard order. */
  dirs: string[];
  /** Where the merged report goes; emptied first when wf wrote it, refused when it holds other files or is one of `dirs`. */
  outDir: string;
  /** @default process.cwd() */
  cwd?: string;
}

/** What {@link mergeReports} wrote. */
export interface MergedReport {
  /** The merged page's `index.html`. */
  indexPath: string;
  /** The merged JUnit XML. */
  junitPath: string;
  data: ReportData;
}

/**
 * Merges the shards' reports into one.
 * @throws {@link CliUsageError} `WF_CLI_USAGE`: no folder given, a folder without a wf report, the
 *   output folder among the inputs or holding files wf did not write.
 */
export async function mergeReports(options: MergeReportsOptions): Promise<MergedReport> {
  const cwd = options.cwd ?? process.cwd();
  if (options.dirs.length === 0) throw new CliUsageError("WF_CLI_USAGE", "Name the report folders to merge: wf merge-reports wf-report-1 wf-report-2 …");
  const dirs = options.dirs.map((d) => resolve(cwd, d));
  const outDir = resolve(cwd, options.outDir);
  if (dirs.includes(outDir)) {
    throw new CliUsageError("WF_CLI_USAGE", `The merged report would overwrite ${outDir}, one of the reports to merge. Choose another folder with --report-dir.`, { path: outDir });
  }
  const shards = await Promise.all(dirs.map(readReport));
  // Prepared like a run's report folder: created, or emptied when wf wrote it.
  await createRunReport({ dir: outDir, trace: "off", entries: [], cwd, warn: () => undefined });

  const workflows: ReportData["workflows"] = [];
  for (const [k, shard] of shards.entries()) {
    const prefix = `shard-${k + 1}`;
    for (const workflow of shard.workflows) {
      const attempts = [];
      for (const attempt of workflow.attempts) {
        const artifacts = attempt.artifacts;
        if (!artifacts) {
          attempts.push(attempt);
          continue;
        }
        await cp(join(dirs[k]!, artifacts.folder), join(outDir, prefix, artifacts.folder), { recursive: true }).catch(() => undefined);
        attempts.push({
          ...attempt,
          artifacts: {
            folder: `${prefix}/${artifacts.folder}`,
            screenshots: Object.fromEntries(Object.entries(artifacts.screenshots).map(([index, path]) => [index, `${prefix}/${path}`])),
            ...(artifacts.trace ? { trace: `${prefix}/${artifacts.trace}` } : {}),
            ...(artifacts.downloads ? { downloads: artifacts.downloads.map((d) => ({ ...d, path: `${prefix}/${d.path}` })) } : {}),
          },
        });
      }
      const shardOfRun = workflow.shard ?? shard.shard;
      workflows.push({ ...workflow, ...(shardOfRun ? { shard: shardOfRun } : {}), attempts });
    }
  }
  workflows.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.repeatEachIndex ?? 0) - (b.repeatEachIndex ?? 0)));

  const stats = { passed: 0, flaky: 0, failed: 0, interrupted: 0, skipped: 0 };
  for (const w of workflows) if (w.outcome in stats) stats[w.outcome as keyof typeof stats] += 1;
  const starts = shards.map((s) => Date.parse(s.startedAt)).filter((t) => !Number.isNaN(t));
  const start = starts.length ? Math.min(...starts) : Date.now();
  const end = Math.max(start, ...shards.map((s) => Date.parse(s.startedAt) + s.durationMs).filter((t) => !Number.isNaN(t)));
  const status: SuiteResult["status"] = shards.some((s) => s.status === "interrupted") ? "interrupted" : shards.some((s) => s.status === "failed") || stats.failed > 0 ? "failed" : "passed";
  const data: ReportData = {
    version: 1,
    reportDir: shownPath(outDir, cwd),
    status,
    startedAt: new Date(start).toISOString(),
    durationMs: end - start,
    stats,
    workflows,
  };
  await writeReportFiles(outDir, data);
  const junitPath = join(outDir, "junit.xml");
  await writeFile(junitPath, await junitXml(suiteOf(data), cwd));
  return { indexPath: join(outDir, "index.html"), junitPath, data };
}

/** A shard's report: its `report.json`, else the data of its `report-data.js`. */
async function readReport(dir: string): Promise<ReportData> {
  const json = await readFile(join(dir, REPORT_JSON), "utf8").catch(() => undefined);
  const script = json === undefined ? await readFile(join(dir, "report-data.js"), "utf8").catch(() => undefined) : undefined;
  const text = json ?? script?.replace(/^\s*window\.wfReport\s*=\s*/, "").replace(/;\s*$/, "");
  let data: unknown;
  try {
    data = text === undefined ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  const report = data as Partial<ReportData> | undefined;
  if (!report || report.version !== 1 || !Array.isArray(report.workflows)) {
    throw new CliUsageError(
      "WF_CLI_USAGE",
      `${dir} holds no wf report (${REPORT_JSON}, version 1). Pass the report folders the shards' runs wrote (wf run --shard i/n --report-dir <folder>).`,
      { path: dir },
    );
  }
  return report as ReportData;
}

/** The merged data as the JUnit writer takes it: one result per workflow run, its attempts' records. */
function suiteOf(data: ReportData): SuiteResult {
  const results: WorkflowResult[] = data.workflows.map((w) => {
    const repeat = w.repeatEachIndex ?? 0;
    return {
      entry: { file: w.file, relFile: w.file, name: w.name, title: repeat === 0 ? w.name : `${w.name} (repeat #${repeat})`, repeatEachIndex: repeat, workflow: undefined as never, ...(w.project ? { project: { name: w.project, use: {} } } : {}), tags: w.tags ?? [] },
      outcome: w.outcome as WorkflowOutcome,
      attempts: w.attempts.map((a) => a.record as RunRecord),
      durationMs: w.durationMs,
    };
  });
  return { status: data.status, results, startedAt: data.startedAt, durationMs: data.durationMs, stats: data.stats };
}
