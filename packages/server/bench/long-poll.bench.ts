/**
 * Benchmark (not a test): how long after a step finishes the client's long-poll sees it. The
 * server runs in this process, so one clock times both ends: "finished" is the moment the server
 * records the step's outcome (its change event), "seen" is the moment the client holds the parsed
 * status answer of `GET /workflow/step/status/{stepId}?waitMs=…`, sent before the step finished.
 * Steps are `wait for 20 ms`, so every poll is waiting when the step ends. Prints median, p90 and
 * p99 over N steps (default 200).
 *
 * Run: `pnpm --filter @wf/server bench:long-poll` (`WF_BENCH_STEPS=500` for more steps).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, StepStatus, routePath } from "@wf/core/protocol";
import { startServer } from "../src/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";

const STEPS = Number(process.env.WF_BENCH_STEPS ?? 200);

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-"));
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/server/", import.meta.url)));
  const key = "bench-key";
  const server = await startServer({ port: 0, apiKeys: [key], dataDir });
  const finishedAt = new Map<string, number>();
  const unsubscribe = server.context.sessions.onChange((change) => {
    if (!change.stepId || finishedAt.has(change.stepId)) return;
    const stepId = change.stepId;
    void server.context.sessions.getStep(stepId).then((step) => {
      if (step && (step.status === "SUCCEEDED" || step.status === "FAILED") && !finishedAt.has(stepId)) finishedAt.set(stepId, performance.now());
    });
  });
  try {
    const call = async (method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(server.url + path, {
        method,
        headers: { "api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json: unknown = await res.json();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const session = CreateSessionResponse.parse(await call("POST", ROUTES.stepCreate, {}));
    const run = (step: string) => call("POST", routePath(ROUTES.stepRun, { id: session.workflowId }), { type: "ACT", step }).then((r) => RunStepResponse.parse(r));
    const { stepId: first } = await run(`go to "${pages.url}/form.html"`);
    await call("GET", `${routePath(ROUTES.stepStatus, { stepId: first })}?waitMs=${MAX_LONG_POLL_MS}`);

    const lags: number[] = [];
    for (let i = 0; i < STEPS; i++) {
      const { stepId } = await run("wait for 20 ms");
      let status: StepStatus;
      do status = StepStatus.parse(await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`));
      while (status.status !== "SUCCEEDED" && status.status !== "FAILED");
      const seen = performance.now();
      if (status.status === "FAILED") throw new Error(`step failed: ${status.error?.code} ${status.error?.message}`);
      const finished = finishedAt.get(stepId);
      if (finished === undefined) throw new Error(`no change event recorded the end of step ${stepId}`);
      lags.push(seen - finished);
    }
    await call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }));
    const ms = (v: number) => `${v.toFixed(2)} ms`;
    process.stdout.write(
      `${STEPS} steps, step finished (server records it) → client holds the long-poll answer:\n` +
        `  median ${ms(quantile(lags, 0.5))}   p90 ${ms(quantile(lags, 0.9))}   p99 ${ms(quantile(lags, 0.99))}   max ${ms(Math.max(...lags))}\n`,
    );
  } finally {
    unsubscribe();
    await server.close();
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
