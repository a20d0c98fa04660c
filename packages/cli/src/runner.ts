/**
 * `runWorkflows()`: `wf run` on many workflows, as a test runner. Finds the workflow files (files,
 * folders, globs; the config's `testDir` when none is given), selects the runs (each project,
 * `grep`, `--last-failed`, `repeatEach`, `--shard`: `select.ts`), binds the params to the workflows
 * that declare them (`params.ts`), and runs them `workers` at a time on ONE service (the embedded server is started once and shared;
 * every run has its own session), each through {@link runWorkflowFile}. A failed workflow is run
 * again up to `retries` times (Playwright's semantics: one that passes on a retry is `flaky`, and
 * a flaky run does not fail the command). `maxFailures` stops starting new workflows once that
 * many have failed.
 */
import { stat } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { isWfError, type Workflow } from "@wf/core";
import { RUN_RECORD_VERSION, type RunRecord } from "@wf/runtime";
import { resolveCliConfig, type ResolvedCliConfig, type ReporterSpec } from "./config.js";
import { CliUsageError, EXIT, type ExitCode } from "./errors.js";
import { loadWorkflowFile } from "./load-workflow.js";
import { openService, runWorkflowFile, type OpenService } from "./run.js";
import type { OutputStream } from "./reporters.js";
import { createRunReport, reportSummary } from "./report/report.js";
import type { SuiteReporter } from "./suite-reporters.js";
import type { Shard } from "./shard.js";
import { entryLabel, type SuiteResult, type WorkflowEntry, type WorkflowOutcome, type WorkflowResult } from "./suite-result.js";
import { readParamsFile, scopeParams } from "./params.js";
import { readLastFailed, selectEntries, type Selection } from "./select.js";
import { timingMark } from "./timing.js";
import type { EarlyBrowser } from "./early-browser.js";
import type { RunWorkflowOptions } from "@wf/runtime";

export { repeatWorkflows, selectWorkflows } from "./select.js";

export type { SuiteResult, WorkflowEntry, WorkflowOutcome, WorkflowResult } from "./suite-result.js";

/** Options of {@link runWorkflows}. Unset fields come from `wf.config.ts`, the environment, then defaults. */
export interface RunWorkflowsOptions {
  /** Files, folders and globs, relative to `cwd`. @default the config's `testDir` */
  patterns?: string[];
  /** @default process.cwd() */
  cwd?: string;
  /** Only workflows whose project, file, name or tags match this regular expression (Playwright's `--grep`). */
  grep?: string;
  /** Only workflows whose project, file, name and tags do not match this regular expression. */
  grepInvert?: string;
  /** Only the workflows that failed in the last run (`<reportDir>/.last-run.json`). */
  lastFailed?: boolean;
  /** Print what would run, run nothing. */
  list?: boolean;
  /** `--param` values; each goes to the workflows that declare it (refused when none does, unless the selection was cut). */
  params?: Record<string, string>;
  /** `--param-env` bindings (param name → variable), bound like `params`; `paramsFromEnv` of the config adds to them. */
  paramEnv?: Record<string, string>;
  paramsFile?: string;
  serviceUrl?: string;
  /** @deprecated The old name of `serviceUrl`. */
  baseUrl?: string;
  apiKey?: string;
  /** One name or several, comma-separated. */
  reporter?: string;
  timeoutMs?: number;
  model?: string;
  workers?: number;
  retries?: number;
  maxFailures?: number;
  /** Runs of each workflow, each reported on its own. @default 1 */
  repeatEach?: number;
  /** Run only this part of the selected workflows (`--shard i/n`, see `shard.ts`). @default all */
  shard?: Shard;
  /** Aborting it interrupts the run: running workflows are cancelled, exit code 130. */
  signal?: AbortSignal;
  stdout?: OutputStream;
  stderr?: OutputStream;
  env?: Record<string, string | undefined>;
  /** The resolved configuration, when the caller has it already. */
  config?: ResolvedCliConfig;
  /** The workflows to run, found already (watch mode): `patterns`, `grep` and `repeatEach` are then not applied again. */
  entries?: WorkflowEntry[];
  /** The runs selected already (`wf run` chose between one run and many with it): nothing is found or selected again. */
  selection?: Selection;
  /** Awaited before each step is sent (`--debug`'s pause). */
  beforeStep?: RunWorkflowOptions["beforeStep"];
  /** The embedded server's Chromium, launched while the workflow files loaded (`wf run`): the server opened for the run takes it. @default one launched with the server */
  browser?: EarlyBrowser;
  /** A service kept up by the caller (watch mode): used as is and left open. @default one opened for the run and closed after it */
  service?: OpenService;
  /** Import workflow files anew, with their helpers, not from the module cache (watch mode). @default false */
  fresh?: boolean;
}

/** The config of a run of many workflows when the caller passed none: its flags over the environment and `wf.config.ts`. */
export function suiteConfig(options: RunWorkflowsOptions, cwd: string): Promise<ResolvedCliConfig> {
  return resolveCliConfig({
    cwd,
    env: options.env ?? process.env,
    flags: { serviceUrl: options.serviceUrl, baseUrl: options.baseUrl, apiKey: options.apiKey, reporter: options.reporter, timeoutMs: options.timeoutMs, model: options.model, workers: options.workers, retries: options.retries, maxFailures: options.maxFailures, repeatEach: options.repeatEach },
  });
}

/**
 * Runs many workflows (see the module comment).
 *
 * @returns exit code 0 when none failed (flaky ones included), 1 when one failed or `maxFailures`
 *   stopped the run, 130 when interrupted; and the suite's result (undefined with `list`).
 * @throws {@link CliUsageError} (exit code 2) before any run: no workflow found, a file that does
 *   not load, a bad `grep`, a `--param` no selected workflow declares (unless the selection was
 *   cut), a param variable that is not set, bad configuration.
 */
export async function runWorkflows(options: RunWorkflowsOptions): Promise<{ exitCode: ExitCode; result?: SuiteResult }> {
  const cwd = options.cwd ?? process.cwd();
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const config = options.config ?? (await suiteConfig(options, cwd));
  // Watch mode's re-runs are cut by what a save affects: a param only some workflows take is no error there.
  const chosen = options.selection ?? (options.entries ? { selected: options.entries, entries: options.entries, cut: true } : await selectRun(options, config, cwd));
  if (!chosen) {
    stdout.write(`No last run recorded in ${config.reportDir} (.last-run.json): nothing to run again. Run without --last-failed first.\n`);
    return { exitCode: EXIT.ok };
  }
  const { selected, entries } = chosen;
  timingMark("suite: workflows selected");

  if (options.list) {
    for (const entry of entries) stdout.write(`  ${entryLabel(entry)}${paramNote(entry)}\n`);
    const files = new Set(entries.map((e) => e.file)).size;
    const projects = new Set(entries.map((e) => e.project?.name).filter(Boolean)).size;
    stdout.write(`Total: ${entries.length} workflow${entries.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}${projects > 0 ? ` (${projects} project${projects === 1 ? "" : "s"})` : ""}${shardNote(options.shard, selected.length)}\n`);
    return { exitCode: EXIT.ok };
  }
  if (selected.length === 0 && options.lastFailed && !options.entries) {
    stdout.write(`No workflow failed in the last run${options.grep || options.grepInvert || config.projects.length ? " (of those selected)" : ""}: nothing to run again.\n`);
    return { exitCode: EXIT.ok };
  }
  // A CI matrix with more machines than workflows leaves some shards empty: nothing to run is no failure.
  if (entries.length === 0 && options.shard && selected.length > 0) {
    stdout.write(`No workflow to run in this shard${shardNote(options.shard, selected.length)}.\n`);
    return { exitCode: EXIT.ok };
  }
  if (entries.length === 0) throw new CliUsageError("WF_CLI_USAGE", `No workflow matches${options.grep ? ` --grep ${options.grep}` : ""}${options.grepInvert ? ` --grep-invert ${options.grepInvert}` : ""}. Run with --list to see the workflows found.`);

  const paramsOf = await bindParams(options, config, entries, chosen.cut, cwd);

  const specs = reporterSpecs(config, entries.length);
  // The suite's reporters load with the suite: a single `wf run flow.ts` never needs them.
  const { createSuiteReporters } = await import("./suite-reporters.js");
  const reporters = createSuiteReporters(specs, { stdout, stderr, env: config.env, cwd });
  const report = await createRunReport({ dir: config.reportDir, trace: config.trace, entries, cwd, warn: (m) => void stderr.write(`${m}\n`) });
  const service = options.service ?? (await openService(config, stderr, options.browser ? { browser: options.browser } : {}));
  timingMark("suite: service ready");
  const startedAt = new Date();
  const results: WorkflowResult[] = new Array(entries.length);
  let failures = 0;
  let next = 0;
  const stopped = () => options.signal?.aborted === true || (config.maxFailures > 0 && failures >= config.maxFailures);
  // The workers that will run, as Playwright counts them: no more than there are workflows.
  for (const r of reporters) r.onBegin?.({ entries, workers: Math.min(config.workers, entries.length), retries: config.retries });

  const runOne = async (entry: WorkflowEntry): Promise<WorkflowResult> => {
    const attempts: RunRecord[] = [];
    const own = paramsOf(entry.workflow).strings;
    for (let attempt = 0; attempt <= config.retries; attempt++) {
      if (attempt > 0 && options.signal?.aborted) break;
      for (const r of reporters) r.onAttemptBegin?.(entry, attempt);
      const record = await runWorkflowFile({
        file: entry.file,
        cwd,
        config,
        service,
        params: own,
        ...(entry.project ? { project: entry.project } : {}),
        ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
        fresh: options.fresh ?? false,
        ...(options.paramsFile ? { paramsFile: options.paramsFile } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        stdout,
        stderr,
        trace: report.traceFor(attempt),
        afterRun: (record, client) => report.collect(entry, attempt, record, client),
        events: (redact) => {
          const parts = reporters.map((r) => r.attemptReporter?.(entry, attempt, redact)).filter((x) => x !== undefined);
          return { onEvent: (event) => parts.forEach((p) => p.onEvent(event)), end: () => parts.forEach((p) => p.end()) };
        },
      }).then(
        (r) => r.record,
        (error: unknown) => failedRecord(entry, error),
      );
      attempts.push(record);
      for (const r of reporters) r.onAttemptEnd?.(entry, attempt, record);
      if (record.status === "succeeded" || options.signal?.aborted) break;
    }
    const last = attempts.at(-1)!;
    const outcome: WorkflowOutcome =
      last.status === "succeeded" ? (attempts.length > 1 ? "flaky" : "passed") : last.status === "cancelled" && options.signal?.aborted ? "interrupted" : "failed";
    return { entry, outcome, attempts, durationMs: attempts.reduce((sum, a) => sum + a.durationMs, 0) };
  };

  const worker = async () => {
    while (next < entries.length && !stopped()) {
      const index = next++;
      const result = await runOne(entries[index]!);
      if (result.outcome === "failed") failures++;
      results[index] = result;
      for (const r of reporters) r.onWorkflowEnd?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(config.workers, entries.length) }, worker));
  } finally {
    if (!options.service) await service.close();
  }
  for (let i = 0; i < entries.length; i++) results[i] ??= { entry: entries[i]!, outcome: "skipped", attempts: [], durationMs: 0 };

  const count = (outcome: WorkflowOutcome) => results.filter((r) => r.outcome === outcome).length;
  const stats = { passed: count("passed"), flaky: count("flaky"), failed: count("failed"), interrupted: count("interrupted"), skipped: count("skipped") };
  const interrupted = options.signal?.aborted === true;
  const status: SuiteResult["status"] = interrupted ? "interrupted" : stats.failed > 0 || stats.skipped > 0 ? "failed" : "passed";
  const result: SuiteResult = { status, results, startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime(), stats, ...(options.shard ? { shard: options.shard } : {}) };
  const indexPath = await report.write(result);
  for (const r of reporters) await r.onEnd?.(result);
  // After the summary; not beside JSON on stdout, which must stay parseable.
  if (!specs.some((spec) => !spec.outputFile && ["json", "ndjson"].includes(spec.name))) stdout.write(reportSummary(report, indexPath, result, cwd));
  return { exitCode: interrupted ? EXIT.interrupted : status === "passed" ? EXIT.ok : EXIT.failed, result };
}

/**
 * Finds and selects the runs of a `wf run` (see `select.ts`): the files of `patterns` (else
 * `testDir`), each project, grep, the last run's failed set (`lastFailed`), repeats, the shard.
 * @returns the selection, or undefined for `lastFailed` when no run left a failed set.
 */
export async function selectRun(options: RunWorkflowsOptions, config: ResolvedCliConfig, cwd: string): Promise<Selection | undefined> {
  const lastFailed = options.lastFailed ? await readLastFailed(config.reportDir) : undefined;
  if (options.lastFailed && !lastFailed) return undefined;
  const found = await findWorkflows(options.patterns ?? [], cwd, config.testDir, { fresh: options.fresh ?? false });
  return selectEntries(found, { projects: config.projects, grep: options.grep, grepInvert: options.grepInvert, lastFailed, repeatEach: config.repeatEach, shard: options.shard });
}

/**
 * The params of each workflow of a run: `--param`, `--param-env`, `paramsFromEnv` and the params
 * file bound to the workflows that declare them (`scopeParams`).
 * @throws {@link CliUsageError} as `scopeParams` and `readParamsFile` do.
 */
export async function bindParams(options: Pick<RunWorkflowsOptions, "params" | "paramEnv" | "paramsFile">, config: ResolvedCliConfig, entries: ReadonlyArray<WorkflowEntry>, cut: boolean, cwd: string) {
  const file = options.paramsFile ? await readParamsFile(options.paramsFile, cwd) : {};
  return scopeParams(
    entries.map((e) => e.workflow),
    { params: options.params ?? {}, paramEnv: options.paramEnv ?? {}, configEnv: config.paramsFromEnv, file },
    config.env,
    { cut },
  );
}

/** ` · params: email, password` for `--list`: the params a workflow takes. */
function paramNote(entry: WorkflowEntry): string {
  const names = Object.keys(entry.workflow.params?.shape ?? {});
  return names.length > 0 ? ` · params: ${names.join(", ")}` : "";
}

/** The reporters of a run of `count` workflows: the chosen ones, else `pretty` for one and `list` for several. */
export function reporterSpecs(config: ResolvedCliConfig, count: number): ReporterSpec[] {
  if (config.reporterChosen) return config.reporters;
  return [{ name: count === 1 ? "pretty" : "list" }];
}

/** A run that could not start (the file's params are wrong, the service refused): a failed record saying why. */
function failedRecord(entry: WorkflowEntry, error: unknown): RunRecord {
  const now = new Date().toISOString();
  return {
    version: RUN_RECORD_VERSION,
    workflow: entry.name,
    status: "failed",
    params: {},
    error: { code: isWfError(error) ? error.code : "WF_CLI_RUN_FAILED", message: error instanceof Error ? error.message : String(error) },
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    steps: [],
  };
}

/** Extensions of workflow files found in folders and by globs. */
const WORKFLOW_GLOB = "**/*.{ts,mts}";
/** Never workflows: dependencies, type declarations, and `_`-prefixed helper files. */
// `*.test.ts`: the test files beside workflows (Vitest's, as in examples/) are not workflows, and loading one outside its runner throws.
const IGNORED = ["**/node_modules/**", "**/*.d.ts", "**/*.d.mts", "**/*.test.ts", "**/*.test.mts", "**/_*", "**/_*/**"];

/**
 * Finds the workflows of `patterns` (files, folders, globs relative to `cwd`), or of `testDir`
 * when there is none, sorted by file. A file named on the command line must default-export a
 * workflow; a file found in a folder or by a glob that exports none (a helper) is passed over.
 *
 * @param options.fresh - import the files anew, not from the module cache (watch mode). @default false
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` for a pattern that matches nothing,
 *   `WF_CLI_LOAD_FAILED` / `WF_CLI_NO_WORKFLOW` as {@link loadWorkflowFile} throws them.
 */
export async function findWorkflows(patterns: ReadonlyArray<string>, cwd: string, testDir: string, options: { fresh?: boolean } = {}): Promise<WorkflowEntry[]> {
  const named = new Set<string>();
  const found = new Set<string>();
  if (patterns.length === 0 && !(await stat(testDir).catch(() => undefined))?.isDirectory()) {
    throw new CliUsageError(
      "WF_CLI_FILE_NOT_FOUND",
      `No workflow file given and the testDir ${testDir} is not a folder. Name the files (wf run flows/search.ts, wf run 'flows/**/*.ts'), or set testDir in wf.config.ts (or WF_TEST_DIR).`,
      { path: testDir },
    );
  }
  for (const pattern of patterns.length ? patterns : [testDir]) {
    const path = resolve(cwd, pattern);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) {
      named.add(path);
      continue;
    }
    // tinyglobby (and its fdir and picomatch, ~10 modules) loads only for a folder or a pattern:
    // `wf run flow.ts` starts without it (issue 36, docs/benchmarks.md "CLI: start-up").
    const { glob, isDynamicPattern } = await import("tinyglobby");
    // A plain path that is not a folder is a file: loading it says "not found" with its path.
    if (!info && !isDynamicPattern(pattern)) {
      named.add(path);
      continue;
    }
    const matches = info?.isDirectory()
      ? await glob(WORKFLOW_GLOB, { cwd: path, absolute: true, ignore: IGNORED })
      : await glob(pattern, { cwd, absolute: true, ignore: IGNORED });
    if (matches.length === 0) {
      const what = patterns.length ? `"${pattern}"` : `the testDir ${path} (set testDir in wf.config.ts, WF_TEST_DIR, or name files: wf run flows/*.ts)`;
      throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `No workflow file matches ${what}. Workflow files end in .ts or .mts; helpers start with _.`, { path });
    }
    for (const match of matches) found.add(resolve(match));
  }
  const entries: WorkflowEntry[] = [];
  for (const file of [...new Set([...named, ...found])].sort()) {
    try {
      const { workflow } = await loadWorkflowFile(file, cwd, options);
      entries.push({ file, relFile: relative(cwd, file) || file, name: workflow.name, title: workflow.name, repeatEachIndex: 0, workflow, tags: workflow.tags ?? [] });
    } catch (error) {
      if (!named.has(file) && isWfError(error) && error.code === "WF_CLI_NO_WORKFLOW") continue;
      throw error;
    }
  }
  return entries;
}

/** ` (shard 1/2 of 7 workflows)`, or "" without a shard. */
function shardNote(shard: Shard | undefined, of: number): string {
  return shard ? ` (shard ${shard.current}/${shard.total} of ${of} workflow${of === 1 ? "" : "s"})` : "";
}

export type { SuiteReporter, OpenService };
