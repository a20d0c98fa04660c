/**
 * Reporters of `wf run`: they turn the runtime's events into output. `pretty` is for people (live
 * step lines with colours on a terminal, plain lines elsewhere), `json` prints the run record at
 * the end, `ndjson` prints one event per line. Every line passes through `redact` first, so a
 * secret param's value never reaches the stream.
 */
import { relative } from "node:path";
import { createColors } from "picocolors";
import type { GroupRecord, RunEvent, RunRecord, StepRecord } from "@wf/runtime";
import type { ReporterName } from "./config.js";
import { isLiveTerminal, wantsColor } from "./color.js";
import { redactJson } from "./redact-json.js";

/** Where a reporter writes: anything with `write(string)` (a stream, or a test's collector). */
export interface OutputStream {
  write(chunk: string): unknown;
  /** True on a terminal: enables live lines (and colours unless `NO_COLOR`). */
  isTTY?: boolean;
  /** Terminal width in columns, used to keep live lines on one row. */
  columns?: number;
}

/** Consumes the events of one run. */
export interface Reporter {
  onEvent(event: RunEvent): void;
  /** Called once after the run, whatever happened; flushes what is pending. */
  end(): void;
}

/** Options of {@link createReporter}. */
export interface CreateReporterOptions {
  /** Where results go (`json` and `ndjson` write only here). */
  stdout: OutputStream;
  /** Where the pretty reporter's failure message goes. @default stdout */
  stderr?: OutputStream;
  /** Masks secrets in a line of text; applied to everything written. @default identity */
  redact?: (text: string) => string;
  /** The environment, read for `NO_COLOR` and `FORCE_COLOR`. @default process.env */
  env?: Record<string, string | undefined>;
  /** Call sites (`file:line:col`) are shown relative to this folder. @default process.cwd() */
  cwd?: string;
}

/**
 * Creates the named reporter.
 *
 * Colours follow {@link wantsColor} (https://no-color.org, `FORCE_COLOR`, a terminal).
 */
export function createReporter(name: ReporterName, options: CreateReporterOptions): Reporter {
  const redact = options.redact ?? ((s: string) => s);
  const stdout = options.stdout;
  if (name === "json") {
    let record: RunRecord | undefined;
    return {
      onEvent: (event) => {
        if (event.type === "run-finished") record = event.record;
      },
      end: () => {
        if (record) stdout.write(JSON.stringify(redactJson(record, redact), null, 2) + "\n");
      },
    };
  }
  if (name === "ndjson") {
    return { onEvent: (event) => void stdout.write(JSON.stringify(redactJson(event, redact)) + "\n"), end: () => {} };
  }
  return createPrettyReporter(stdout, options.stderr ?? stdout, redact, options.env ?? process.env, options.cwd ?? process.cwd());
}

/**
 * The pretty reporter. A failed step's message is shown once, under the step; when the run failed
 * because of that step, the last line (on `stderr`) only says where: `✖ run failed at step 3 (flow.ts:12:5)`.
 * Any other failure (the output schema, a timeout, a session that could not start) prints the
 * outcome line, then the error message on `stderr`.
 */
function createPrettyReporter(stdout: OutputStream, stderr: OutputStream, redact: (s: string) => string, env: Record<string, string | undefined>, cwd: string): Reporter {
  const live = isLiveTerminal(stdout, env);
  const c = createColors(wantsColor(stdout, env));
  const width = () => Math.max(40, stdout.columns ?? 100);
  // On a terminal, the step in progress is an unfinished line that its result overwrites.
  let pending: string | undefined;
  const clearPending = () => {
    if (pending !== undefined) stdout.write("\r\x1b[2K");
  };
  const line = (text: string, out: OutputStream = stdout) => {
    if (live) clearPending();
    out.write(redact(text) + "\n");
    if (live && pending !== undefined) stdout.write(pending);
  };
  // Steps whose failure (with its message) has been shown under the step.
  const failedShown = new Set<number>();
  // How deep each open step() group is: its steps and logs are indented under its title.
  const depths = new Map<number, number>();
  const indentOf = (groupId: number | undefined) => "  ".repeat(groupId === undefined ? 0 : (depths.get(groupId) ?? 0) + 1);
  const stepLabel = (index: number, type: string, instruction: string) => `${c.dim(`${index}.`)} ${c.bold(typeLabel(type, c))} ${instruction}`;

  return {
    onEvent(event) {
      switch (event.type) {
        case "run-started":
          line(`${c.bold("wf")} ${event.workflow}  ${c.dim("debugger:")} ${c.underline(event.debuggerUrl)}`);
          break;
        case "group-started": {
          const g = event.group;
          depths.set(g.id, g.parentId === undefined ? 0 : (depths.get(g.parentId) ?? 0) + 1);
          line(live ? `${indentOf(g.parentId)}${c.bold("▸")} ${c.bold(oneLine(g.title))}` : `group ${g.id} ${JSON.stringify(oneLine(g.title))} started${g.parentId !== undefined ? ` in group ${g.parentId}` : ""}`);
          break;
        }
        case "group-finished": {
          const g = event.group;
          if (live) {
            if (g.status === "failed") line(`${indentOf(g.parentId)}${c.red("✖")} ${oneLine(g.title)} ${c.dim(`failed (${formatMs(g.durationMs)})`)}`);
          } else {
            line(`group ${g.id} ${JSON.stringify(oneLine(g.title))} ${g.status} ${g.durationMs}ms${g.error ? ` error=${g.error.code}: ${oneLine(g.error.message)}` : ""}`);
          }
          break;
        }
        case "step-started": {
          const text = `${stepLabel(event.index, event.stepType, oneLine(event.instruction))}${event.attempt > 1 ? c.dim(` (attempt ${event.attempt})`) : ""}`;
          if (live) {
            clearPending();
            pending = truncate(redact(`${indentOf(event.groupId)}${c.yellow("…")} ${text}`), width() - 1);
            stdout.write(pending);
          } else {
            line(`step ${event.index} ${event.stepType} ${JSON.stringify(oneLine(event.instruction))} started${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`);
          }
          break;
        }
        case "step-finished": {
          const step = event.step;
          if (step.status === "failed" && step.error) failedShown.add(step.index);
          if (live) {
            clearPending();
            pending = undefined;
            const indent = indentOf(step.groupId);
            stdout.write(redact(formatStepLive(step, c, width() - indent.length).replace(/^/gm, indent)) + "\n");
          } else {
            line(formatStepPlain(step));
          }
          break;
        }
        case "log":
          line(live ? `${indentOf(event.groupId)}  ${c.dim("log")} ${event.message}` : `log ${event.message}${event.data ? ` ${JSON.stringify(event.data)}` : ""}`);
          break;
        case "run-finished": {
          if (live) clearPending();
          pending = undefined;
          const r = event.record;
          const tokens = modelSummary(r);
          const summary = `${r.steps.length} step${r.steps.length === 1 ? "" : "s"} in ${formatMs(r.durationMs)}${tokens}`;
          if (r.status === "succeeded") {
            line(live ? `${c.green("✔")} ${c.bold(r.workflow)} succeeded ${c.dim(`(${summary})`)}` : `run succeeded (${summary})`);
            if (r.output !== undefined) line(typeof r.output === "string" ? r.output : JSON.stringify(r.output, null, 2));
          } else if (r.status === "failed" && r.error?.stepIndex !== undefined && failedShown.has(r.error.stepIndex)) {
            const where = r.error.callSite ? ` (${shortCallSite(r.error.callSite, cwd)})` : "";
            const model = modelSummary(r);
            const text = `run failed at step ${r.error.stepIndex}${where}${model ? `;${model.slice(1)}` : ""}`;
            line(live ? `${c.red("✖")} ${text}` : text, stderr);
          } else {
            const head = live ? `${r.status === "cancelled" ? c.yellow("■") : c.red("✖")} ${c.bold(r.workflow)} ${r.status} ${c.dim(`(${summary})`)}` : `run ${r.status} (${summary})`;
            line(head);
            if (r.error) {
              const code = r.error.code && !r.error.message.includes("[WF_") ? ` [${r.error.code}]` : "";
              const at = r.error.callSite && !r.error.message.includes(r.error.callSite) ? `\n    at ${r.error.callSite}` : "";
              line(`${r.error.message}${code}${at}`, stderr);
            }
          }
          break;
        }
      }
    },
    end() {
      if (live && pending !== undefined) {
        clearPending();
        pending = undefined;
      }
    },
  };
}

type Colors = ReturnType<typeof createColors>;

function formatStepLive(step: StepRecord, c: Colors, width: number): string {
  const mark = step.status === "succeeded" ? c.green("✔") : c.red("✖");
  const duration = formatMs(step.durationMs) + (step.usage ? ` · ${stepUsage(step.usage)}` : "");
  // The instruction gives way first, so the status and duration always show.
  const room = Math.max(10, width - `✔ ${step.index}. ACT  ${duration}`.length - 1);
  const head = `${mark} ${c.dim(`${step.index}.`)} ${c.bold(typeLabel(step.type, c))} ${cut(oneLine(step.instruction), room)} ${c.dim(duration)}`;
  const lines = [head];
  if (step.check) lines.push(`   ${checkLine(step.check, c, Math.max(20, width - 24))}${step.status === "failed" && step.error ? c.dim(` [${step.error.code}]`) : ""}`);
  if (step.interpreter === "model" && step.resolved) lines.push(`   ${c.dim(`↳ ${step.healed ? "healed by the model" : step.lockEntryMissing ? "model, no lock entry" : "model"}: ${cut(oneLine(step.resolved), Math.max(20, width - 24))}`)}`);
  if (step.replayed && step.resolved) lines.push(`   ${c.dim(`↳ ${step.healed ? "lock, healed (element found again)" : "lock"}: ${cut(oneLine(step.resolved), Math.max(20, width - (step.healed ? 40 : 13)))}`)}`);
  if (step.status === "succeeded" && step.type === "ASK" && "answer" in step) lines.push(`   ${c.dim("→")} ${compact(step.answer, Math.max(20, width - 6))}`);
  if (step.status === "failed" && step.error && !step.check) lines.push(`   ${c.red(step.error.message)}${step.error.code && !step.error.message.includes(`[${step.error.code}]`) ? c.dim(` [${step.error.code}]`) : ""}`);
  return lines.join("\n");
}

/** The step type as the pretty reporter writes it: ACT blue, ASK cyan, CHECK magenta. */
function typeLabel(type: string, c: Colors): string {
  return type === "ASK" ? c.cyan("ASK") : type === "CHECK" ? c.magenta("CHECK") : c.blue("ACT");
}

/**
 * A check's outcome under its step: `✓ reason · seen: evidence`, or `✗ …` in red (`soft` when it
 * was a `check.soft`, whose failure the run reports at its end), with the service's code.
 */
function checkLine(check: NonNullable<StepRecord["check"]>, c: Colors, width: number): string {
  const text = cut(`${check.holds ? "✓" : "✗"}${check.soft && !check.holds ? " soft" : ""} ${oneLine(check.reason)}${check.evidence ? ` · seen: ${oneLine(check.evidence)}` : ""}`, width);
  return check.holds ? c.green(text) : c.red(text);
}

/** `file:line:col` with the file relative to `cwd` (kept absolute when it lies outside). */
function shortCallSite(callSite: string, cwd: string): string {
  const match = /^(.*?):(\d+)(?::(\d+))?$/.exec(callSite.replace(/^file:\/\//, ""));
  if (!match) return callSite;
  const rel = relative(cwd, match[1]!);
  const file = rel && !rel.startsWith("..") ? rel : match[1]!;
  return `${file}:${match[2]}${match[3] ? `:${match[3]}` : ""}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatStepPlain(step: StepRecord): string {
  let out = `step ${step.index} ${step.type} ${JSON.stringify(oneLine(step.instruction))} ${step.status} ${step.durationMs}ms`;
  if (step.status === "succeeded" && step.type === "ASK" && "answer" in step) out += ` answer=${compact(step.answer, 500)}`;
  if (step.interpreter === "model") out += ` model${step.resolved ? `=${JSON.stringify(oneLine(step.resolved))}` : ""}`;
  if (step.replayed) out += ` replayed${step.resolved ? `=${JSON.stringify(oneLine(step.resolved))}` : ""}`;
  if (step.healed) out += " healed";
  if (step.lockEntryMissing) out += " no-lock-entry";
  if (step.usage) out += ` tokens=${step.usage.estimated ? "~" : ""}${step.usage.totalTokens}${step.usage.calls > 1 ? ` calls=${step.usage.calls}` : ""}`;
  if (step.check) out += ` check=${step.check.holds ? "✓" : "✗"}${step.check.soft ? " soft" : ""}`;
  if (step.status === "failed" && step.error) out += ` error=${step.error.code}: ${oneLine(step.error.message)}`;
  return out;
}

/** A value on one line, cut at `max` characters. */
function compact(value: unknown, max = 200): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cuts a line (which may hold ANSI colour codes) to `max` visible characters. */
function truncate(text: string, max: number): string {
  let visible = 0;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\x1b") {
      const end = text.indexOf("m", i);
      if (end !== -1) {
        out += text.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    if (visible >= max - 1 && i < text.length - 1) return `${out}…${out.includes("\x1b") ? "\x1b[0m" : ""}`;
    out += text[i];
    visible++;
  }
  return out;
}

/**
 * The titles of group `groupId` and its ancestors in `record`, outermost first (`[]` outside any).
 */
export function groupPath(record: Pick<RunRecord, "groups">, groupId: number | undefined): string[] {
  const byId = new Map<number, GroupRecord>((record.groups ?? []).map((g) => [g.id, g]));
  const path: string[] = [];
  for (let id = groupId; id !== undefined && path.length < 64; ) {
    const group = byId.get(id);
    if (!group) break;
    path.unshift(group.title);
    id = group.parentId;
  }
  return path;
}

/**
 * The model part of a run's summary: `, 770 tokens in 2 model calls`, and with a budget
 * `, 770 tokens in 2 of 5 model calls (--max-model-calls)`; then the model calls the action lock
 * saved, `, 3 model calls saved (replayed from the lock)` (see {@link lockSummary}); empty with
 * none of these. Calls are HTTP requests to the provider; `~770 tokens` when some count is the
 * service's estimate.
 */
export function modelSummary(record: Pick<RunRecord, "usage" | "maxModelCalls"> & { steps?: RunRecord["steps"] }): string {
  const saved = lockSummary(replayedSteps(record));
  const calls = record.usage?.calls ?? 0;
  if (!record.usage && record.maxModelCalls === undefined) return saved;
  const budget = record.maxModelCalls !== undefined ? ` of ${record.maxModelCalls}` : "";
  return `, ${record.usage?.estimated ? "~" : ""}${formatTokens(record.usage?.totalTokens ?? 0)} in ${calls}${budget} model call${(record.maxModelCalls ?? calls) === 1 ? "" : "s"}${budget ? " (--max-model-calls)" : ""}${saved}`;
}

/** How many steps of a run replayed the action lock (an ACT's recorded actions, a read's recipe): each one a model call the recording made and the run did not. */
export function replayedSteps(record: { steps?: RunRecord["steps"] }): number {
  return (record.steps ?? []).filter((s) => s.replayed).length;
}

/** `, 3 model calls saved (replayed from the lock)`; empty for 0. */
export function lockSummary(replayed: number): string {
  return replayed > 0 ? `, ${replayed} model call${replayed === 1 ? "" : "s"} saved (replayed from the lock)` : "";
}

/**
 * A step's model usage for people: `330 tokens`, `~330 tokens` when the service estimated some
 * count (the provider reported none, or junk), `· 3 calls` when it took more than one request.
 */
export function stepUsage(usage: { totalTokens: number; calls: number; estimated?: boolean | undefined }): string {
  return `${usage.estimated ? "~" : ""}${formatTokens(usage.totalTokens)}${usage.calls > 1 ? ` in ${usage.calls} calls` : ""}`;
}

/** A token count for people: `812 tokens`, `12.4k tokens`. */
export function formatTokens(tokens: number): string {
  return `${tokens < 10_000 ? tokens : `${(tokens / 1000).toFixed(1)}k`} token${tokens === 1 ? "" : "s"}`;
}

/** A duration for people: `850ms`, `1.2s`, `2m 5s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
}
