/**
 * The report a `wf run` leaves behind (`wf-report/` unless `reportDir` says otherwise): an HTML
 * page that opens from disk, the screenshot the service took after each step, and the Playwright
 * traces the `trace` mode keeps. Everything is downloaded from the service right after each attempt,
 * while the (embedded) server still runs, so the report outlives it.
 *
 * Layout, as Playwright's `test-results/` names attempts:
 * ```
 * wf-report/
 *   index.html  report.js  report-data.js  .wf-report
 *   <workflow>/step-1.png  step-2.png  trace.zip     the first attempt
 *   <workflow>/downloads/q3-report.csv                the files its steps downloaded
 *   <workflow>-retry1/step-1.png  trace.zip          the first retry
 * ```
 */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { RunRecord, ServiceClient } from "@wf/runtime";
import type { ResolvedCliConfig, TraceMode } from "../config.js";
import type { OutputStream } from "../reporters.js";
import { CliUsageError } from "../errors.js";
import { entryKey, type SuiteResult, type WorkflowEntry } from "../suite-result.js";
import { writeLastRun } from "../select.js";
import { writeReportPage } from "./page.js";
import { timingMark } from "../timing.js";

/** What one attempt left in the report folder; paths are relative to the folder, with `/`. */
export interface AttemptArtifacts {
  /** The attempt's folder, e.g. `checkout` or `checkout-retry1`. */
  folder: string;
  /** The PNG taken after each step, by the step's `index`. */
  screenshots: Record<number, string>;
  /** The attempt's Playwright trace, when the trace mode kept one. */
  trace?: string;
  /**
   * The files its steps downloaded, saved under `downloads/` by their suggested names (a name two
   * downloads share gets ` (2)`, ` (3)`… before its extension): the step's `index`, the file's
   * name, size in bytes and media type, and its path in the report.
   */
  downloads?: Array<{ step: number; name: string; sizeBytes: number; mimeType: string; path: string }>;
}

/** The report of one run (see the module comment). */
export interface RunReport {
  /** The report folder, absolute. */
  readonly dir: string;
  /**
   * Whether attempt `attempt` (0 = first run, 1 = first retry) records a trace: `false` not,
   * `true` kept, `"retain-on-failure"` kept only when the attempt does not succeed (the service is
   * then told to drop a passing attempt's trace instead of saving it).
   */
  traceFor(attempt: number): boolean | "retain-on-failure";
  /** Downloads the attempt's screenshots (and trace, as the trace mode says) from the service. */
  collect(entry: WorkflowEntry, attempt: number, record: RunRecord, client: ServiceClient): Promise<void>;
  /** Writes the HTML report (a failure is told to `warn`, not thrown). @returns the path of its `index.html`. */
  write(result: SuiteResult): Promise<string>;
  /** The kept traces of the workflows that failed (their last attempt), absolute paths. */
  failedTraces(result: SuiteResult): string[];
}

/** Marks a folder as written by wf, so a later run may empty it. */
const MARKER = ".wf-report";
/** Files a folder may hold and still be emptied without a marker (what earlier versions wrote there). */
const OWN_FILES = new Set(["junit.xml", MARKER]);
/**
 * What `@wf/cli/vitest` saves in the report folder (failed tests' screenshots and traces): kept
 * when a `wf run` empties the folder, as it is not that run's.
 */
export const VITEST_FOLDER = "vitest";

/**
 * Prepares the report folder of a run: creates it, or empties one that wf wrote before (it holds
 * the `.wf-report` marker, or nothing but a JUnit file), as Playwright empties its report folder.
 *
 * @param options.entries - the workflows of the run; each gets its own folder name.
 * @throws {@link CliUsageError} `WF_CLI_USAGE` when `dir` holds other files (it is never emptied
 *   then): choose another `--report-dir`, or empty it.
 */
export async function createRunReport(options: {
  dir: string;
  trace: TraceMode;
  entries: ReadonlyArray<WorkflowEntry>;
  cwd: string;
  /** Told when an attempt's files could not be written (the run goes on without them). */
  warn: (message: string) => void;
}): Promise<RunReport> {
  const { dir, trace } = options;
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw new CliUsageError("WF_CLI_USAGE", `Could not read the report folder ${dir}: ${error.message}.`, { path: dir });
  });
  if (names.length > 0 && !names.includes(MARKER) && !names.every((n) => OWN_FILES.has(n) || n === VITEST_FOLDER)) {
    throw new CliUsageError(
      "WF_CLI_USAGE",
      `The report folder ${dir} holds files wf did not write, so it is not emptied for this run's report. Choose another folder (--report-dir, WF_REPORT_DIR or reportDir in wf.config.ts), or empty it.`,
      { path: dir },
    );
  }
  try {
    // The JUnit reporter's default file lives here too and is written at the end: keep nothing else.
    for (const name of names) if (name !== VITEST_FOLDER) await rm(join(dir, name), { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, MARKER), "This folder is the report of the last `wf run`; every run empties it.\n");
  } catch (error) {
    throw new CliUsageError("WF_CLI_USAGE", `Could not prepare the report folder ${dir}: ${(error as Error).message}. Check --report-dir.`, { path: dir });
  }

  const folders = folderNames(options.entries);
  const artifacts = new Map<string, AttemptArtifacts>();
  const key = (entry: WorkflowEntry, attempt: number) => `${attempt}\u0000${entryKey(entry)}`;
  const recorded = (attempt: number) => trace === "on" || trace === "retain-on-failure" || (trace === "on-first-retry" && attempt === 1);

  const collect = async (entry: WorkflowEntry, attempt: number, record: RunRecord, client: ServiceClient): Promise<void> => {
    if (!record.sessionId) return;
    const base = folders.get(entryKey(entry)) ?? "workflow";
    const folder = attempt === 0 ? base : `${base}-retry${attempt}`;
    const own: AttemptArtifacts = { folder, screenshots: {} };
    artifacts.set(key(entry, attempt), own);
    await mkdir(join(dir, folder), { recursive: true });
    // Artifacts are evidence, not the run's outcome: one that cannot be fetched is left out.
    for (const step of record.steps) {
      if (!step.stepId) continue;
      const png = await client.getScreenshot(record.sessionId, step.stepId).catch(() => undefined);
      if (!png) continue;
      await mkdir(join(dir, folder), { recursive: true });
      await writeFile(join(dir, folder, `step-${step.index}.png`), png);
      own.screenshots[step.index] = `${folder}/step-${step.index}.png`;
    }
    const taken = new Set<string>();
    for (const step of record.steps) {
      for (const file of step.downloads ?? []) {
        const bytes = await client.getDownload(record.sessionId, file.downloadId).catch(() => undefined);
        if (!bytes) continue;
        const name = freeName(file.name, taken);
        await mkdir(join(dir, folder, "downloads"), { recursive: true });
        await writeFile(join(dir, folder, "downloads", name), bytes);
        (own.downloads ??= []).push({ step: step.index, name: file.name, sizeBytes: file.sizeBytes, mimeType: file.mimeType, path: `${folder}/downloads/${name}` });
      }
    }
    const keep = recorded(attempt) && (trace !== "retain-on-failure" || record.status !== "succeeded");
    if (keep) {
      const zip = await client.getTrace(record.sessionId).catch(() => undefined);
      if (zip) {
        await mkdir(join(dir, folder), { recursive: true });
        await writeFile(join(dir, folder, "trace.zip"), zip);
        own.trace = `${folder}/trace.zip`;
      }
    }
  };

  return {
    dir,
    traceFor: (attempt) => recorded(attempt) && (trace === "retain-on-failure" ? "retain-on-failure" : true),
    async collect(entry, attempt, record, client) {
      try {
        await collect(entry, attempt, record, client);
      } catch (error) {
        options.warn(`The report lacks files of ${entry.relFile}: ${(error as Error).message}`);
      }
    },
    async write(result) {
      const data = { ...reportData(result, (entry, attempt) => artifacts.get(key(entry, attempt)), options.cwd), reportDir: shownPath(dir, options.cwd) };
      try {
        await mkdir(dir, { recursive: true });
        // A classic script (not JSON fetched, not a module), so the page works from file:// too.
        await writeReportFiles(dir, data);
        // The failed set `wf run --last-failed` runs again.
        await writeLastRun(dir, result, options.warn);
      } catch (error) {
        // The run's outcome stands without its report (a full disk, another run emptying the folder).
        options.warn(`Could not write the HTML report to ${dir}: ${(error as Error).message}`);
      }
      return join(dir, "index.html");
    },
    failedTraces(result) {
      return result.results
        .filter((r) => r.outcome === "failed" && r.attempts.length > 0)
        .map((r) => artifacts.get(key(r.entry, r.attempts.length - 1))?.trace)
        .filter((t): t is string => t !== undefined)
        .map((t) => join(dir, t));
    },
  };
}

/**
 * Writes the report page and its data into `dir`: `report-data.js` (what the page reads, a classic
 * script so it opens from file:// too; JSON is valid JavaScript and the file is never parsed as
 * HTML, so the data needs no escaping), `report.json` (the same data, for `wf merge-reports` and
 * other tools), and the page's fixed files `index.html` and `report.js` (`page.ts`).
 */
export async function writeReportFiles(dir: string, data: ReportData): Promise<void> {
  await writeFile(join(dir, "report-data.js"), `window.wfReport = ${JSON.stringify(data)};\n`);
  await writeFile(join(dir, REPORT_JSON), `${JSON.stringify(data, null, 2)}\n`);
  await writeReportPage(dir);
}

/** The machine-readable report of a run in its report folder (the page's data as JSON). */
export const REPORT_JSON = "report.json";

/** The data the page renders (`window.wfReport`): the suite, and each attempt's record with its files. */
export interface ReportData {
  version: 1;
  /** The report folder as the commands it shows name it (relative to the working directory when inside it). */
  reportDir?: string;
  status: SuiteResult["status"];
  startedAt: string;
  durationMs: number;
  stats: SuiteResult["stats"];
  /** The shard this report's run was (`--shard i/n`); absent in a merged report and a run of all workflows. */
  shard?: { current: number; total: number };
  workflows: Array<{
    file: string;
    name: string;
    /** Which `--repeat-each` run, from 0. */
    repeatEachIndex?: number;
    /** The project it ran in (`projects` of wf.config.ts). */
    project?: string;
    /** The workflow's tags (`@smoke`). */
    tags?: string[];
    /** The shard that ran it (`--shard i/n`); kept by `wf merge-reports`. */
    shard?: { current: number; total: number };
    outcome: string;
    durationMs: number;
    attempts: Array<{ record: RunRecord; artifacts?: AttemptArtifacts }>;
  }>;
}

function reportData(result: SuiteResult, artifactsOf: (entry: WorkflowEntry, attempt: number) => AttemptArtifacts | undefined, cwd: string): ReportData {
  return {
    version: 1,
    status: result.status,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    stats: result.stats,
    ...(result.shard ? { shard: result.shard } : {}),
    workflows: result.results.map((r) => ({
      file: r.entry.relFile,
      name: r.entry.name,
      repeatEachIndex: r.entry.repeatEachIndex,
      ...(r.entry.project ? { project: r.entry.project.name } : {}),
      ...(r.entry.tags?.length ? { tags: [...r.entry.tags] } : {}),
      ...(result.shard ? { shard: result.shard } : {}),
      outcome: r.outcome,
      durationMs: r.durationMs,
      attempts: r.attempts.map((record, attempt) => {
        const artifacts = artifactsOf(r.entry, attempt);
        return { record: shortCallSites(record, cwd), ...(artifacts ? { artifacts } : {}) };
      }),
    })),
  };
}

/** Call sites relative to the working directory, as the terminal reporters show them. */
function shortCallSites(record: RunRecord, cwd: string): RunRecord {
  const short = (site: string | undefined) => {
    if (!site) return site;
    const plain = site.replace(/^file:\/\//, "");
    const rel = relative(cwd, plain);
    return rel && !rel.startsWith("..") ? rel : plain;
  };
  return {
    ...record,
    ...(record.error ? { error: { ...record.error, ...(record.error.callSite ? { callSite: short(record.error.callSite)! } : {}) } } : {}),
    steps: record.steps.map((s) => (s.callSite ? { ...s, callSite: short(s.callSite)! } : s)),
    ...(record.groups ? { groups: record.groups.map((g) => (g.callSite ? { ...g, callSite: short(g.callSite)! } : g)) } : {}),
  };
}

/** What {@link runWithReport} hands the run of one workflow file: the options of `runWorkflowFile` that feed the report. */
export interface ReportHooks {
  /** See {@link RunReport.traceFor}. */
  trace: boolean | "retain-on-failure";
  afterRun: (record: RunRecord, client: ServiceClient) => Promise<void>;
  reportPath: string;
}

/**
 * `wf run` on one workflow with a single-run reporter: runs it through `run` with the report's
 * hooks, then writes the report and prints where it is (not when `stdout` carries JSON: that output
 * stays parseable and `stderr` clean; the `--out` record names the report).
 */
export async function runWithReport<T extends { record: RunRecord }>(
  options: {
    config: ResolvedCliConfig;
    cwd: string;
    entry: WorkflowEntry;
    stdout: OutputStream;
    stderr: OutputStream;
    /** The reporter prints JSON on stdout: print nothing more. */
    machineOutput: boolean;
    /** The shard this run is (`--shard i/n`), for the report. */
    shard?: { current: number; total: number };
  },
  run: (hooks: ReportHooks) => Promise<T>,
): Promise<T> {
  const { config, cwd, entry } = options;
  const report = await createRunReport({ dir: config.reportDir, trace: config.trace, entries: [entry], cwd, warn: (m) => void options.stderr.write(`${m}\n`) });
  const startedAt = new Date();
  const ran = await run({
    trace: report.traceFor(0),
    afterRun: (record, client) => report.collect(entry, 0, record, client),
    reportPath: join(report.dir, "index.html"),
  });
  const { record } = ran;
  // A cancelled run is Ctrl-C's, unless --timeout cancelled it (a failure).
  const outcome = record.status === "succeeded" ? "passed" : record.status === "cancelled" && record.error?.code !== "WF_RUN_TIMEOUT" ? "interrupted" : "failed";
  const result: SuiteResult = {
    status: outcome,
    results: [{ entry, outcome, attempts: [record], durationMs: record.durationMs }],
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    stats: { passed: 0, flaky: 0, failed: 0, interrupted: 0, skipped: 0, [outcome]: 1 },
    ...(options.shard ? { shard: options.shard } : {}),
  };
  timingMark("report collected");
  const indexPath = await report.write(result);
  timingMark("report written");
  if (!options.machineOutput) options.stdout.write(reportSummary(report, indexPath, result, cwd));
  return ran;
}

/**
 * What a run prints at its end about its report: where the page is and how to open it, and the
 * `wf show-trace` command of each failed workflow's trace (Playwright's trace viewer, served as
 * `npx playwright-core show-trace` would open it).
 */
export function reportSummary(report: RunReport, indexPath: string, result: SuiteResult, cwd: string): string {
  const lines = [`  HTML report: ${shownPath(indexPath, cwd)} (open it with: wf show-report${shownPath(report.dir, cwd) === "wf-report" ? "" : ` ${shownPath(report.dir, cwd)}`})`];
  for (const trace of report.failedTraces(result)) lines.push(`  Trace: wf show-trace ${shownPath(trace, cwd)}`);
  return lines.join("\n") + "\n";
}

/**
 * `name` as a file name of a folder that already holds `taken` (compared without case, as macOS
 * and Windows do): the name itself, else ` (2)`, ` (3)`… before its extension, as browsers save
 * a second download of one name. Adds the result to `taken`.
 */
export function freeName(name: string, taken: Set<string>): string {
  // eslint-disable-next-line no-control-regex
  const safe = name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_").replace(/^\.+/, "_") || "download";
  const dot = safe.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ""];
  let out = safe;
  for (let n = 2; taken.has(out.toLowerCase()); n++) out = `${stem} (${n})${ext}`;
  taken.add(out.toLowerCase());
  return out;
}

/** `path` relative to `cwd` when inside it, else absolute. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : path;
}

/**
 * A folder name per run of a workflow (by {@link entryKey}): the workflow's name, then its project
 * and its `--repeat-each` index when it has them, with anything but letters, digits, `.`, `_` and
 * `-` turned into `-`; a name two runs share gets `-2`, `-3`… in order.
 */
export function folderNames(entries: ReadonlyArray<WorkflowEntry>): Map<string, string> {
  // Vitest's evidence lives in `vitest/`: a workflow named so gets `vitest-2`.
  const taken = new Set<string>([VITEST_FOLDER]);
  const out = new Map<string, string>();
  for (const entry of entries) {
    const name = [entry.name, entry.project?.name, entry.repeatEachIndex > 0 ? `repeat${entry.repeatEachIndex}` : undefined].filter(Boolean).join("-");
    const base = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "").slice(0, 80) || "workflow";
    let folder = base;
    for (let n = 2; taken.has(folder.toLowerCase()); n++) folder = `${base}-${n}`;
    taken.add(folder.toLowerCase());
    out.set(entryKey(entry), folder);
  }
  return out;
}
