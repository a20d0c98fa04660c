/**
 * Reporters of `wf run` on many workflows, named as Playwright names them: `list` (a line per
 * workflow, then the failures and a summary), `line` (one line updated in place on a terminal),
 * `dot` (a character per workflow), `junit` (JUnit XML, default file `wf-report/junit.xml`),
 * `json` (the suite's summary with every run record, default stdout), `ndjson` (every event with
 * its file and attempt, then a summary line) and `pretty` (each attempt's steps, printed whole when
 * it ends so parallel runs do not interleave). Several may run at once.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { createColors } from "picocolors";
import type { RunRecord } from "@wf/runtime";
import { parseCliEnv, type ReporterSpec } from "./config.js";
import { CliUsageError } from "./errors.js";
import { createReporter, formatMs, groupPath, lockSummary, modelSummary, replayedSteps, type OutputStream, type Reporter } from "./reporters.js";
import { entryLabel, type SuiteResult, type WorkflowEntry, type WorkflowResult } from "./suite-result.js";
import { isLiveTerminal, wantsColor } from "./color.js";
import { redactJson } from "./redact-json.js";

/** Receives a many-workflow run. Every method is optional. */
export interface SuiteReporter {
  onBegin?(info: { entries: WorkflowEntry[]; workers: number; retries: number }): void;
  onAttemptBegin?(entry: WorkflowEntry, attempt: number): void;
  /** A reporter of one attempt's live events; `redact` masks that run's secrets. */
  attemptReporter?(entry: WorkflowEntry, attempt: number, redact: (text: string) => string): Reporter | undefined;
  /** `record` is redacted. */
  onAttemptEnd?(entry: WorkflowEntry, attempt: number, record: RunRecord): void;
  onWorkflowEnd?(result: WorkflowResult): void;
  onEnd?(result: SuiteResult): void | Promise<void>;
}

/** Options of {@link createSuiteReporters}. */
export interface SuiteReporterOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
  /** `outputFile`s and shown paths are relative to it. */
  cwd: string;
}

/** Default files of the reporters that write one (`junit`); the others print to stdout unless given an `outputFile`. */
export const DEFAULT_OUTPUT_FILES: Partial<Record<ReporterSpec["name"], string>> = { junit: "wf-report/junit.xml" };

/** Creates the reporters of `specs`, in order. */
export function createSuiteReporters(specs: ReadonlyArray<ReporterSpec>, options: SuiteReporterOptions): SuiteReporter[] {
  return specs.map((spec) => createSuiteReporter(spec, options));
}

function createSuiteReporter(spec: ReporterSpec, options: SuiteReporterOptions): SuiteReporter {
  const { stdout, env, cwd } = options;
  const outputFile = spec.outputFile ?? (spec.name === "junit" ? (parseCliEnv(env, ["WF_JUNIT_OUTPUT_FILE"]).WF_JUNIT_OUTPUT_FILE ?? DEFAULT_OUTPUT_FILES.junit) : undefined);
  const emit = async (text: string) => {
    if (!outputFile) return void stdout.write(text);
    const path = resolve(cwd, outputFile);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    } catch (error) {
      throw new CliUsageError("WF_CLI_USAGE", `Could not write the ${spec.name} report to ${path}: ${(error as Error).message}. Check its outputFile.`, { path });
    }
  };
  const c = createColors(wantsColor(stdout, env));
  switch (spec.name) {
    case "html":
      // The HTML report is written on every run (see report/); naming it prints nothing more.
      return {};
    case "junit":
      return { onEnd: async (result) => emit(await junitXml(result, cwd)) };
    case "json":
      return { onEnd: (result) => emit(JSON.stringify(jsonReport(result), null, 2) + "\n") };
    case "ndjson": {
      const lines: string[] = [];
      const write = (line: string) => (outputFile ? lines.push(line) : stdout.write(line));
      return {
        attemptReporter: (entry, attempt, redact) => ({
          onEvent: (event) => void write(JSON.stringify(redactJson({ ...event, file: entry.relFile, retry: attempt }, redact)) + "\n"),
          end: () => {},
        }),
        onEnd: async (result) => {
          write(JSON.stringify({ type: "suite-finished", status: result.status, stats: result.stats, durationMs: result.durationMs }) + "\n");
          if (outputFile) await emit(lines.join(""));
        },
      };
    }
    case "pretty":
      return {
        attemptReporter: (entry, attempt, redact) => {
          let text = attempt > 0 ? `retry #${attempt} of ${entry.relFile}\n` : "";
          const buffer = { write: (chunk: string) => (text += chunk), isTTY: false };
          const inner = createReporter("pretty", { stdout: buffer, stderr: buffer, redact, env, cwd });
          return { onEvent: (event) => inner.onEvent(event), end: () => (inner.end(), void stdout.write(text)) };
        },
        onEnd: (result) => void stdout.write(summary(result, c) + "\n"),
      };
    case "dot": {
      let column = 0;
      const put = (mark: string) => {
        stdout.write(mark);
        if (++column % 80 === 0) stdout.write("\n");
      };
      return {
        onWorkflowEnd: (r) => put(r.outcome === "passed" ? c.green("·") : r.outcome === "flaky" ? c.yellow("±") : r.outcome === "failed" ? c.red("F") : c.dim("°")),
        onEnd: (result) => {
          if (column % 80 !== 0) stdout.write("\n");
          stdout.write(failures(result, c, cwd) + summary(result, c) + "\n");
        },
      };
    }
    case "line": {
      const live = isLiveTerminal(stdout, env);
      let total = 0;
      let done = 0;
      return {
        onBegin: ({ entries, workers }) => {
          total = entries.length;
          stdout.write(`Running ${total} workflow${total === 1 ? "" : "s"} using ${workers} worker${workers === 1 ? "" : "s"}\n`);
        },
        onWorkflowEnd: (r) => {
          done++;
          if (live) stdout.write(`\r\x1b[2K[${done}/${total}] ${entryLabel(r.entry)}`);
          if (r.outcome === "failed") {
            if (live) stdout.write("\r\x1b[2K");
            stdout.write(`${c.red("✘")} ${entryLabel(r.entry)}\n${failureText(r, cwd)}\n`);
          }
        },
        onEnd: (result) => {
          if (live) stdout.write("\r\x1b[2K");
          stdout.write(summary(result, c) + "\n");
        },
      };
    }
    case "list":
      return {
        onBegin: ({ entries, workers }) => stdout.write(`Running ${entries.length} workflow${entries.length === 1 ? "" : "s"} using ${workers} worker${workers === 1 ? "" : "s"}\n\n`),
        onAttemptEnd: (entry, attempt, record) => {
          const retry = attempt > 0 ? c.dim(` (retry #${attempt})`) : "";
          const mark = record.status === "succeeded" ? c.green("✔") : c.red("✘");
          stdout.write(`  ${mark} ${entryLabel(entry)}${retry} ${c.dim(`(${formatMs(record.durationMs)}${modelSummary(record)})`)}\n`);
        },
        onWorkflowEnd: (r) => {
          if (r.outcome === "flaky") stdout.write(`  ${c.yellow("±")} ${entryLabel(r.entry)} is flaky: passed on retry #${r.attempts.length - 1}\n`);
        },
        onEnd: (result) => void stdout.write(`\n${failures(result, c, cwd)}${summary(result, c)}\n`),
      };
  }
}

type Colors = ReturnType<typeof createColors>;

/** `2 passed, 1 flaky, 1 failed, 1 did not run (3.4s)`, with `, 5 model calls saved (replayed from the lock)` in the parentheses when some were. */
function summary(result: SuiteResult, c: Colors): string {
  const saved = result.results.reduce((n, r) => n + r.attempts.reduce((m, a) => m + replayedSteps(a), 0), 0);
  const { passed, flaky, failed, interrupted, skipped } = result.stats;
  const parts = [
    passed ? c.green(`${passed} passed`) : "",
    flaky ? c.yellow(`${flaky} flaky`) : "",
    failed ? c.red(`${failed} failed`) : "",
    interrupted ? c.yellow(`${interrupted} interrupted`) : "",
    skipped ? c.dim(`${skipped} did not run`) : "",
  ].filter(Boolean);
  return `  ${parts.join(", ") || "0 passed"} ${c.dim(`(${formatMs(result.durationMs)}${lockSummary(saved)})`)}`;
}

/** The failed workflows, numbered, each with the failing step, its code, message and call site. */
function failures(result: SuiteResult, c: Colors, cwd: string): string {
  const failed = result.results.filter((r) => r.outcome === "failed");
  return failed.map((r, i) => `  ${c.red(`${i + 1}) ${entryLabel(r.entry)}`)}\n${failureText(r, cwd)}\n\n`).join("");
}

/**
 * The last attempt's error: `step 3 ACT "click …" failed` (with `in step "checkout › pay"` when it
 * ran in `step()` groups) then `[CODE] message` and `at file:line:col`.
 */
export function failureText(r: WorkflowResult, cwd: string, indent = "     "): string {
  const record = r.attempts.at(-1);
  const error = record?.error;
  if (!record || !error) return `${indent}${record?.status ?? "did not run"}`;
  const step = error.stepIndex !== undefined ? record.steps.find((s) => s.index === error.stepIndex) : undefined;
  const lines = [];
  const groups = groupPath(record, step?.groupId);
  if (step) lines.push(`step ${step.index} ${step.type} ${JSON.stringify(step.instruction)} failed${groups.length ? ` in step ${JSON.stringify(groups.join(" › "))}` : ""}`);
  lines.push(`[${error.code}] ${error.message}`);
  if (error.callSite) lines.push(`at ${shortPath(error.callSite, cwd)}`);
  return lines.map((l) => indent + l).join("\n");
}

function shortPath(callSite: string, cwd: string): string {
  const plain = callSite.replace(/^file:\/\//, "");
  const rel = relative(cwd, plain);
  return rel && !rel.startsWith("..") ? rel : plain;
}

/**
 * An attempt's steps as JUnit's `<system-out>` lines, in order: each `step()` group's title opens
 * an indented block (`▸ checkout`, with `✖ … failed` when it failed), each step is one line (a
 * check's outcome under it), and the `log()` lines sit where they were logged.
 */
function attemptLines(record: RunRecord): string[] {
  const groups = new Map((record.groups ?? []).map((g) => [g.id, g]));
  const depth = (id: number | undefined): number => (id === undefined ? 0 : depth(groups.get(id)?.parentId) + 1);
  const pad = (id: number | undefined) => "  ".repeat(depth(id));
  const lines: string[] = [];
  let open: number[] = [];
  // Opens the groups of `groupId` not yet open (after closing those it is not in).
  const enter = (groupId: number | undefined) => {
    const chain: number[] = [];
    for (let id = groupId; id !== undefined; id = groups.get(id)?.parentId) chain.unshift(id);
    let kept = 0;
    while (kept < open.length && open[kept] === chain[kept]) kept++;
    for (const id of open.slice(kept).reverse()) {
      const g = groups.get(id)!;
      if (g.status === "failed") lines.push(`${pad(g.parentId)}✖ ${g.title} failed${g.error ? ` [${g.error.code}] ${g.error.message}` : ""}`);
    }
    open = open.slice(0, kept);
    for (const id of chain.slice(kept)) {
      const g = groups.get(id)!;
      lines.push(`${pad(g.parentId)}▸ ${g.title}`);
      open.push(id);
    }
  };
  const logs = [...(record.logs ?? [])];
  const flushLogs = (afterSteps: number) => {
    while (logs.length > 0 && logs[0]!.afterSteps <= afterSteps) {
      const log = logs.shift()!;
      enter(log.groupId);
      lines.push(`${pad(log.groupId)}log ${log.message}${log.data ? ` ${JSON.stringify(log.data)}` : ""}`);
    }
  };
  for (const [i, s] of record.steps.entries()) {
    flushLogs(i);
    enter(s.groupId);
    const p = pad(s.groupId);
    lines.push(`${p}step ${s.index} ${s.type} ${JSON.stringify(s.instruction)} ${s.status} ${s.durationMs}ms${s.replayed ? " replayed" : ""}${s.healed ? " healed" : ""}${s.error ? ` [${s.error.code}] ${s.error.message}` : ""}`);
    if (s.check) lines.push(`${p}  ${s.check.holds ? "✓" : "✗"}${s.check.soft ? " soft" : ""} ${s.check.reason}${s.check.evidence ? ` · seen: ${s.check.evidence}` : ""}`);
  }
  flushLogs(Number.POSITIVE_INFINITY);
  enter(undefined);
  return lines;
}

/**
 * The `json` reporter's document for many workflows (documented in docs/run-report.md): version
 * 1, the suite's status and counts (and `shard` with `--shard`), and per workflow its file, name,
 * the shard that ran it, outcome and every attempt's run record (with its `groups` and `logs`).
 */
export function jsonReport(result: SuiteResult): unknown {
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
      ...(r.entry.tags?.length ? { tags: r.entry.tags } : {}),
      ...(result.shard ? { shard: result.shard } : {}),
      outcome: r.outcome,
      durationMs: r.durationMs,
      attempts: r.attempts,
    })),
  };
}

/**
 * The one-line message of a failed run: the error's first line; for failed soft checks (whose
 * first line only counts them), the checks that did not hold and why.
 */
export function failureMessage(record: RunRecord): string {
  const error = record.error!;
  const first = error.message.split("\n")[0]!;
  const soft = record.steps.filter((s) => s.check?.soft && !s.check.holds);
  if (error.code !== "WF_CHECK_FAILED" || soft.length === 0 || error.stepIndex !== undefined) return first;
  const checks = soft.map((s) => `step ${s.index} ${JSON.stringify(s.instruction)}: ${s.check!.reason}`);
  return `${soft.length} soft check${soft.length === 1 ? "" : "s"} failed: ${checks.join("; ")}`;
}

/**
 * JUnit XML (the shape Jenkins, GitLab and GitHub test reporters read): one `<testsuite>` per
 * file (per project and file with projects, the project as its `hostname`, as Playwright writes
 * it), one `<testcase>` per workflow (its last attempt); a failed one holds `<failure>` with the
 * failing step, code, message and call site (for failed soft checks, the checks); every attempt's
 * steps are `<system-out>` lines; tags are `tag` properties. Flaky workflows pass, and their
 * earlier failures are written in `<system-out>` too.
 */
export async function junitXml(result: SuiteResult, cwd: string): Promise<string> {
  const { XMLBuilder } = await import("fast-xml-parser");
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const byFile = new Map<string, WorkflowResult[]>();
  for (const r of result.results) {
    const key = `${r.entry.project?.name ?? ""}\u0000${r.entry.relFile}`;
    byFile.set(key, [...(byFile.get(key) ?? []), r]);
  }
  const count = (rs: WorkflowResult[], ...outcomes: string[]) => rs.filter((r) => outcomes.includes(r.outcome)).length;
  const suites = [...byFile].map(([key, rs]) => ({ file: rs[0]!.entry.relFile, project: rs[0]!.entry.project?.name, rs })).map(({ file, project, rs }) => ({
    "@_name": file,
    ...(project ? { "@_hostname": project } : {}),
    "@_tests": rs.length,
    "@_failures": count(rs, "failed"),
    "@_skipped": count(rs, "skipped", "interrupted"),
    "@_errors": 0,
    "@_time": seconds(rs.reduce((s, r) => s + r.durationMs, 0)),
    "@_timestamp": rs.find((r) => r.attempts[0])?.attempts[0]?.startedAt ?? result.startedAt,
    testcase: rs.map((r) => {
      const testcase: Record<string, unknown> = { "@_name": r.entry.title, "@_classname": file, "@_time": seconds(r.durationMs) };
      const last = r.attempts.at(-1);
      const properties: Array<{ "@_name": string; "@_value": string }> = [];
      if (r.outcome === "flaky") properties.push({ "@_name": "flaky", "@_value": "true" });
      for (const tag of r.entry.tags ?? []) properties.push({ "@_name": "tag", "@_value": tag });
      // The model calls and tokens of the last attempt, against the budget when there is one.
      if (last?.usage || last?.maxModelCalls !== undefined) {
        properties.push({ "@_name": "wf.model.calls", "@_value": String(last.usage?.calls ?? 0) }, { "@_name": "wf.model.tokens", "@_value": String(last.usage?.totalTokens ?? 0) });
        if (last.usage?.estimated) properties.push({ "@_name": "wf.model.tokensEstimated", "@_value": "true" });
        if (last.maxModelCalls !== undefined) properties.push({ "@_name": "wf.model.maxCalls", "@_value": String(last.maxModelCalls) });
      }
      if (properties.length > 0) testcase.properties = { property: properties.length === 1 ? properties[0] : properties };
      if (r.outcome === "failed" && last?.error) {
        testcase.failure = { "@_message": failureMessage(last), "@_type": last.error.code, "#text": failureText(r, cwd, "") };
      } else if (r.outcome === "skipped" || r.outcome === "interrupted") {
        testcase.skipped = { "@_message": r.outcome === "skipped" ? "did not run" : "interrupted" };
      }
      const out = r.attempts.flatMap((a, i) => [
        ...(r.attempts.length > 1 ? [`attempt ${i + 1}: ${a.status}${a.error ? ` [${a.error.code}] ${a.error.message}` : ""}`] : []),
        ...attemptLines(a),
      ]);
      if (out.length) testcase["system-out"] = out.join("\n");
      return testcase;
    }),
  }));
  const doc = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    testsuites: {
      "@_name": "wf",
      "@_tests": result.results.length,
      "@_failures": result.stats.failed,
      "@_skipped": result.stats.skipped + result.stats.interrupted,
      "@_errors": 0,
      "@_time": seconds(result.durationMs),
      testsuite: suites,
    },
  };
  // suppressBooleanAttributes off: its default writes an attribute whose value is "true" bare (`value`), which is not XML.
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", format: true, suppressEmptyNode: true, suppressBooleanAttributes: false, processEntities: true });
  return builder.build(doc) as string;
}
