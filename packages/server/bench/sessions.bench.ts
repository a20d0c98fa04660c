/**
 * Benchmark (not a test): what a new session costs on a warm browser. For 1, 10 and 30 sessions
 * open at once (each having opened the bench form), prints the median time to create a session
 * (`POST /workflow/step/create`) and the memory the sessions add: the resident set (RSS) of this
 * process (the server runs in it) and the PSS of the browser's process tree, read from /proc (Linux).
 *
 * Run: `pnpm --filter @wf/server bench:sessions` (`WF_BENCH_SESSIONS=1,5,20` for other counts).
 */
import { readFile, readdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, StepStatus, routePath } from "@wf/core/protocol";
import { startServer } from "../src/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { median, benchClient } from "./_service.js";

const COUNTS = (process.env.WF_BENCH_SESSIONS ?? "1,10,30").split(",").map(Number);

/**
 * Memory in bytes of `pid` and all its descendants (the browser, its GPU, network and renderer
 * processes), as PSS (`/proc/<pid>/smaps_rollup`): shared pages split between the processes that
 * share them, so the sum doesn't count Chromium's shared libraries once per renderer as RSS would.
 */
async function treeRss(pid: number): Promise<number> {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => undefined);
    const status = await readFile(`/proc/${entry}/smaps_rollup`, "utf8").catch(() => undefined);
    if (!stat || !status) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    rss.set(Number(entry), Number(/^Pss:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024);
  }
  if (pid < 0) return rss.get(-pid) ?? 0; // the process alone
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

/** PSS of every process this one started (the browser and its helpers), not counting this one. */
async function browserRss(): Promise<number> {
  return (await treeRss(process.pid)) - (await treeRss(-process.pid));
}


const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-"));
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/server/", import.meta.url)));
  const key = "bench-key";
  const server = await startServer({ port: 0, apiKeys: [key], dataDir, maxSessions: Math.max(...COUNTS) + 1, idleTimeoutMs: 3_600_000 });
  const { call } = benchClient(server.url, key);
  const open = async (): Promise<{ id: string; createMs: number }> => {
    const start = performance.now();
    const { workflowId } = CreateSessionResponse.parse(await call("POST", ROUTES.stepCreate, {}));
    const createMs = performance.now() - start;
    const { stepId } = RunStepResponse.parse(await call("POST", routePath(ROUTES.stepRun, { id: workflowId }), { type: "ACT", step: `go to "${pages.url}/form.html"` }));
    const status = StepStatus.parse(await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`));
    if (status.status !== "SUCCEEDED") throw new Error(`go to failed: ${status.error?.message}`);
    return { id: workflowId, createMs };
  };
  try {
    // Warm the browser: one session opened and closed before measuring.
    const warm = await open();
    await call("POST", routePath(ROUTES.stepClose, { id: warm.id }));
    const print = (line: string) => process.stdout.write(`${line}\n`);
    print(`sessions on a warm browser, each on form.html (server in this process; PSS from /proc):`);
    print(`${"sessions".padStart(8)} ${"create median".padStart(14)} ${"server +RSS".padStart(12)} ${"browser +PSS".padStart(13)} ${"per session".padStart(12)}`);
    for (const count of COUNTS) {
      global.gc?.();
      const server0 = process.memoryUsage.rss();
      const browser0 = await browserRss();
      const opened: { id: string; createMs: number }[] = [];
      for (let i = 0; i < count; i++) opened.push(await open());
      global.gc?.();
      const serverAdded = process.memoryUsage.rss() - server0;
      const browserAdded = (await browserRss()) - browser0;
      print(
        `${String(count).padStart(8)} ${`${median(opened.map((o) => o.createMs)).toFixed(1)} ms`.padStart(14)} ${mib(serverAdded).padStart(12)} ${mib(browserAdded).padStart(13)} ${mib((serverAdded + browserAdded) / count).padStart(12)}`,
      );
      for (const o of opened) await call("POST", routePath(ROUTES.stepClose, { id: o.id }));
    }
  } finally {
    await server.close();
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
