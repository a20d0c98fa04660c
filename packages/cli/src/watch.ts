/**
 * `wf run --watch`: runs the workflows once, then watches their files and the helpers they import
 * (the import graph `wf plan` reads, see {@link workflowDependencies}) and, on each save, runs
 * again exactly the workflows the saved file affects: the file itself when it is a workflow, the
 * workflows that import it (directly or through other helpers) when it is a helper. The embedded
 * server (and its browser) stays up between runs, so a re-run starts warm. On a terminal the
 * screen is cleared before each re-run. Aborting `signal` (Ctrl-C) stops the run in progress,
 * closes the watcher and the server, and returns.
 */
import { relative, resolve } from "node:path";
import { isWfError } from "@wf/core";
import { EXIT, type ExitCode } from "./errors.js";
import { workflowDependencies } from "./plan.js";
import type { OutputStream } from "./reporters.js";
import { openService } from "./run.js";
import { bindParams, findWorkflows, runWorkflows, suiteConfig, type RunWorkflowsOptions, type WorkflowEntry } from "./runner.js";
import { selectEntries } from "./select.js";
import { isLiveTerminal } from "./color.js";

/** How long a burst of file events (an editor's save writes, renames, touches) is gathered before re-running, in ms. */
export const WATCH_DEBOUNCE_MS = 150;

/** The line printed whenever the watcher waits; tests and scripts can wait for it. */
export const WATCH_WAITING_LINE = "Waiting for file changes… (Ctrl-C to exit)";

/** Options of {@link watchWorkflows}: those of {@link runWorkflows} (`list`, `entries`, `service` and `fresh` are set here). */
export type WatchWorkflowsOptions = Omit<RunWorkflowsOptions, "list" | "entries" | "service" | "fresh">;

/**
 * Runs the selected workflows, then re-runs the affected ones on every save until `signal` aborts.
 *
 * @returns exit code 0 once interrupted (Ctrl-C is how watch mode ends), whatever the last run's outcome.
 * @throws {@link CliUsageError} (exit code 2) before the first run: no workflow found, bad config,
 *   the embedded server does not start. Later errors (a file that no longer compiles) are printed
 *   and the watch goes on.
 */
export async function watchWorkflows(options: WatchWorkflowsOptions): Promise<{ exitCode: ExitCode }> {
  const cwd = options.cwd ?? process.cwd();
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const signal = options.signal ?? new AbortController().signal;
  const config = options.config ?? (await suiteConfig(options, cwd));
  const pick = (found: WorkflowEntry[]) => selectEntries(found, { projects: config.projects, grep: options.grep, grepInvert: options.grepInvert, repeatEach: config.repeatEach });
  const find = async () => pick(await findWorkflows(options.patterns ?? [], cwd, config.testDir, { fresh: true })).entries;
  let entries = await find();
  if (entries.length === 0) return runWorkflows({ ...options, cwd, config, entries }); // says "No workflow matches"
  // A param no watched workflow declares is a typo, refused once here; a re-run binds each where declared.
  await bindParams(options, config, entries, options.grep !== undefined || options.grepInvert !== undefined, cwd);
  const service = await openService(config, stderr);
  const stopped = new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener("abort", () => done(), { once: true })));
  const { watch } = await import("chokidar");
  // Watched: the folders the workflows were looked up in (new files), and every file of the graph.
  const roots = (options.patterns?.length ? options.patterns : [config.testDir]).map((p) => resolve(cwd, p.replace(/[*?{[].*$/, "") || "."));
  const watcher = watch(roots, { ignoreInitial: true, ignored: (path) => /(^|[/\\])(node_modules|\.git|wf-report)([/\\]|$)/.test(path) });
  const ready = new Promise<void>((done) => watcher.once("ready", () => done()));
  const graph = new Map<string, string[]>();
  const refreshGraph = async (files: Iterable<string>) => {
    for (const file of files) {
      const deps = await workflowDependencies(file).catch(() => [file]);
      graph.set(file, deps);
      watcher.add(deps.filter((d) => !roots.some((root) => !relative(root, d).startsWith(".."))));
    }
  };

  const changed = new Set<string>();
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onFileEvent = (path: string) => {
    changed.add(resolve(path));
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => wake?.(), WATCH_DEBOUNCE_MS);
  };
  watcher.on("change", onFileEvent).on("add", onFileEvent).on("unlink", onFileEvent);

  const clear = () => {
    if (isLiveTerminal(stdout, config.env)) stdout.write("\x1b[2J\x1b[3J\x1b[H");
  };
  const run = async (selected: WorkflowEntry[]) => {
    try {
      await runWorkflows({ ...options, cwd, stdout, stderr, signal, config, entries: selected, service, fresh: true });
    } catch (error) {
      stderr.write(`${isWfError(error) ? error.message : String(error)}\n`);
    }
  };

  try {
    await refreshGraph(new Set(entries.map((e) => e.file)));
    await Promise.race([ready, stopped]);
    if (!signal.aborted) await run(entries);
    let ran = true;
    while (!signal.aborted) {
      if (ran) stdout.write(`\n${WATCH_WAITING_LINE}\n`);
      ran = false;
      if (changed.size === 0) await Promise.race([new Promise<void>((done) => (wake = done)), stopped]);
      wake = undefined;
      if (signal.aborted) break;
      const saved = [...changed];
      changed.clear();
      let affected: WorkflowEntry[];
      try {
        // New, renamed or deleted files change the list; a save of a known file does not.
        const known = new Set(graph.keys());
        if (saved.some((f) => !graph.has(f) && !Array.from(graph.values()).some((deps) => deps.includes(f)))) {
          entries = await find();
          await refreshGraph(entries.map((e) => e.file).filter((f) => !known.has(f)));
        }
        const hit = new Set(entries.map((e) => e.file).filter((file) => !known.has(file) || (graph.get(file) ?? [file]).some((dep) => saved.includes(dep))));
        if (hit.size === 0) continue;
        // Re-read the affected workflows (name, params) and their imports, which the save may have changed.
        const reloaded = await findWorkflows([...hit], cwd, config.testDir, { fresh: true });
        await refreshGraph(hit);
        affected = pick(reloaded).entries;
        entries = [...entries.filter((e) => !hit.has(e.file)), ...affected].sort((a, b) => (a.project?.name ?? "").localeCompare(b.project?.name ?? "") || a.file.localeCompare(b.file) || a.repeatEachIndex - b.repeatEachIndex);
      } catch (error) {
        stderr.write(`${isWfError(error) ? error.message : String(error)}\n`);
        continue;
      }
      if (affected.length === 0) continue;
      clear();
      const names = saved.map((f) => relative(cwd, f) || f);
      stdout.write(`Changed: ${names.join(", ")} → running ${affected.length} workflow${affected.length === 1 ? "" : "s"} again\n`);
      await run(affected);
      ran = true;
    }
  } finally {
    if (timer) clearTimeout(timer);
    await watcher.close();
    await service.close();
  }
  return { exitCode: EXIT.ok };
}
