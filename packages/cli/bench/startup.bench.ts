/**
 * Start-up benchmark of `wf run` (not a test): the time from spawning `node bin/wf.js run <file>`
 * to the first request reaching the service. The service is a tiny node:http server that records
 * when each request arrives and answers 401 at once, so the run ends right after.
 *
 * Run (in packages/cli): pnpm bench [runs], or node --import tsx bench/startup.bench.ts [runs]; 7 runs by default.
 * Prints each run in ms and the median.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

const RUNS = Number(process.argv[2] ?? process.env.WF_BENCH_RUNS ?? 7);
const BIN = fileURLToPath(new URL("../bin/wf.js", import.meta.url));
const WORKFLOW = fileURLToPath(new URL("../tests/fixtures/params.ts", import.meta.url));

let firstRequestAt: number | undefined;
const server = createServer((req, res) => {
  firstRequestAt ??= performance.now();
  req.resume();
  res.writeHead(401, { "content-type": "application/problem+json" });
  res.end(JSON.stringify({ type: "about:blank", title: "Unauthorized", status: 401, code: "WF_UNAUTHORIZED", detail: "bench" }));
});
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const { port } = server.address() as { port: number };

/** One spawn of `wf run`; resolves with ms from spawn to the first request, and with the exit. */
async function once(): Promise<number> {
  firstRequestAt = undefined;
  const startedAt = performance.now();
  const child = spawn(process.execPath, [BIN, "run", WORKFLOW, "--param", "query=bench", "--param", "limit=1", "--base-url", `http://127.0.0.1:${port}`, "--api-key", "bench"], {
    stdio: "ignore",
    env: { ...process.env, NO_COLOR: "1" },
  });
  await new Promise<void>((done) => child.on("close", () => done()));
  if (firstRequestAt === undefined) throw new Error("wf run exited without sending a request; run it by hand to see why.");
  return firstRequestAt - startedAt;
}

const times: number[] = [];
await once(); // warm the file system cache and tsx's compile cache
for (let i = 0; i < RUNS; i++) {
  const ms = await once();
  times.push(ms);
  console.log(`run ${i + 1}: ${ms.toFixed(0)} ms from spawn to first request`);
}
times.sort((a, b) => a - b);
const median = times.length % 2 ? times[(times.length - 1) / 2]! : (times[times.length / 2 - 1]! + times[times.length / 2]!) / 2;
console.log(`median over ${RUNS} runs: ${median.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[times.length - 1]!.toFixed(0)})`);
server.close();
