/**
 * End-to-end benchmark of `wf run` (not a test): the main example,
 * `wf run examples/pg-numeric-types/workflow.ts` on the embedded server, against the plain
 * playwright-core script a user would write for the same job (`_plain-playwright.mjs`: launch
 * Chromium with the server's `CHROMIUM_ARGS`, open the page, read the table rows with `$$eval`).
 * The two run alternately, after one warm-up of each, so machine load hits both alike.
 *
 * Prints each run, both medians, the breakdown of `wf run` (median ms of each phase, from the
 * `WF_TIMING=1` trace the CLI and the embedded server write on stderr: process start, TypeScript
 * loading, server start by part, session create, each step, session close, report writing, exit)
 * and, last, `ratio wf run / plain script: N×` (issue 26's goal: ≤ 1.3×).
 *
 * Two `wf`s are measured: this **source** checkout (`bin/wf.js`: the clone's build, `pnpm wf:build`,
 * while it is current, else the CLI's and the server's TypeScript through tsx; printed first,
 * `WF_CLONE_BUILD=0` forces tsx), and the **installed** build a user gets (`@wf/core` and `@wf/cli` packed and installed
 * with npm into a temporary project holding a copy of the examples; built JavaScript, the server
 * bundled into the CLI). Each gets its ratio to the plain script; the installed one is printed last.
 * `WF_BENCH_SKIP_INSTALL=1` measures the source checkout only; `WF_BENCH_PROJECT=<dir>` uses the wf
 * installed in that project (it must hold `examples/pg-numeric-types` and `examples/_shared`).
 *
 * Run (in packages/cli): pnpm bench:e2e [runs]; 5 runs by default. `WF_BENCH_WF_ARGS` adds arguments
 * to `wf run` (e.g. `--trace off`: no Playwright trace, whose recording the default
 * `retain-on-failure` starts with every session). Needs /usr/bin/chromium (or
 * WF_CHROMIUM_PATH) and Debian's postgresql-doc-15 (the page the example reads).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM_ARGS } from "../../server/src/browser/host.js";
import { installBuild, median, sourceCheckoutRuns } from "./_startup.js";

const RUNS = Number(process.argv[2] ?? process.env.WF_BENCH_RUNS ?? 5);
const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO = join(CLI_DIR, "..", "..");
const WF = join(CLI_DIR, "bin", "wf.js");
const EXAMPLE = join(REPO, "examples", "pg-numeric-types", "workflow.ts");
const PLAIN = join(CLI_DIR, "bench", "_plain-playwright.mjs");
const CHROMIUM = process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium";
const PAGE = "file:///usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";

for (const [what, path] of [["Chromium", CHROMIUM], ["the PostgreSQL documentation (apt-get install postgresql-doc-15)", new URL(PAGE).pathname]] as const) {
  if (!existsSync(path)) throw new Error(`bench:e2e needs ${what} at ${path}.`);
}

/** One spawned run: ms from spawn to exit, and each `wf timing:` milestone as ms since spawn. */
interface Timed {
  exitMs: number;
  marks: { label: string; atMs: number }[];
}

const scratch = mkdtempSync(join(tmpdir(), "wf-e2e-bench-"));

async function spawnTimed(args: string[], env: NodeJS.ProcessEnv, cwd = scratch): Promise<Timed> {
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const exitMs = performance.timeOrigin + performance.now() - spawnedAt;
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${stderr}${stdout.slice(0, 2000)}`);
  if (!/storageSize|smallint/.test(stdout)) throw new Error(`${args.join(" ")} printed no table:\n${stdout.slice(0, 2000)}`);
  const marks = [...stderr.matchAll(/^wf timing: ([\d.]+) (.+)$/gm)].map((m) => ({ label: m[2]!.replace(/ \(.*\)$/, ""), atMs: Number(m[1]) - spawnedAt }));
  return { exitMs, marks };
}

const EXTRA_ARGS = (process.env.WF_BENCH_WF_ARGS ?? "").split(/\s+/).filter(Boolean);
/** Runs the example through the `wf` at `bin` (the source checkout's by default), from `cwd`, with the example at `example`. */
const runWf = (bin = WF, example = EXAMPLE, cwd = scratch) =>
  spawnTimed([bin, "run", example, "--reporter", "json", "--report-dir", join(scratch, "wf-report"), ...EXTRA_ARGS], { WF_TIMING: "1" }, cwd);
const runPlain = () => spawnTimed([PLAIN, CHROMIUM, PAGE, JSON.stringify(CHROMIUM_ARGS)], { WF_TIMING: "1" });

/** The phase each milestone ends, named for the breakdown. */
const PHASES: Record<string, string> = {
  "process start": "process start (spawn → Node's time origin)",
  "tsx registered": "Node start, preloads (yargs, zod, undici, playwright-core, fastify), tsx register",
  "cli loaded": "CLI modules loaded (source: through tsx; installed: Node's start and the built CLI)",
  "config resolved": "command parsed, config resolved",
  "workflow files loaded": "workflow file found, compiled and loaded",
  "run: config ready": "(run: config ready)",
  "run: workflow ready": "(run: workflow ready, params built)",
  "embedded server: importing @wf/server": "(until the server starts)",
  "embedded server: @wf/server imported": "server: importing @wf/server (Fastify, playwright-core, …)",
  "server: store opened": "server: store open",
  "server: browser launched": "server: browser launch",
  "server: sessions recovered": "server: secret, sessions recovered",
  "server: app built": "server: Fastify app built",
  "server: listening": "server: listening",
  "service ready": "server: ready for the client",
  "session: browser context taken": "session create: the request, the context opened ahead taken (waiting for it)",
  "session: trace ready": "session create: the trace recording (started ahead, or started now)",
  "session created": "session create: recorded, answered",
  "run finished": "session close",
  "screenshots and trace collected": "screenshots and trace collected",
  "service closed": "embedded server closed",
  "report collected": "(report collected)",
  "report written": "HTML report written",
  exit: "stdout flushed, exit",
};

/** Prints the median ms of each phase of `runs` (each phase ends at its milestone), and the exit's tail. */
function breakdown(what: string, runs: Timed[]): void {
  console.log(`\nbreakdown of ${what} (median ms per phase, from WF_TIMING=1; each phase ends at its milestone):`);
  const labels = runs[0]!.marks.map((m) => m.label);
  for (const [i, label] of labels.entries()) {
    const durations = runs.map((r) => (r.marks[i]?.label === label ? r.marks[i]!.atMs - (i === 0 ? 0 : r.marks[i - 1]!.atMs) : NaN)).filter((d) => !Number.isNaN(d));
    const name = PHASES[label] ?? (/^step \d+ finished$/.test(label) ? `${label.replace(" finished", "")} (client → step done)` : label);
    console.log(`  ${median(durations).toFixed(0).padStart(6)} ms  ${name}`);
  }
  const tail = runs.map((r) => r.exitMs - (r.marks.at(-1)?.atMs ?? 0));
  console.log(`  ${median(tail).toFixed(0).padStart(6)} ms  process gone (last milestone → the parent sees it close)`);
}

let installedProject: string | undefined;
try {
  console.log(`bench:e2e: ${RUNS} runs each after a warm-up${EXTRA_ARGS.length ? `; wf run … ${EXTRA_ARGS.join(" ")}` : ""}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} (a shared machine raises every figure)`);
  console.log(`source checkout: bin/wf.js runs ${sourceCheckoutRuns()}`);
  let project = process.env.WF_BENCH_PROJECT;
  if (!project && process.env.WF_BENCH_SKIP_INSTALL !== "1") {
    console.log("packing and installing @wf/core and @wf/cli into a temporary project…");
    project = installedProject = installBuild("wf-e2e-bench-", [[join(REPO, "examples", "pg-numeric-types"), "examples/pg-numeric-types"], [join(REPO, "examples", "_shared"), "examples/_shared"]]);
  }
  const runInstalled = project
    ? () => runWf(join(project, "node_modules", "@wf", "cli", "bin", "wf.js"), join(project, "examples", "pg-numeric-types", "workflow.ts"), project)
    : undefined;
  await runWf();
  await runInstalled?.();
  await runPlain();
  const wf: Timed[] = [];
  const installed: Timed[] = [];
  const plain: Timed[] = [];
  for (let i = 0; i < RUNS; i++) {
    wf.push(await runWf());
    if (runInstalled) installed.push(await runInstalled());
    plain.push(await runPlain());
    console.log(`run ${i + 1}: wf run (source) ${wf[i]!.exitMs.toFixed(0)} ms, ${runInstalled ? `wf run (installed) ${installed[i]!.exitMs.toFixed(0)} ms, ` : ""}plain script ${plain[i]!.exitMs.toFixed(0)} ms`);
  }
  const wfMedian = median(wf.map((r) => r.exitMs));
  const plainMedian = median(plain.map((r) => r.exitMs));

  breakdown("wf run, source checkout", wf);
  if (runInstalled) breakdown("wf run, installed build", installed);
  breakdown("the plain script", plain);
  console.log(`\nwf run (embedded), source checkout: median ${wfMedian.toFixed(0)} ms`);
  if (runInstalled) console.log(`wf run (embedded), installed build: median ${median(installed.map((r) => r.exitMs)).toFixed(0)} ms`);
  console.log(`plain playwright-core script: median ${plainMedian.toFixed(0)} ms`);
  console.log(`ratio wf run (source checkout) / plain script: ${(wfMedian / plainMedian).toFixed(2)}×`);
  if (runInstalled) console.log(`ratio wf run / plain script: ${(median(installed.map((r) => r.exitMs)) / plainMedian).toFixed(2)}× (the installed build)`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  if (installedProject) rmSync(join(installedProject, ".."), { recursive: true, force: true });
}
