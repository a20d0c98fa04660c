/**
 * `@wf/cli/vitest`: `act`, `ask` and `check` of `@wf/core` inside ordinary Vitest tests.
 *
 * `useWf()` (or the setup file `@wf/cli/vitest/setup`, which calls it) registers an `aroundEach`
 * hook that binds the DSL to the test: the test's first step opens a session (one per test), on
 * the service `WF_SERVICE_URL` names or on an embedded server started in `beforeAll` (within the
 * hook's timeout, not a test's) and closed after the file's tests (`afterAll`). A check that sets
 * no `timeoutMs` waits at most half the test's timeout, so with Vitest's 5 s default a failing
 * check fails as `WF_CHECK_FAILED`, not as the test's timeout. ACTs use the action lock beside the test
 * file (`login.test.ts` → `login.test.wf.lock.json`), keyed by the test's full name plus the call
 * site. A failed test's screenshot and trace are saved under the report folder and their paths
 * appended to the test's error, so Vitest's failure output shows them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import * as vitest from "vitest";
import type { TestContext } from "vitest";
import { currentRun, SoftChecksFailedError, workflow, type Executor, type StepGroup, type StepOutcome, type StepRequest } from "@wf/core";
import { DEFAULT_CHECK_TIMEOUT_MS } from "@wf/core/protocol";
import { lockPathFor, runWorkflow, type RunRecord } from "@wf/runtime";
import { CliUsageError } from "./errors.js";
import { parseCliEnv, resolveCliConfig, type LockModeName, type ResolvedCliConfig } from "./config.js";
import { openService, type OpenService } from "./run.js";

/** Options of {@link useWf}; each defaults to what `wf run` resolves (flags aside) from `wf.config.ts`, `.env` and the environment. */
export interface UseWfOptions {
  /** Folder `wf.config.ts` and `.env` are read from. @default process.cwd() (Vitest's root) */
  cwd?: string;
  /** How ACTs use the lock beside the test file. @default `WF_LOCK`, else the config's (`frozen` on CI, `heal` with a model, else `read`) */
  lock?: LockModeName;
  /** Record a Playwright trace of each test's session, kept for failed tests. @default true unless `WF_TRACE=off` */
  trace?: boolean;
  /** Time the hook may take to open the service and close the session, in ms. @default 120_000 */
  hookTimeoutMs?: number;
  /**
   * Start the service in `beforeAll`, so its start (a browser launch, seconds on a loaded machine)
   * counts against `hookTimeoutMs`, not the first test's `testTimeout`. `false`: start it in the
   * first test that takes a step (a file whose tests take none starts none), within that test's
   * timeout. @default true
   */
  startEarly?: boolean;
  /**
   * How long a check that sets no `timeoutMs` retries, in ms. @default half the test's timeout,
   * at most 5_000 (Playwright's `expect` timeout): 2_500 under Vitest's 5 s default
   */
  checkTimeoutMs?: number;
}

/** The service of this worker: opened by the first test that takes a step, closed after the file's tests. */
let service: Promise<{ config: ResolvedCliConfig; open: OpenService }> | undefined;

/**
 * Binds `act`/`ask`/`check` to a wf session for each test of the current file (or `describe`).
 * Call it once at the top of a test file, or list `@wf/cli/vitest/setup` in `setupFiles`.
 *
 * @throws (in the test) `CliUsageError` `WF_CLI_SERVER_FAILED` when the embedded server does not start.
 */
export function useWf(options: UseWfOptions = {}): void {
  const { aroundEach, afterAll, beforeAll } = vitest as Partial<typeof vitest>;
  if (typeof aroundEach !== "function" || !afterAll || !beforeAll) {
    throw new CliUsageError("WF_CLI_VITEST_UNSUPPORTED", "@wf/cli/vitest needs Vitest 4.1 or later (its aroundEach hook runs each test in its wf session). Upgrade vitest.");
  }
  const hookTimeoutMs = options.hookTimeoutMs ?? 120_000;
  if (options.startEarly !== false) beforeAll(async () => void (await openShared(resolve(options.cwd ?? process.cwd()))), hookTimeoutMs);
  aroundEach(async (runTest, context) => {
    const session = new TestSession(context, options);
    // With the service started early, the test's session opens here too, in the hook's time (a
    // context and its trace take seconds on a loaded machine): the test's timeout is its steps'.
    // A session that cannot open fails the test at its first step, with the reason.
    if (options.startEarly !== false) await session.openAhead().catch(() => undefined);
    let softError: unknown;
    try {
      await session.bind(runTest);
    } catch (error) {
      softError = error;
    }
    const failed = softError !== undefined || context.task.result?.state === "fail";
    const evidence = await session.finish(failed);
    if (evidence.length > 0) {
      const note = `\n${evidence.join("\n")}`;
      for (const error of context.task.result?.errors ?? []) {
        error.message += note;
        if (typeof error.stack === "string") error.stack = error.stack.replace(/^(.*?)(\n\s+at |$)/s, (_m, head: string, rest: string) => `${head}${note}${rest}`);
      }
      if (softError instanceof Error) softError.message += note;
    }
    if (softError !== undefined) throw softError;
  }, hookTimeoutMs);
  afterAll(async () => {
    const closing = service;
    service = undefined;
    if (closing) await (await closing).open.close();
  }, hookTimeoutMs);
}

function openShared(cwd: string): Promise<{ config: ResolvedCliConfig; open: OpenService }> {
  service ??= (async () => {
    const config = await resolveCliConfig({ cwd });
    return { config, open: await openService(config) };
  })();
  // A failed start is not cached: the next test tries again (and reports the same error).
  service.catch(() => (service = undefined));
  return service;
}

/** One test's session, opened at its first step. */
class TestSession implements Executor {
  private opening: Promise<Executor> | undefined;
  /** The runtime's executor of the open session. */
  private inner: Executor | undefined;
  private record: Promise<RunRecord> | undefined;
  private endTest: (() => void) | undefined;
  private config: ResolvedCliConfig | undefined;
  private open: OpenService | undefined;
  /** Set when the test ended: a session still opening then closes at once. */
  private ended = false;
  private readonly testEnded: Promise<void>;

  constructor(
    private readonly context: TestContext,
    private readonly options: UseWfOptions,
  ) {
    this.testEnded = new Promise<void>((done) => (this.endTest = done));
  }

  /** Runs the test with `act`/`ask`/`check` bound to this session. @throws SoftChecksFailedError when a `check.soft` failed. */
  async bind(runTest: () => Promise<void>): Promise<void> {
    const { runWithExecutor } = await import("@wf/core");
    await runWithExecutor({ executor: this, signal: this.context.signal, checkTimeoutMs: checkTimeoutFor(this.context.task.timeout, this.options.checkTimeoutMs) }, runTest);
  }

  /** Opens the test's session ahead of its first step. @throws why it could not (the first step throws it again). */
  async openAhead(): Promise<void> {
    await this.start();
  }

  async runStep(step: StepRequest, signal: AbortSignal): Promise<StepOutcome> {
    const mapped = this.withSourceCallSite(step);
    const inner = await this.start();
    this.flushGroups();
    return inner.runStep(mapped, signal);
  }

  /** Group openings and closings told before the session opened, passed on at its first step. */
  private readonly pendingGroups: Array<() => void> = [];

  onGroupStart(group: StepGroup): void {
    this.pendingGroups.push(() => this.inner?.onGroupStart?.(group));
    if (this.inner) this.flushGroups();
  }

  onGroupEnd(group: StepGroup, outcome: { error?: unknown; softFailed?: boolean }): void {
    this.pendingGroups.push(() => this.inner?.onGroupEnd?.(group, outcome));
    if (this.inner) this.flushGroups();
  }

  private flushGroups(): void {
    for (const tell of this.pendingGroups.splice(0)) tell();
  }

  onStepDecoded(step: StepRequest, outcome: { value?: unknown; error?: Error }): void {
    // An answer is decoded after its step ran, so the session is open by then.
    this.inner?.onStepDecoded?.(this.withSourceCallSite(step), outcome);
  }

  /** The call site of each step index, in the test file's source. */
  private readonly sites = new Map<number, string>();

  /**
   * The step with its call site in the source's lines and columns. `@wf/core` reads call sites
   * through Node's source maps, which do not know Vite's transform: under Vitest it gets the
   * transformed file's position. Vitest maps `Error().stack` itself, and the user's frame is still
   * on the stack when a step's first attempt reaches the executor (act/ask/check run synchronously
   * up to here), so the mapped frame of the same file is taken from there.
   */
  private withSourceCallSite(step: StepRequest): StepRequest {
    if (!step.callSite) return step;
    let site = this.sites.get(step.index);
    if (site === undefined) {
      const file = step.callSite.replace(/:\d+:\d+$/, "");
      site = step.callSite;
      for (const line of (new Error().stack ?? "").split("\n")) {
        const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
        if (m && m[1]!.replace(/^file:\/\//, "").replace(/\?.*$/, "") === file) {
          site = `${file}:${m[2]}:${m[3]}`;
          break;
        }
      }
      this.sites.set(step.index, site);
    }
    return site === step.callSite ? step : { ...step, callSite: site };
  }

  /**
   * Opens the session: a run of `runWorkflow` whose handler lends its executor to this test and
   * waits for the test's end, so the runtime's lock, uploads, screenshots and closing apply as in `wf run`.
   */
  private start(): Promise<Executor> {
    this.opening ??= (async () => {
      const { config, open } = await openShared(resolve(this.options.cwd ?? process.cwd()));
      // The test ended (its timeout) while the service started: open no session for it.
      if (this.ended) throw new Error("wf: the test ended before its session opened.");
      this.config = config;
      this.open = open;
      const task = this.context.task;
      const file = task.file.filepath;
      const testName = fullName(task);
      const mode = lockMode(this.options.lock, config);
      const ended = this.testEnded;
      let lend!: (executor: Executor) => void;
      const lent = new Promise<Executor>((done) => (lend = done));
      const flow = workflow({ name: "vitest-test" }, async () => {
        this.inner = currentRun()!.executor;
        lend(this.inner);
        await ended;
      });
      this.record = runWorkflow(flow, {
        client: open.client,
        signal: this.context.signal,
        trace: this.options.trace ?? config.trace !== "off",
        screenshot: config.screenshot,
        uploads: open.embedded ? "local" : "send",
        // Upload paths resolve against Vitest's folder, as the embedded server's do (its upload root).
        uploadDir: process.cwd(),
        ...(config.maxModelCalls !== undefined ? { maxModelCalls: config.maxModelCalls } : {}),
        lock: {
          path: lockPathFor(file),
          mode,
          model: config.model !== undefined,
          refreshCommand: `WF_LOCK=write npx vitest run ${relative(process.cwd(), file)} -t ${JSON.stringify(task.name)}`,
          test: testName,
        },
      });
      return Promise.race([lent, this.record.then((record) => Promise.reject(new Error(`wf could not open a session for the test: ${record.error?.message ?? record.status}`)))]);
    })();
    return this.opening;
  }

  /**
   * Ends the test's run (the session closes) and, when the test failed, saves the failed step's
   * screenshot and the session's trace under `<reportDir>/vitest/`.
   * @returns lines naming the saved files (empty when the test passed or took no step).
   */
  async finish(failed: boolean): Promise<string[]> {
    if (!this.opening) return [];
    this.ended = true;
    this.endTest?.();
    // A test that timed out may end while its session is still opening: wait for that first.
    await this.opening.catch(() => undefined);
    const record = await this.record?.catch(() => undefined);
    if (!record || !failed || !this.open || !this.config) return [];
    const dir = join(this.config.reportDir, "vitest", slug(fullName(this.context.task)));
    const lines: string[] = [];
    const { client } = this.open;
    const failedStep = [...record.steps].reverse().find((s) => s.status === "failed" && s.stepId);
    const sessionId = record.sessionId ?? "";
    try {
      const png = failedStep?.stepId ? await client.getScreenshot(sessionId, failedStep.stepId) : undefined;
      if (png) {
        await mkdir(dir, { recursive: true });
        const path = join(dir, `step-${failedStep!.index}.png`);
        await writeFile(path, png);
        lines.push(`wf screenshot: ${path}`);
      }
      const trace = sessionId ? await client.getTrace(sessionId) : undefined;
      if (trace) {
        await mkdir(dir, { recursive: true });
        const path = join(dir, "trace.zip");
        await writeFile(path, trace);
        lines.push(`wf trace: ${path} (open with \`npx wf show-trace ${path}\`)`);
      }
    } catch (error) {
      lines.push(`wf: could not save the failed test's evidence: ${(error as Error).message}`);
    }
    return lines;
  }
}

/**
 * The lock mode: `useWf({ lock })`, else `WF_LOCK` (how a Vitest run records: `WF_LOCK=write npx
 * vitest run`), else the config's.
 * @throws CliUsageError `WF_CLI_CONFIG_INVALID` when `WF_LOCK` is not a mode (the environment schema's message).
 */
function lockMode(option: LockModeName | undefined, config: ResolvedCliConfig): LockModeName {
  if (option) return option;
  return parseCliEnv(config.env, ["WF_LOCK"]).WF_LOCK ?? config.lock;
}

/**
 * The default check wait of a test: `own` when set, else half the test's timeout (Vitest's
 * `testTimeout`, 5 s by default; 0 means none), at most {@link DEFAULT_CHECK_TIMEOUT_MS}, so a
 * failing check fails as itself before the test's timeout.
 */
export function checkTimeoutFor(testTimeoutMs: number | undefined, own?: number): number {
  if (own !== undefined) return own;
  if (!testTimeoutMs || testTimeoutMs <= 0) return DEFAULT_CHECK_TIMEOUT_MS;
  return Math.min(DEFAULT_CHECK_TIMEOUT_MS, Math.floor(testTimeoutMs / 2));
}

/** `suite > test`, as Vitest names a test in its output. */
function fullName(task: TestContext["task"]): string {
  const names: string[] = [task.name];
  for (let suite = task.suite; suite && suite.name && suite !== (task.file as unknown); suite = suite.suite) names.unshift(suite.name);
  return names.join(" > ");
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80) || "test";
}

export { SoftChecksFailedError };
