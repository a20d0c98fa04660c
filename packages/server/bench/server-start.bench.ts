/**
 * Start-up benchmark of `wf serve`'s server (not a test): `src/main.ts` spawned with a data folder,
 * timed from spawn to the first healthy answer (`GET /apis/request/health` 200), on a **fresh**
 * data folder (none yet: the embedded database is made from its template) and on an **existing**
 * one (the folder the fresh start left), then its **idle RSS** a few seconds after it answered:
 * the server's Node process alone (`VmRSS` of /proc/<pid>/status), Chromium's processes not counted.
 * Issue 26's goals: ≤ 1.0 s on an existing folder, ≤ 1.5 s on a fresh one, idle RSS ≤ 250 MB.
 *
 * Run (in packages/server): pnpm bench:server-start [runs]; 3 runs by default. It runs the
 * TypeScript sources through tsx (as `pnpm start` does), so module loading is slower than a build.
 * `WF_BENCH_WF=<path of an installed @wf/cli's bin/wf.js>` measures `wf serve` of that installed
 * build instead (built JavaScript, the server bundled into the CLI; `pnpm bench:e2e` in packages/cli
 * makes one, or `npm install` the packed tarballs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = Number(process.argv[2] ?? process.env.WF_BENCH_RUNS ?? 3);
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const IDLE_WAIT_MS = 3_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}

/** Starts the server on `dataDir`; resolves with ms from spawn to the first healthy answer, the idle RSS in MB, and stops it. */
async function startOnce(dataDir: string): Promise<{ healthyMs: number; rssMb: number; marks: Map<string, number> }> {
  const startedAt = performance.now();
  const spawnedAt = performance.timeOrigin + startedAt;
  const installed = process.env.WF_BENCH_WF;
  const args = installed ? [installed, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir, "--api-key", "bench"] : ["--import", "tsx", "src/main.ts"];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: installed ? tmpdir() : SERVER_DIR,
    // `wf serve` says where it listens on stdout, the server on stderr: both are read.
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WF_TIMING: "1", WF_DATA_DIR: dataDir, WF_PORT: "0", WF_HOST: "127.0.0.1", WF_API_KEYS: "bench", WF_LOG_LEVEL: "silent" },
  });
  try {
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /listening on (http:\/\/\S+)/.exec(stderr);
        if (found) resolve(found[1]!);
      };
      child.stderr!.on("data", read);
      child.stdout!.on("data", read);
      child.on("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
    });
    for (;;) {
      const ok = await fetch(`${url}/apis/request/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const healthyMs = performance.now() - startedAt;
    await new Promise((r) => setTimeout(r, IDLE_WAIT_MS));
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]);
    const marks = new Map([...stderr.matchAll(/^wf timing: ([\d.]+) (.+)$/gm)].map((m) => [m[2]!, Number(m[1]) - spawnedAt] as const));
    return { healthyMs, rssMb: rssKb / 1024, marks };
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}

const root = mkdtempSync(join(tmpdir(), "wf-server-start-bench-"));
try {
  console.log(`bench:server-start: ${RUNS} runs of ${process.env.WF_BENCH_WF ? `the installed wf serve (${process.env.WF_BENCH_WF})` : "src/main.ts through tsx"}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} (a shared machine raises every figure)`);
  await startOnce(join(root, "warm-up")); // the template database and tsx's compile cache
  const fresh: number[] = [];
  const existing: number[] = [];
  const rss: number[] = [];
  const marks: { fresh: Map<string, number>[]; existing: Map<string, number>[] } = { fresh: [], existing: [] };
  for (let i = 0; i < RUNS; i++) {
    const dataDir = join(root, `run-${i}`);
    const first = await startOnce(dataDir);
    const again = await startOnce(dataDir);
    fresh.push(first.healthyMs);
    existing.push(again.healthyMs);
    rss.push(first.rssMb, again.rssMb);
    marks.fresh.push(first.marks);
    marks.existing.push(again.marks);
    console.log(`run ${i + 1}: fresh folder ${first.healthyMs.toFixed(0)} ms, existing folder ${again.healthyMs.toFixed(0)} ms; idle RSS ${first.rssMb.toFixed(0)} / ${again.rssMb.toFixed(0)} MB`);
  }
  console.log("milestones, median ms since spawn (WF_TIMING=1; the browser launches while the store opens): fresh / existing folder");
  // Every label either start wrote (a fresh folder's template copy, an existing one's table check), in the order they came.
  const at = (runs: Map<string, number>[], label: string) => {
    const values = runs.map((m) => m.get(label)).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : undefined;
  };
  const labels = [...new Set(marks.fresh.flatMap((m) => [...m.keys()]))];
  for (const run of marks.existing) {
    let after = -1;
    for (const label of run.keys()) {
      if (!labels.includes(label)) labels.splice(after + 1, 0, label);
      after = labels.indexOf(label);
    }
  }
  for (const label of labels) {
    const show = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(0)).padStart(6);
    console.log(`  ${show(at(marks.fresh, label))} / ${show(at(marks.existing, label))} ms  ${label}`);
  }
  console.log(`to the first healthy answer: fresh folder median ${median(fresh).toFixed(0)} ms (goal ≤ 1500), existing folder median ${median(existing).toFixed(0)} ms (goal ≤ 1000)`);
  console.log(`idle RSS of the server's process (Chromium not counted): median ${median(rss).toFixed(0)} MB (goal ≤ 250)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
