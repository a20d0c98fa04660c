/**
 * Start-up benchmark of `wf` (not a test), for two ways of running it:
 * - **installed**: the packed @wf/core and @wf/cli tarballs installed with npm into a temporary
 *   project outside the workspace (built JavaScript, as a user gets it);
 * - **source**: `bin/wf.js` in this repository: the clone's build (`pnpm wf:build`) while it is current,
 *   the CLI's TypeScript through tsx otherwise (printed first; `WF_CLONE_BUILD=0` forces tsx).
 * For each: `wf --help` (spawn to exit) and `wf run <file>` from spawn to the first request reaching
 * the service, a tiny node:http server that records when each request arrives and answers 401 at
 * once, so the run ends right after. Goals (issue 14): run ≤ 300 ms, help ≤ 150 ms median.
 *
 * Run (in packages/cli): pnpm bench [runs]; 7 runs by default. `WF_BENCH_SKIP_INSTALL=1` measures the
 * source checkout only (no pack, no npm install); `WF_BENCH_PROJECT=<dir>` measures the wf installed
 * in that project instead of installing one (it must hold flow.ts, a copy of tests/fixtures/params.ts).
 * Prints each run in ms and the medians, beside Node's own start on this machine (`node -e ""`,
 * spawn to exit): the floor under both figures, which load on a shared machine raises. For the
 * installed build it also prints the floor under `wf run` itself: `_floor.mjs`, copied into the
 * project, which loads zod and undici's `Pool` as a run does and sends one request (spawn to that
 * request), and what `wf run` spends above it.
 */
import { spawn } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuild, median, sourceCheckoutRuns, startInstantService } from "./_startup.js";

const FLOOR = fileURLToPath(new URL("./_floor.mjs", import.meta.url));

const RUNS = Number(process.argv[2] ?? process.env.WF_BENCH_RUNS ?? 7);
const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
const WORKFLOW = fileURLToPath(new URL("../tests/fixtures/params.ts", import.meta.url));

const service = await startInstantService();

/** Measures `wf --help` and `wf run` for one way of running wf; returns the medians in ms. */
async function measure(label: string, bin: string, workflow: string, cwd: string): Promise<{ help: number; run: number }> {
  const runArgs = service.runArgs(workflow);
  await service.spawnOnce(bin, ["--help"], cwd); // warm the file system cache and tsx's compile cache
  await service.spawnOnce(bin, runArgs, cwd);
  const help: number[] = [];
  const run: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    help.push((await service.spawnOnce(bin, ["--help"], cwd)).exitMs);
    const ran = await service.spawnOnce(bin, runArgs, cwd);
    if (ran.requestMs === undefined) throw new Error(`${label}: wf run exited without sending a request; run it by hand to see why.`);
    run.push(ran.requestMs);
    console.log(`${label} run ${i + 1}: wf --help ${help[i]!.toFixed(0)} ms, wf run → first request ${run[i]!.toFixed(0)} ms`);
  }
  const result = { help: median(help), run: median(run) };
  console.log(`${label}: median over ${RUNS} runs: wf --help ${result.help.toFixed(0)} ms (goal ≤ 150), wf run → first request ${result.run.toFixed(0)} ms (goal ≤ 300)`);
  return result;
}

/** Median ms from spawning `node -e ""` to its exit: what any command costs before wf's first line. */
async function nodeFloor(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const startedAt = performance.now();
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise<void>((done) => child.on("close", () => done()));
    times.push(performance.now() - startedAt);
  }
  return median(times);
}

/** Median ms from spawning `_floor.mjs` (copied into `project`, so its zod and undici load) to its request reaching the service. */
async function floorOf(project: string): Promise<number> {
  const script = join(project, "wf-bench-floor.mjs");
  copyFileSync(FLOOR, script);
  try {
    await service.spawnOnce(script, [service.url], project);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ran = await service.spawnOnce(script, [service.url], project);
      if (ran.requestMs === undefined) throw new Error(`the floor script sent no request; run node ${script} ${service.url} to see why.`);
      times.push(ran.requestMs);
    }
    return median(times);
  } finally {
    rmSync(script, { force: true });
  }
}

let project: string | undefined;
try {
  console.log(`node -e "" (Node's own start, spawn to exit): median over ${RUNS} runs ${(await nodeFloor()).toFixed(0)} ms`);
  console.log(`source checkout: bin/wf.js runs ${sourceCheckoutRuns()}`);
  const source = await measure("source", join(CLI_DIR, "bin", "wf.js"), WORKFLOW, CLI_DIR);
  if (process.env.WF_BENCH_SKIP_INSTALL !== "1") {
    const given = process.env.WF_BENCH_PROJECT;
    if (!given) console.log("packing and installing @wf/core and @wf/cli into a temporary project…");
    const installedIn = given ?? (project = installBuild("wf-startup-bench-", [[WORKFLOW, "flow.ts"]]));
    const installed = await measure("installed", join(installedIn, "node_modules", "@wf", "cli", "bin", "wf.js"), join(installedIn, "flow.ts"), installedIn);
    console.log(`installed ÷ source: help ${(installed.help / source.help).toFixed(2)}×, run ${(installed.run / source.run).toFixed(2)}×`);
    const floor = await floorOf(installedIn);
    console.log(
      `floor (zod, undici's Pool and one request, no wf; spawn → request): median over ${RUNS} runs ${floor.toFixed(0)} ms; ` +
        `installed wf run → first request ${installed.run.toFixed(0)} ms, ${(installed.run - floor).toFixed(0)} ms above it (goal ≤ 300 ms in all)`,
    );
  }
} finally {
  service.close();
  if (project) rmSync(join(project, ".."), { recursive: true, force: true });
}
