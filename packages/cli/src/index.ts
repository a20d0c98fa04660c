/**
 * `@wf/cli`: the `wf` command and its programmatic API. Each command has a function tests and
 * scripts can call directly: `runWorkflowFile` (wf run), `serve`, `planWorkflowFile` (wf plan),
 * `checkWorkflowFiles` (wf check), `initProject` (wf init), `installBrowser` (wf install-browser),
 * `showReport` (wf show-report).
 */
export { defineConfig, resolveCliConfig, REPORTERS, TRACE_MODES } from "./config.js";
export type { WfConfig, ReporterName, TraceMode, CliFlags, ResolveCliConfigOptions, ResolvedCliConfig, UseOptions, ProjectConfig, ResolvedProject } from "./config.js";
export { devices } from "./devices.js";
export type { DeviceDescriptor } from "./devices.js";
export { runWorkflowFile } from "./run.js";
export type { RunWorkflowFileOptions, RunWorkflowFileResult } from "./run.js";
export { showReport, showTrace } from "./report/show.js";
export { mergeReports } from "./report/merge.js";
export type { MergeReportsOptions, MergedReport } from "./report/merge.js";
export { parseShard, shardOf } from "./shard.js";
export type { Shard } from "./shard.js";
export type { ShowReportOptions, ShowTraceOptions, ShownReport } from "./report/show.js";
export { serve } from "./serve.js";
export type { ServeOptions, ServeHandle } from "./serve.js";
export { planWorkflowFile, checkWorkflowFiles, formatPlan, formatFindings } from "./plan.js";
export type { PlannedStep, PlannedModule, Finding, PlanResult, PlanOptions, CheckResult } from "./plan.js";
export { pruneLock } from "./lock.js";
export { staleLockEntries, lockFindings } from "./lock-lint.js";
export type { PruneLockResult, StaleLockEntry } from "./lock.js";
export { backupStoreFile, restoreStoreFile } from "./store.js";
export type { StoreFileOptions } from "./store.js";
export { initProject } from "./init.js";
export type { InitProjectOptions, InitProjectResult } from "./init.js";
export { installBrowser, APT_PACKAGES } from "./install-browser.js";
export type { InstallBrowserOptions, InstallBrowserResult } from "./install-browser.js";
export { loadWorkflowFile } from "./load-workflow.js";
export { parseParamFlags, paramsFromEnv, readParamsFile, buildParams } from "./params.js";
export { createReporter, formatMs } from "./reporters.js";
export type { Reporter, CreateReporterOptions, OutputStream } from "./reporters.js";
export { runCli, COMMANDS } from "./cli.js";
export type { CliContext, WfCommand } from "./commands/_types.js";
export { defineCommand } from "./commands/_types.js";
export { CliUsageError, EXIT, exitCodeOf, isConnectionError } from "./errors.js";
export type { ExitCode } from "./errors.js";
