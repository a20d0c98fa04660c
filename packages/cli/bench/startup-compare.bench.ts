/**
 * Interleaved start-up comparison of installed `wf` builds (not a test): for each project folder
 * given (each with `@wf/cli` installed and a `flow.ts`, a copy of tests/fixtures/params.ts, as
 * `startup.bench.ts` makes), `wf --help` spawn → exit and `wf run flow.ts` spawn → first request
 * to an instant local server, one run of each build in turn, so that all see the same load.
 * Prints the medians and each build's ratio to the first.
 *
 * Run (in packages/cli): node --import tsx bench/startup-compare.bench.ts <runs> <before-project> <after-project> [...]
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";

const [runsArg, ...projects] = process.argv.slice(2);
const RUNS = Number(runsArg);
if (!Number.isInteger(RUNS) || RUNS < 1 || projects.length === 0) {
  console.error("usage: node --import tsx bench/startup-compare.bench.ts <runs> <project> [<project>...]");
  process.exit(2);
}

let firstRequestAt: number | undefined;
const server = createServer((req, res) => {
  firstRequestAt ??= performance.now();
  req.resume();
  res.writeHead(401, { "content-type": "application/problem+json" });
  res.end(JSON.stringify({ type: "about:blank", title: "Unauthorized", status: 401, code: "WF_UNAUTHORIZED", detail: "bench" }));
});
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const { port } = server.address() as { port: number };
const runArgs = ["run", "flow.ts", "--param", "query=bench", "--param", "limit=1", "--base-url", `http://127.0.0.1:${port}`, "--api-key", "bench"];

/** ms from spawn to exit, and to the first request (NaN if none). */
async function spawnOnce(project: string, args: string[]): Promise<{ exitMs: number; requestMs: number }> {
  firstRequestAt = undefined;
  const startedAt = performance.now();
  const child = spawn(process.execPath, [join(project, "node_modules", "@wf", "cli", "bin", "wf.js"), ...args], { cwd: project, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  await new Promise<void>((done) => child.on("close", () => done()));
  return { exitMs: performance.now() - startedAt, requestMs: firstRequestAt === undefined ? Number.NaN : firstRequestAt - startedAt };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

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
  server.close();
}
