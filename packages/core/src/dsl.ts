/**
 * `act` and `ask`: the two calls a workflow is made of. They bind to the run in progress through
 * `AsyncLocalStorage`, so helper modules can call them too.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { findSourceMap, type SourceMap } from "node:module";
import { AnswerValidationError, RunAbortedError, SoftChecksFailedError, StepFailedError, WorkflowContextError, isWfError } from "./errors.js";
import type { CheckOptions, Executor, Logger, StepGroup, StepOptions, StepOutcome, StepRequest } from "./executor.js";
import { decodeAnswer, toResponseFormat } from "./schema/translate.js";
import { DEFAULT_CHECK_TIMEOUT_MS } from "./protocol/index.js";
import type { AnySchema, InferSchema } from "./schema/types.js";

/** The run a call of `act`/`ask` belongs to. */
export interface RunContext {
  executor: Executor;
  signal: AbortSignal;
  log: Logger;
  /** Steps taken so far; the next step's index is `stepCount + 1`. */
  stepCount: number;
  /** Failed soft checks (`check.soft`) so far; the run fails at its end when there is any. */
  softFailures: StepFailedError[];
  /** Step groups (`step()`) opened so far; the next group's id is `groupCount + 1`. */
  groupCount: number;
  /** How long a check retries when its call sets no `timeoutMs`, in ms. @default 5_000 */
  checkTimeoutMs: number;
}



// A user's workflow file may load its own copy of @wf/core; one storage per process keeps
// act/ask bound to the run whichever copy they come from.
const STORAGE_KEY = Symbol.for("wf.core.runContext");
const storage: AsyncLocalStorage<RunContext> = ((globalThis as Record<symbol, unknown>)[STORAGE_KEY] ??=
  new AsyncLocalStorage<RunContext>()) as AsyncLocalStorage<RunContext>;

/** The `step()` group the code runs in, with its run (a group of another run does not count). */
interface OpenGroup {
  run: RunContext;
  group: StepGroup;
}
const GROUP_STORAGE_KEY = Symbol.for("wf.core.stepGroup");
const groupStorage: AsyncLocalStorage<OpenGroup> = ((globalThis as Record<symbol, unknown>)[GROUP_STORAGE_KEY] ??=
  new AsyncLocalStorage<OpenGroup>()) as AsyncLocalStorage<OpenGroup>;

/**
 * Runs `fn` with `act`/`ask`/`check` bound to `executor`. Used by the runtime and by the server's
 * stored runs; most users never call it.
 *
 * @returns what `fn` returns.
 * @throws {@link SoftChecksFailedError} (`WF_CHECK_FAILED`) when `fn` finished but a `check.soft` failed.
 */
export async function runWithExecutor<T>(
  context: {
    executor: Executor;
    signal: AbortSignal;
    log?: Logger;
    /** How long a check retries when its call sets no `timeoutMs`, in ms (0 to 570,000). @default 5_000 */
    checkTimeoutMs?: number;
  },
  fn: () => Promise<T>,
): Promise<T> {
  const checkTimeoutMs = context.checkTimeoutMs === undefined ? DEFAULT_CHECK_TIMEOUT_MS : checkTimeout("the run's checkTimeoutMs", context.checkTimeoutMs);
  const run: RunContext = { executor: context.executor, signal: context.signal, log: context.log ?? (() => {}), stepCount: 0, softFailures: [], groupCount: 0, checkTimeoutMs };
  const value = await storage.run(run, fn);
  if (run.softFailures.length > 0) throw new SoftChecksFailedError(run.softFailures);
  return value;
}

/** The run in progress, or `undefined` outside a run. */
export function currentRun(): RunContext | undefined {
  return storage.getStore();
}

/** The innermost `step()` group of the run in progress, or `undefined` outside any. */
export function currentStepGroup(): StepGroup | undefined {
  const open = groupStorage.getStore();
  return open && open.run === storage.getStore() ? open.group : undefined;
}

/**
 * Runs `body` as a named group of steps, like Playwright Test's `test.step`: the steps it takes
 * (directly or through helpers) are shown under `title` in the reporters, the HTML report, the
 * run record (`groups`, each step's `groupId`) and the Playwright trace. Groups nest.
 *
 * @param title - what the group does, e.g. `"sign in"`; 1 to 1,000 characters.
 * @param body - the group's code; called at once, with no argument.
 * @returns what `body` returns (awaited).
 * @throws what `body` throws (the group is recorded as failed); {@link WorkflowContextError} if
 *   called outside a workflow run; TypeError for an empty or over-long title.
 * @example const total = await step("add to cart", async () => { await act('click "Add"'); return ask("the total", z.number()); });
 */
export async function step<T>(title: string, body: () => T | Promise<T>): Promise<Awaited<T>> {
  const context = requireRun("step");
  if (typeof title !== "string" || title.trim().length === 0) throw new TypeError(`step() needs a non-empty title string, got ${JSON.stringify(title)}.`);
  if (title.length > 1000) throw new TypeError(`step() title is ${title.length} characters; at most 1,000.`);
  if (typeof body !== "function") throw new TypeError(`step("${title}") needs a function as its second argument, got ${typeof body}.`);
  const callSite = captureCallSite(step);
  const parent = currentStepGroup();
  context.groupCount += 1;
  const group: StepGroup = { id: context.groupCount, title, ...(parent ? { parentId: parent.id } : {}), ...(callSite ? { callSite } : {}) };
  const softBefore = context.softFailures.length;
  context.executor.onGroupStart?.(group);
  try {
    const value = await groupStorage.run({ run: context, group }, async () => await body());
    context.executor.onGroupEnd?.(group, context.softFailures.length > softBefore ? { softFailed: true } : {});
    return value;
  } catch (error) {
    context.executor.onGroupEnd?.(group, { error });
    throw error;
  }
}

/** A file an action downloaded, as the service kept it (Playwright's `download` event). */
export interface ActDownload {
  /** The file's suggested name, e.g. `q3-report.csv`. */
  name: string;
  /** Its size in bytes. */
  sizeBytes: number;
  /** Its media type, e.g. `text/csv` (from the response, else the name's extension). */
  mimeType: string;
  /** The URL it came from. */
  url: string;
  /** Its id at the service (`GET /workflow/view/{id}/downloads/{downloadId}`). */
  downloadId: string;
}

/** What {@link act} returns: the service's result of the action, and the files it downloaded. */
export interface ActOutcome {
  /** The verb carried out, e.g. `click` (absent when the service's result says none). */
  action?: string;
  /** One line on what was done. */
  message?: string;
  /** The page URL after the action. */
  url?: string;
  /** The files the action downloaded, in the order they began; empty when none. `wf run` also saves them in its report. */
  downloads: ActDownload[];
  /** The rest of the service's result. */
  [key: string]: unknown;
}

/**
 * Runs one natural-language action in the current workflow run.
 *
 * @param instruction - what to do, e.g. `click "Sign in"`; 1 to 4,000 characters.
 * @param options.timeoutMs - how long the step may take, in ms. @default the executor's (30_000)
 * @param options.retries - extra attempts when the step fails. @default 0
 * @returns the service's result of the action (what was done, the page URL) and the files it
 *   downloaded ({@link ActOutcome}).
 * @throws {@link StepFailedError} if the service reports the step as failed.
 * @throws {@link WorkflowContextError} if called outside a workflow run.
 * @example await act('type "pg" into "Search"')
 * @example const { downloads } = await act('click "Export CSV"'); // downloads[0].name, .sizeBytes
 */
export async function act(instruction: string, options: StepOptions = {}): Promise<ActOutcome> {
  const context = requireRun("act");
  checkInstruction("act", instruction);
  const callSite = captureCallSite(act);
  const outcome = await runWithRetries(context, options, (attempt, index) => ({
    type: "ACT",
    instruction,
    index,
    attempt,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(callSite ? { callSite } : {}),
  }));
  const result = outcome.value !== null && typeof outcome.value === "object" && !Array.isArray(outcome.value) ? (outcome.value as Record<string, unknown>) : {};
  return { ...result, downloads: (outcome.downloads ?? []).map((d) => ({ name: d.name, sizeBytes: d.sizeBytes, mimeType: d.mimeType, url: d.url, downloadId: d.downloadId })) };
}

/**
 * Asks a question about the current page.
 *
 * Without a schema the answer is text. With a zod 4 or zod 3 schema, the schema travels as an
 * OpenAI strict structured output (see `toResponseFormat`) and the answer comes back parsed
 * through it, typed as `z.infer<typeof schema>`.
 *
 * @param question - what to find out, e.g. `"the table of prices"`; 1 to 4,000 characters.
 * @param schema - the shape of the answer (any zod schema strict mode can express).
 * @param options.timeoutMs - how long the step may take, in ms. @default the executor's (30_000)
 * @param options.retries - extra attempts when the step fails or the answer does not match. @default 0
 * @throws {@link SchemaTranslationError} if the schema cannot be a strict structured output.
 * @throws {@link AnswerValidationError} if the answer does not match the schema.
 * @throws {@link StepFailedError} if the service reports the step as failed.
 * @throws {@link WorkflowContextError} if called outside a workflow run.
 * @example const rows = await ask("the table of prices", z.array(z.object({ name: z.string(), price: z.number() })))
 */
export function ask(question: string, options?: StepOptions): Promise<string>;
export function ask<S extends AnySchema>(question: string, schema: S, options?: StepOptions): Promise<InferSchema<S>>;
export async function ask(question: string, schemaOrOptions?: AnySchema | StepOptions, maybeOptions?: StepOptions): Promise<unknown> {
  const context = requireRun("ask");
  checkInstruction("ask", question);
  const schema = isSchema(schemaOrOptions) ? schemaOrOptions : undefined;
  const options = (isSchema(schemaOrOptions) ? maybeOptions : schemaOrOptions) ?? {};
  // Translate before anything is sent: a schema strict mode refuses fails here, at the call.
  const responseFormat = schema ? toResponseFormat(schema, "answer") : undefined;
  const callSite = captureCallSite(ask);
  const outcome = await runWithRetries(
    context,
    options,
    (attempt, index) => ({
      type: "ASK",
      instruction: question,
      index,
      attempt,
      ...(responseFormat ? { responseFormat } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(callSite ? { callSite } : {}),
    }),
    (raw) => (schema ? decodeAnswer(schema, raw) : typeof raw === "string" ? raw : JSON.stringify(raw)),
  );
  return outcome.value;
}

/** Service codes a soft check records and goes on after: the statement did not hold, or could not be shown to. */
const SOFT_CODES = new Set(["WF_CHECK_FAILED", "WF_ANSWER_UNCERTAIN"]);

/**
 * Time a check's step may take beyond its retry window, in ms: a last evaluation (a model call)
 * started just before the window closed still finishes.
 */
const CHECK_STEP_GRACE_MS = 30_000;

/** @throws TypeError unless `value` is a whole number of ms from 0 to 570,000 (what a check's step may wait). */
function checkTimeout(what: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 570_000) {
    throw new TypeError(`${what} must be a whole number of ms from 0 to 570,000, got ${JSON.stringify(value)}.`);
  }
  return value;
}

async function runCheck(statement: string, options: CheckOptions, soft: boolean, caller: DslFunction): Promise<void> {
  const what = soft ? "check.soft" : "check";
  const context = requireRun(what);
  checkInstruction(what, statement);
  const timeoutMs = options.timeoutMs !== undefined ? checkTimeout(`${what}() timeoutMs`, options.timeoutMs) : context.checkTimeoutMs;
  const callSite = captureCallSite(caller);
  try {
    await runWithRetries(context, {}, (attempt, index) => ({
      type: "CHECK",
      instruction: statement,
      index,
      attempt,
      timeoutMs: timeoutMs + CHECK_STEP_GRACE_MS,
      check: { timeoutMs, soft },
      ...(callSite ? { callSite } : {}),
    }));
  } catch (error) {
    // The executor may come from another copy of @wf/core than this file (the server importing a
    // workflow file, a loader's own module instance): a StepFailedError is known by its code too.
    const failed = error instanceof StepFailedError || (isWfError(error) && error.code === "WF_STEP_FAILED") ? (error as StepFailedError) : undefined;
    if (soft && failed && SOFT_CODES.has(failed.serviceCode) && !context.signal.aborted) {
      context.softFailures.push(failed);
      return;
    }
    throw error;
  }
}

/**
 * Asserts a statement about the current page, retrying until it holds (like Playwright's `expect`).
 *
 * Statements in the grammar's forms are checked with no model: `the page shows "Saved"`,
 * `"Delete" is visible` / `is not visible`, `the URL contains "/orders"`, `the title is "Orders"`,
 * `the "Terms" checkbox is checked`, `the "Email" field is "ada@example.com"` / `is empty`,
 * `"Pay" is enabled` / `is disabled`, `there are 3 "Pending" rows` (items, links, buttons), each
 * optionally `in the "…" dialog` / `in the "…" row`. Any other statement goes to the service's
 * model, which must quote the page as its evidence.
 *
 * @param statement - what must be true, e.g. `the page shows "Order placed"`; 1 to 4,000 characters.
 * @param options.timeoutMs - how long to retry until it holds, in ms; 0 checks once. @default the run's `checkTimeoutMs` (`check: { timeoutMs }` in wf.config.ts), else 5_000
 * @returns nothing; it resolves once the statement holds.
 * @throws {@link StepFailedError} with service code `WF_CHECK_FAILED` (the reason and what was seen
 *   are in its message) when it does not hold in time, `WF_ANSWER_UNCERTAIN` when the model could
 *   not quote the page, `WF_INSTRUCTION_NOT_UNDERSTOOD` for a statement in no grammar form on a
 *   service without a model.
 * @throws {@link WorkflowContextError} if called outside a workflow run.
 * @example await check('the page shows "Order placed"')
 */
export const check: CheckFunction = Object.assign(
  function check(statement: string, options: CheckOptions = {}): Promise<void> {
    return runCheck(statement, options, false, check);
  },
  {
    /**
     * {@link check}, but a failure is recorded and the workflow goes on; the run fails at its end
     * (`WF_CHECK_FAILED`, listing every failed soft check). Like Playwright's `expect.soft`.
     */
    soft: function soft(statement: string, options: CheckOptions = {}): Promise<void> {
      return runCheck(statement, options, true, soft);
    },
  },
);

/** The type of {@link check}: the call, and `check.soft`. */
export interface CheckFunction {
  (statement: string, options?: CheckOptions): Promise<void>;
  soft(statement: string, options?: CheckOptions): Promise<void>;
}

async function runWithRetries(
  context: RunContext,
  options: StepOptions,
  build: (attempt: number, index: number) => StepRequest,
  decode?: (raw: unknown) => unknown,
): Promise<{ value: unknown; downloads?: StepOutcome["downloads"] }> {
  const retries = Math.max(0, Math.floor(options.retries ?? 0));
  context.stepCount += 1;
  const index = context.stepCount;
  const group = currentStepGroup();
  for (let attempt = 1; ; attempt++) {
    if (context.signal.aborted) throw new RunAbortedError(context.signal.reason);
    const step = group ? { ...build(attempt, index), groupId: group.id } : build(attempt, index);
    try {
      const outcome = await context.executor.runStep(step, context.signal);
      if (!decode) return { value: outcome.result, ...(outcome.downloads ? { downloads: outcome.downloads } : {}) };
      try {
        const value = decode(outcome.result);
        context.executor.onStepDecoded?.(step, { value });
        return { value };
      } catch (error) {
        context.executor.onStepDecoded?.(step, { error: error as Error });
        throw error;
      }
    } catch (error) {
      const retriable = error instanceof StepFailedError || error instanceof AnswerValidationError || (isWfError(error) && (error.code === "WF_STEP_FAILED" || error.code === "WF_ANSWER_INVALID"));
      if (!retriable || attempt > retries || context.signal.aborted) throw error;
    }
  }
}

function requireRun(what: string): RunContext {
  const context = storage.getStore();
  if (!context) throw new WorkflowContextError(what);
  return context;
}

function checkInstruction(what: string, instruction: unknown): void {
  if (typeof instruction !== "string" || instruction.trim().length === 0) {
    throw new TypeError(`${what}() needs a non-empty instruction string, got ${JSON.stringify(instruction)}.`);
  }
  if (instruction.length > 4000) {
    throw new TypeError(`${what}() instruction is ${instruction.length} characters; the service takes at most 4,000.`);
  }
}

function isSchema(value: unknown): value is AnySchema {
  return typeof value === "object" && value !== null && ("_zod" in value || "_def" in value) && typeof (value as { parse?: unknown }).parse === "function";
}

/**
 * Finds the first stack frame outside `@wf/core`: where the user's file called `act`/`ask`.
 * Returns `path:line:column`, or `undefined` when the stack tells nothing.
 */
const OWN_FILE = safeDecode(new URL(import.meta.url).pathname);

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Frames kept when capturing the call site: the caller of act/ask, and a few more for helpers in between. */
const CALL_SITE_FRAMES = 5;

/**
 * Reads the stack as V8's call sites and maps only the frame it returns through the module's
 * source map (when source maps are on, as under tsx), instead of formatting `new Error().stack`,
 * which maps every frame: that was the largest per-step cost of our own in the runtime benchmark.
 *
 * @param dslFunction - `act` or `ask`: V8 leaves out its frame and every frame above it.
 */
function captureCallSite(dslFunction: DslFunction): string | undefined {
  // Most calls come straight from the user's code: the one frame below act/ask is enough, and
  // costs less to collect than five, which are taken only when that one is not the user's.
  return userSite(stackSites(dslFunction, 1)) ?? userSite(stackSites(dslFunction, CALL_SITE_FRAMES));
}

/** `act` or `ask`, as V8's `Error.captureStackTrace` takes it. */
type DslFunction = (...args: never[]) => unknown;

/** The `frames` call sites below `dslFunction`'s frame. */
function stackSites(dslFunction: DslFunction, frames: number): NodeJS.CallSite[] {
  const previous = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_error, callSites) => callSites;
    Error.stackTraceLimit = frames;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, dslFunction);
    return Array.isArray(holder.stack) ? (holder.stack as NodeJS.CallSite[]) : [];
  } finally {
    Error.prepareStackTrace = previous;
    Error.stackTraceLimit = limit;
  }
}

function userSite(sites: NodeJS.CallSite[]): string | undefined {
  for (const site of sites) {
    const script = site.getFileName() ?? undefined;
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!script || line === null || column === null) continue;
    const key = `${script}:${line}:${column}`;
    let found = resolvedSites.get(key);
    if (found === undefined) {
      if (resolvedSites.size >= MAX_RESOLVED_SITES) resolvedSites.clear();
      found = resolveSite(script, line, column);
      resolvedSites.set(key, found);
    }
    if (found !== null) return found;
  }
  return undefined;
}

/**
 * Call sites already mapped, by the compiled frame's `script:line:column`: a step in a loop, or a
 * helper called from many places, maps its frame once (source-map lookup and path clean-up were
 * a third of `captureCallSite`'s time per step). `null` marks a frame of ours or of a package.
 */
const resolvedSites = new Map<string, string | null>();
/** Bound on {@link resolvedSites} (watch mode re-imports files under new URLs): cleared when reached. */
const MAX_RESOLVED_SITES = 10_000;

/** The frame as `path:line:column` of its source, or null when the frame is not the user's. */
function resolveSite(script: string, compiledLine: number, compiledColumn: number): string | null {
  let source = script;
  let line = compiledLine;
  let column = compiledColumn;
  const entry = sourceMapOf(script)?.findEntry(line - 1, column - 1);
  if (entry && "originalSource" in entry && entry.originalSource) {
    source = entry.originalSource;
    line = entry.originalLine + 1;
    column = entry.originalColumn + 1;
  }
  // Loaders add a query to module URLs (tsx: `?tsx-namespace=…`); the file is what matters.
  const file = safeDecode(source.replace(/^file:\/\//, "").replace(/\?.*$/, ""));
  if (file === OWN_FILE || file.startsWith("node:") || file.includes("/node_modules/")) return null;
  return `${file}:${line}:${column}`;
}

function sourceMapOf(script: string): SourceMap | undefined {
  try {
    return findSourceMap(script);
  } catch {
    return undefined;
  }
}
