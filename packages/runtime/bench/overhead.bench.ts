/**
 * Per-step overhead of the runtime (`runWorkflow` → service client → undici) against a service that
 * answers instantly, beside a plain undici loop doing the same two requests per step (run, status),
 * and the service client alone (the same requests through `createServiceClient`, without the DSL
 * and the executor), which splits the overhead between the client and the rest.
 * Prints the per-step times and the ratios to the plain loop. Not a test: run it with `pnpm --filter @wf/runtime bench`.
 *
 * Env: `BENCH_STEPS` (default 2_000) steps per measured round, `BENCH_ROUNDS` (default 5) rounds;
 * the median round is reported.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { act, workflow } from "@wf/core";
import { createServiceClient, runWorkflow } from "../src/index.js";

const STEPS = Number(process.env.BENCH_STEPS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** The smallest service that speaks the step protocol: every step has already succeeded. */
function instantService(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const now = new Date().toISOString();
  let nextStep = 0;
  const json = (res: ServerResponse, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0]!;
    req.resume();
    req.on("end", () => {
      if (path.endsWith("/workflow/step/create")) return json(res, { workflowId: "s1", sessionToken: "t", debuggerUrl: "http://x/view/s1" });
      if (path.includes("/workflow/step/run/")) return json(res, { stepId: `st${nextStep++}`, jobTaskId: "j1" });
      if (path.includes("/workflow/step/status/")) {
        return json(res, {
          stepId: path.slice(path.lastIndexOf("/") + 1),
          jobTaskId: "j1",
          sessionId: "s1",
          index: 0,
          type: "ACT",
          step: "click",
          status: "SUCCEEDED",
          createdAt: now,
          startedAt: now,
          finishedAt: now,
          durationMs: 0,
          result: { action: "click", message: "clicked", url: "about:blank" },
        });
      }
      if (path.includes("/workflow/step/close/")) {
        return json(res, {
          sessionId: "s1",
          kind: "STEP",
          workflowId: null,
          status: "SUCCEEDED",
          version: 1,
          createdAt: now,
          updatedAt: now,
          finishedAt: now,
          currentUrl: null,
          steps: [],
          viewUrl: "http://x/view/s1",
        });
      }
      res.writeHead(404).end();
    });
  };
  const server = createServer(handle);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

const steps = (n: number) =>
  workflow({ name: "bench" }, async () => {
    for (let i = 0; i < n; i++) await act(`click "Button ${i}"`);
  });

/** ms per step of runWorkflow doing `n` steps. */
async function runtimeRound(baseUrl: string, n: number): Promise<number> {
  const client = createServiceClient({ baseUrl, apiKey: "bench" });
  const t0 = performance.now();
  const record = await runWorkflow(steps(n), { client });
  const elapsed = performance.now() - t0;
  await client.close();
  if (record.status !== "succeeded") throw new Error(`bench run ${record.status}: ${record.error?.message}`);
  return elapsed / n;
}

/** ms per step of a plain undici loop sending the same requests (create once, run + status per step, close). */
async function plainRound(baseUrl: string, n: number): Promise<number> {
  const pool = new Pool(baseUrl, { connections: 16, keepAliveTimeout: 4_000 });
  const headers = { "api-key": "bench", accept: "application/json" };
  const post = async (path: string, body: unknown, extra: Record<string, string> = {}) => {
    const res = await pool.request({ path, method: "POST", headers: { ...headers, "content-type": "application/json", ...extra }, body: JSON.stringify(body) });
    return res.body.json() as Promise<Record<string, string>>;
  };
  const t0 = performance.now();
  const { workflowId } = await post("/apis/request/workflow/step/create", { browserMode: "REMOTE" });
  for (let i = 0; i < n; i++) {
    const { stepId } = await post(`/apis/request/workflow/step/run/${workflowId}`, { step: `click "Button ${i}"`, type: "ACT", timeoutMs: 30_000 }, { "idempotency-key": String(i) });
    const res = await pool.request({ path: `/apis/request/workflow/step/status/${stepId}?waitMs=30000`, method: "GET", headers });
    const status = (await res.body.json()) as { status: string };
    if (status.status !== "SUCCEEDED") throw new Error("unexpected status");
  }
  await post(`/apis/request/workflow/step/close/${workflowId}`, {});
  const elapsed = performance.now() - t0;
  await pool.close();
  return elapsed / n;
}

/** ms per step of the service client alone: the requests of a step without the DSL, the executor and the record. */
async function clientRound(baseUrl: string, n: number): Promise<number> {
  const client = createServiceClient({ baseUrl, apiKey: "bench" });
  const t0 = performance.now();
  const { workflowId } = await client.createSession({ browserMode: "REMOTE" });
  for (let i = 0; i < n; i++) {
    const { stepId } = await client.runStep(workflowId, { step: `click "Button ${i}"`, type: "ACT", timeoutMs: 30_000 });
    const status = await client.getStepStatus(stepId, { waitMs: 30_000 });
    if (status.status !== "SUCCEEDED") throw new Error("unexpected status");
  }
  await client.closeSession(workflowId);
  const elapsed = performance.now() - t0;
  await client.close();
  return elapsed / n;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const service = await instantService();
try {
  // Warm up both paths (JIT, sockets) before measuring.
  await runtimeRound(service.baseUrl, 200);
  await plainRound(service.baseUrl, 200);
  await clientRound(service.baseUrl, 200);
  const runtime: number[] = [];
  const plain: number[] = [];
  const clientOnly: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate so that both see the same machine load.
    plain.push(await plainRound(service.baseUrl, STEPS));
    runtime.push(await runtimeRound(service.baseUrl, STEPS));
    clientOnly.push(await clientRound(service.baseUrl, STEPS));
  }
  const r = median(runtime);
  const p = median(plain);
  const c = median(clientOnly);
  const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;
  console.log(`Per-step time against an instant service (median of ${ROUNDS} rounds of ${STEPS} steps; 2 requests per step):`);
  console.log(`  runtime (runWorkflow + client)  ${us(r)}`);
  console.log(`  service client alone            ${us(c)}  (${(c / p).toFixed(2)}× plain)`);
  console.log(`  plain undici loop               ${us(p)}`);
  console.log(`  runtime overhead per step       ${us(r - p)}`);
  console.log(`  ratio runtime / plain           ${(r / p).toFixed(2)}×`);
} finally {
  await service.close();
}
