/** `wf run <file>`: runs a workflow file. */
import { DEBUG_SLOW_MO_MS, REPORTERS, SCREENSHOT_MODES, type ReporterName } from "../names.js";
import { defineCommand, type CliContext } from "./_types.js";
import type { ResolvedCliConfig } from "../config.js";
import type { RunWorkflowsOptions } from "../runner.js";
import { timingMark } from "../timing.js";
import { nonBlank } from "@wf/server/env-flag";

export const runCommand = defineCommand({
  command: "run [files..]",
  describe: "Run workflow files: one, or many in parallel as a test runner (the embedded server unless a service URL is configured)",
  builder: (yargs) =>
    yargs
      .positional("files", { type: "string", array: true, default: [] as string[], describe: "Workflow files (.ts), folders and globs [default: testDir of wf.config.ts, else workflows/]" })
      .option("param", {
        alias: ["p", "var"],
        type: "string",
        array: true,
        default: [] as string[],
        describe: "A param as key=value (repeatable; --var is the same), for every selected workflow that declares it; converted by the param's zod type; a name no selected workflow declares is refused (unless --grep, --shard or --last-failed cut the selection)",
      })
      .option("param-env", {
        type: "string",
        array: true,
        default: [] as string[],
        describe: "A param read from an environment variable, as name=VARIABLE (repeatable), e.g. --param-env password=SHOP_PASSWORD, for every selected workflow that declares it: keeps secrets off the command line (ps, shell history); adds to paramsFromEnv in wf.config.ts; --param beats it",
      })
      .option("params-file", { alias: "vars-file", type: "string", describe: "A JSON object of params (--vars-file is the same, as on `wf trigger`); --param overrides its fields" })
      .option("service-url", { type: "string", describe: "The wf service to run steps on (else WF_SERVICE_URL, serviceUrl in wf.config.ts, or an embedded server)" })
      .option("base-url", { type: "string", hidden: true, describe: "Deprecated: the old name of --service-url" })
      .option("app-url", { type: "string", describe: "The app's base URL: go to /login opens <url>/login, as Playwright's baseURL (else WF_APP_URL, use.baseURL in wf.config.ts); beats every project's" })
      .option("project", { type: "string", array: true, describe: "Run only this project of wf.config.ts (repeatable; names without case) [default: every project]" })
      .option("last-failed", { type: "boolean", describe: "Run only the workflows that failed in the last run (kept in <report-dir>/.last-run.json)" })
      .option("debug", {
        type: "boolean",
        describe: `Debug a run: headed (--no-headed keeps the window shut), slowed down (${DEBUG_SLOW_MO_MS} ms unless --slow-mo), one worker, no retries, no --timeout, and a pause before each step on the terminal (Enter runs it, c runs on). PWDEBUG=1 is the same`,
      })
      .option("api-key", { type: "string", describe: "The service's API key (else WF_API_KEY or wf.config.ts)" })
      .option("reporter", {
        alias: "r",
        type: "string",
        describe: `One or several, comma-separated: ${REPORTERS.join(", ")} [default: pretty for one workflow, list for several]`,
      })
      .option("out", { alias: "o", type: "string", describe: "Write the run record (JSON, secrets redacted) to this file (one workflow only)" })
      .option("timeout", { type: "number", describe: "Abort a workflow's run after this many ms (status cancelled, code WF_RUN_TIMEOUT, exit 1)" })
      .option("model", { type: "string", describe: "Model for free-form steps on the embedded server, e.g. gpt-4.1-mini (else WF_MODEL, or wf.config.ts model; provider from OPENAI_API_KEY / OPENAI_BASE_URL)" })
      .option("workers", { alias: "j", type: "number", describe: "Workflows run at once, on one shared server [default: half the CPU cores, at least 1]" })
      .option("grep", { alias: "g", type: "string", describe: "Only workflows matching this regular expression: on the project, file, name and tags (@smoke), as Playwright's" })
      .option("grep-invert", { type: "string", describe: "Only workflows not matching this regular expression (project, file, name, tags)" })
      .option("retries", { type: "number", describe: "Run a failed workflow again up to this many times; passed on a retry = flaky [default: 0]" })
      .option("max-failures", { type: "number", describe: "Stop starting workflows after this many failed [default: 0, no limit]" })
      .option("x", { type: "boolean", describe: "Stop after the first failure (--max-failures 1)" })
      .option("trace", {
        choices: ["on", "off", "retain-on-failure", "on-first-retry"] as const,
        describe: "Record a Playwright trace of each workflow's session into the report (<report-dir>/<workflow>/trace.zip; open with wf show-trace): on, off, retain-on-failure (kept when the attempt failed), on-first-retry [default: retain-on-failure, or WF_TRACE, or trace in wf.config.ts]",
      })
      .option("screenshot", {
        choices: SCREENSHOT_MODES,
        describe: "Which steps get a screenshot (in the report and the debugger page): on (every step: slower, each step waits for its picture), only-on-failure (the failed steps), off [default: only-on-failure, as Playwright Test; or WF_SCREENSHOT, or screenshot in wf.config.ts]",
      })
      .option("report-dir", { type: "string", describe: "Folder of the HTML report every run writes (emptied first; screenshots and traces beside it) [default: wf-report, or WF_REPORT_DIR, or reportDir in wf.config.ts]" })
      .option("repeat-each", { type: "number", describe: "Run each workflow this many times, each run reported on its own [default: 1]" })
      .option("headed", { type: "boolean", describe: "Show the embedded server's browser window (needs a display) [default: headless]" })
      .option("slow-mo", { type: "number", describe: "Slow each browser operation of the embedded server down by this many ms [default: 0]" })
      .option("watch", { alias: "w", type: "boolean", describe: "Run, then run again the workflows a saved file affects (the workflow, or a helper it imports), on the same browser, until Ctrl-C" })
      .option("list", { type: "boolean", describe: "List the workflows that would run, with their projects, tags and params, without running them" })
      .option("shard", { type: "string", describe: "Run part i of n of the selected workflows (i/n, e.g. 1/3): a deterministic split by file, for a CI matrix; merge the parts' reports with wf merge-reports" })
      .option("lock", {
        choices: ["frozen", "read", "write", "heal", "off"] as const,
        describe:
          "The action lock beside the workflow (<name>.wf.lock.json): frozen = replay, and an ACT with no entry that needs the model fails WF_LOCK_MISSING (like npm ci); read = replay, an ACT with no entry may use the model (the step says so); write = record what the model resolves; heal = replay, and let the model repair a step that no longer replays; off. an ASK is replayed by its read recipe, and one with none that needs the model fails WF_LOCK_MISSING under frozen [default: frozen on CI (CI=true); else lock in wf.config.ts; else heal with a model, read without]",
      })
      .option("max-model-calls", {
        type: "number",
        describe: "Fail a workflow's run (WF_MODEL_BUDGET_EXCEEDED) once it would make one more model call than this; 0 = no model call at all [default: no limit, or WF_MAX_MODEL_CALLS, or maxModelCalls in wf.config.ts]",
      })
      .example("$0 run workflows/search.ts --param query=postgres", "Run on the embedded server with one param")
      .example("$0 run", "Run every workflow of testDir (workflows/), half the cores at a time")
      .example("$0 run flows/ 'nightly/**/*.ts' --workers 2 --retries 1 --reporter list,junit", "Many workflows; JUnit XML in wf-report/junit.xml")
      .example("$0 run --grep checkout --list", "What would run")
      .example("$0 run --grep @smoke --project mobile", "The workflows tagged @smoke, in the mobile project of wf.config.ts")
      .example("$0 run --last-failed", "Only what failed last time")
      .example("$0 run flows/checkout.ts --debug", "Headed and slowed down, pausing before each step")
      .example("$0 run --app-url http://localhost:3000", "go to /login opens http://localhost:3000/login")
      .example("$0 run flows/ --shard 2/3 --report-dir wf-report-2", "The second of three CI machines; then wf merge-reports wf-report-*")
      .example("$0 run flows/ --watch", "Re-run what each save affects; the browser stays up")
      .example("$0 run flows/checkout.ts --headed --slow-mo 500", "Watch the browser do it, half a second per operation")
      .example("$0 run flows/ --repeat-each 10 --workers 4", "Hunt a flaky workflow: each runs 10 times")
      .example("SHOP_PASSWORD=… $0 run flow.ts --param-env password=SHOP_PASSWORD", "A secret param from the environment, not the command line")
      .example("$0 run flow.ts --params-file params.json --reporter json --out run.json", "Params from a file; print and save the run record")
      .example("WF_SERVICE_URL=http://127.0.0.1:8787 WF_API_KEY=… $0 run flow.ts", "Run on a service started with `wf serve`")
      .example("OPENAI_API_KEY=sk-… $0 run flow.ts --model gpt-4.1-mini", "Free-form steps through a model")
      .example("$0 run flow.ts --lock write --model gpt-4.1-mini", "Record flow.wf.lock.json; later runs replay it with no model call")
      .example("CI=true $0 run flows/", "Replay every lock frozen: a step with no entry fails WF_LOCK_MISSING, no model call")
      .example("$0 run flows/ --max-model-calls 5", "Fail a run that would make a sixth model call")
      .epilog("Exit codes: 0 succeeded (flaky workflows included), 1 a workflow failed or timed out, 2 usage or configuration error, 130 interrupted (Ctrl-C; the sessions are closed first)."),
  handler: async (args, context) => {
    const { CliUsageError } = await import("../errors.js");
    const positive = (flag: string, value: number | undefined, min: number) => {
      if (value !== undefined && (!Number.isInteger(value) || value < min)) throw new CliUsageError("WF_CLI_USAGE", `--${flag} must be a whole number${min > 0 ? ` above ${min - 1}` : " (0 or more)"}, got ${value}.`);
    };
    positive("timeout", args.timeout, 1);
    positive("workers", args.workers, 1);
    positive("retries", args.retries, 0);
    positive("max-failures", args["max-failures"], 0);
    positive("repeat-each", args["repeat-each"], 1);
    positive("slow-mo", args["slow-mo"], 0);
    positive("max-model-calls", args["max-model-calls"], 0);
    // The service client, and the embedded server unless a service URL is given, load before the
    // first workflow file registers tsx (see _import.ts).
    const { preloadBeforeTsx } = await import("../_import.js");
    preloadBeforeTsx(() => import("@wf/runtime"));
    // Blank is unset, as resolveCliConfig reads it (the zod-free half of the schema: this runs before it).
    const named = [args["service-url"], args["base-url"], context.env.WF_SERVICE_URL, context.env.WF_BASE_URL];
    if (named.every((url) => nonBlank(url) === undefined)) preloadBeforeTsx(() => import("@wf/server"));
    const { resolveCliConfig } = await import("../config.js");
    const config = await resolveCliConfig({
      cwd: context.cwd,
      env: context.env,
      flags: {
        serviceUrl: args["service-url"],
        baseUrl: args["base-url"],
        appUrl: args["app-url"],
        projects: args.project?.map(String),
        debug: args.debug,
        apiKey: args["api-key"],
        reporter: args.reporter,
        timeoutMs: args.timeout,
        model: args.model,
        workers: args.workers,
        retries: args.retries,
        maxFailures: args.x ? 1 : args["max-failures"],
        repeatEach: args["repeat-each"],
        headed: args.headed,
        slowMoMs: args["slow-mo"],
        lock: args.lock,
        maxModelCalls: args["max-model-calls"],
        trace: args.trace,
        screenshot: args.screenshot,
        reportDir: args["report-dir"],
      },
    });
    timingMark("config resolved");
    for (const notice of config.notices) context.stderr.write(`wf: ${notice}\n`);
    const { parseShard } = await import("../shard.js");
    const shard = args.shard !== undefined ? parseShard(String(args.shard)) : undefined;
    const files = (args.files ?? []).map(String);
    const { parseParamFlags } = await import("../params.js");
    // --debug pauses before each step until a line comes on stdin.
    const pause = config.debug ? (await import("../debug-pause.js")).createDebugPause({ stdin: context.stdin ?? process.stdin, stderr: context.stderr, cwd: context.cwd }) : undefined;
    // What selects and feeds the workflows, the same in watch mode and in one run.
    const suite = {
      patterns: files,
      cwd: context.cwd,
      env: context.env,
      stdout: context.stdout,
      stderr: context.stderr,
      signal: context.signal,
      config,
      params: parseParamFlags(args.param.map(String)),
      paramEnv: parseParamFlags(args["param-env"].map(String), "--param-env"),
      ...(args.grep !== undefined ? { grep: args.grep } : {}),
      ...(args["grep-invert"] !== undefined ? { grepInvert: args["grep-invert"] } : {}),
      ...(args["last-failed"] ? { lastFailed: true } : {}),
      ...(args["params-file"] !== undefined ? { paramsFile: args["params-file"] } : {}),
      ...(shard ? { shard } : {}),
      ...(pause ? { beforeStep: pause.beforeStep } : {}),
    };
    try {
      if (args.watch) {
        if (shard) throw new CliUsageError("WF_CLI_USAGE", "--watch reruns the workflows you edit and --shard splits a CI run: pass one of them.");
        if (args.list) throw new CliUsageError("WF_CLI_USAGE", "--watch runs workflows and --list runs none: pass one of them.");
        if (args["last-failed"]) throw new CliUsageError("WF_CLI_USAGE", "--watch reruns the workflows you edit and --last-failed the ones that failed: pass one of them.");
        if (args.out !== undefined) throw new CliUsageError("WF_CLI_USAGE", "--out saves one run's record; in --watch mode use a reporter with an outputFile (reporter: [[\"json\", { outputFile: \"run.json\" }]]).");
        const { watchWorkflows } = await import("../watch.js");
        const watched = await watchWorkflows(suite);
        return watched.exitCode;
      }
      return await runOnceOrMany(args, context, config, suite, files);
    } finally {
      pause?.close();
    }
  },
});

/**
 * `wf run` once: one workflow (the usual `wf run flow.ts`, its output unchanged) through
 * `runWorkflowFile`, or many through the runner. For one named file the embedded server's Chromium
 * starts before the file is compiled and loaded; the run takes it, or it is closed.
 */
async function runOnceOrMany(
  args: { list?: boolean | undefined; out?: string | undefined; "params-file"?: string | undefined },
  context: CliContext,
  config: ResolvedCliConfig,
  suite: RunWorkflowsOptions & { patterns: string[] },
  files: string[],
): Promise<number> {
  const { CliUsageError } = await import("../errors.js");
  // The launch begins (playwright-core loaded, Chromium spawning) before the runner and the file load.
  const { launchEmbeddedBrowser, closeEarlyBrowser } = await import("../early-browser.js");
  const { changesContext } = await import("../projects.js");
  const oneFile = files.length === 1 && /\.[cm]?ts$/.test(files[0]!) && !/[*?{[]/.test(files[0]!);
  const oneRun = oneFile && !args.list && !suite.shard && !suite.lastFailed && config.retries === 0 && config.repeatEach === 1 && config.projects.length <= 1;
  // A session with context options of its own (a project's device) opens its own context: no page ahead.
  // Many runs share one server: its Chromium starts too, while the workflow files compile (bench:suite).
  const ownContext = oneRun ? changesContext(config.projects[0]?.use ?? config.use) : [config.use, ...config.projects.map((p) => p.use)].some((use) => changesContext(use));
  const early = args.list ? undefined : launchEmbeddedBrowser(config, { openPage: !ownContext });
  await early?.started;
  try {
    const { selectRun, bindParams, runWorkflows, reporterSpecs } = await import("../runner.js");
    const selection = args.list ? undefined : await selectRun(suite, config, context.cwd);
    const entries = selection?.entries ?? [];
    timingMark("workflow files loaded");
    const specs = reporterSpecs(config, entries.length);
    // One workflow with a single-run reporter and no retries: today's `wf run <file>`, output unchanged.
    const single = !args.list && entries.length === 1 && config.retries === 0 && config.repeatEach === 1 && specs.length === 1 && ["pretty", "json", "ndjson"].includes(specs[0]!.name) && !specs[0]!.outputFile;
    if (!single && args.out !== undefined) throw new CliUsageError("WF_CLI_USAGE", `--out saves one workflow's run record; for many use --reporter json with an outputFile in wf.config.ts (reporter: [["json", { outputFile: "run.json" }]]).`);
    if (single) {
      const entry = entries[0]!;
      const params = (await bindParams(suite, config, entries, selection!.cut, context.cwd))(entry.workflow).strings;
      const { runWithReport } = await import("../report/report.js");
      const { runWorkflowFile } = await import("../run.js");
      const machineOutput = specs[0]!.name !== "pretty";
      const result = await runWithReport({ config, cwd: context.cwd, entry, stdout: context.stdout, stderr: context.stderr, machineOutput, ...(suite.shard ? { shard: suite.shard } : {}) }, (hooks) =>
        runWorkflowFile({
          ...hooks,
          file: entry.file,
          cwd: context.cwd,
          env: context.env,
          stdout: context.stdout,
          stderr: context.stderr,
          signal: context.signal,
          config: { ...config, reporter: specs[0]!.name as ReporterName },
          params,
          ...(entry.project ? { project: entry.project } : {}),
          ...(suite.beforeStep ? { beforeStep: suite.beforeStep } : {}),
          ...(early ? { browser: early } : {}),
          ...(args["params-file"] !== undefined ? { paramsFile: args["params-file"] } : {}),
          ...(args.out !== undefined ? { out: args.out } : {}),
        }),
      );
      return result.exitCode;
    }
    const result = await runWorkflows({ ...suite, list: args.list === true, ...(selection ? { selection } : {}), ...(early ? { browser: early } : {}) });
    return result.exitCode;
  } finally {
    await closeEarlyBrowser(early); // taken by the run (its server owns it then), or closed here
  }
}
