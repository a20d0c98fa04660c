/**
 * Interleaved start-up comparison of installed `wf` builds (not a test): for each project folder
 * given (each with `@wf/cli` installed and a `flow.ts`, a copy of tests/fixtures/params.ts, as
 * `startup.bench.ts` makes), `wf --help` spawn → exit and `wf run flow.ts` spawn → first request
 * to an instant local server, one run of each build in turn, so that all see the same load.
 * Prints the medians and each build's ratio to the first.
 *
 * Run (in packages/cli): node --import tsx bench/startup-compare.bench.ts <runs> <before-project> <after-project> [...]
 */
import { join } from "node:path";
import { median, startInstantService } from "./_startup.js";

const [runsArg, ...projects] = process.argv.slice(2);
const RUNS = Number(runsArg);
if (!Number.isInteger(RUNS) || RUNS < 1 || projects.length === 0) {
  console.error("usage: node --import tsx bench/startup-compare.bench.ts <runs> <project> [<project>...]");
  process.exit(2);
}

const service = await startInstantService();
const runArgs = service.runArgs("flow.ts");
/** ms from spawn to exit, and to the first request (NaN if none), of the wf installed in `project`. */
async function spawnOnce(project: string, args: string[]): Promise<{ exitMs: number; requestMs: number }> {
  const { exitMs, requestMs } = await service.spawnOnce(join(project, "node_modules", "@wf", "cli", "bin", "wf.js"), args, project);
  return { exitMs, requestMs: requestMs ?? Number.NaN };
}

try {
  const results = projects.map(() => ({ help: [] as number[], run: [] as number[] }));
  for (const project of projects) {
    // Warm the file system cache and each build's compile cache.
    await spawnOnce(project, ["--help"]);
    await spawnOnce(project, runArgs);
  }
  for (let i = 0; i < RUNS; i++) {
    for (const [k, project] of projects.entries()) {
      results[k]!.help.push((await spawnOnce(project, ["--help"])).exitMs);
      results[k]!.run.push((await spawnOnce(project, runArgs)).requestMs);
    }
  }
  const [first] = results.map((r) => ({ help: median(r.help), run: median(r.run) }));
  for (const [k, project] of projects.entries()) {
    const help = median(results[k]!.help);
    const run = median(results[k]!.run);
    console.log(`${project}: median over ${RUNS} runs: wf --help ${help.toFixed(0)} ms (${(help / first!.help).toFixed(2)}×), wf run → first request ${run.toFixed(0)} ms (${(run / first!.run).toFixed(2)}×)`);
  }
} finally {
  service.close();
}
