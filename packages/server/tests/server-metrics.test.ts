/**
 * Operators see the service (issue 33), through the real server and Chromium: `GET /metrics`
 * answers in the Prometheus text format for the API key or the metrics token, and after a few
 * steps and a forced browser crash (Chromium killed) its counters have moved; the crash, the
 * session it ended and the relaunch are warn lines with the session id.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_LONG_POLL_MS, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient, type ApiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-metrics";
const METRICS_TOKEN = "scraper-token-1234";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;
let api: ApiClient;
/** The server's log lines (pino JSON). */
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-metrics-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", metricsToken: METRICS_TOKEN, logger: { level: "warn", stream } });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function scrape(headers: Record<string, string> = { "api-key": KEY }): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(server.url + ROUTES.metrics, { headers });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The value of one sample (`name{labels} value`), or undefined when the text has none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}

it("GET /metrics: the counters move after steps and a forced browser crash; the crash and relaunch are warn lines with the session id", async () => {
  // The API key or the metrics token; nothing else.
  expect((await scrape({})).status).toBe(401);
  expect((await scrape({ authorization: "Bearer wrong" })).status).toBe(401);
  const before = await scrape({ authorization: `Bearer ${METRICS_TOKEN}` });
  expect(before.status).toBe(200);
  expect(before.type).toContain("text/plain");
  expect(sample(before.text, "wf_browser_launches_total")).toBe(1);
  expect(sample(before.text, "wf_browser_crashes_total")).toBe(0);
  // The process's default metrics are there too.
  expect(sample(before.text, "process_cpu_user_seconds_total")).toBeGreaterThan(0);

  const { workflowId } = await api.create();
  const run = async (instruction: string) => api.finished((await api.runOk(workflowId, { type: "ACT", step: instruction, timeoutMs: 20_000 })).stepId);
  expect((await run(`go to "${pages.url}/form.html"`)).status).toBe("SUCCEEDED");
  expect((await run(`go to "${pages.url}/index.html"`)).status).toBe("SUCCEEDED");
  expect((await run(`click "No such button anywhere"`)).error?.code).toBe("WF_ELEMENT_NOT_FOUND");

  const during = await scrape();
  expect(sample(during.text, "wf_sessions_open")).toBe(1);
  expect(sample(during.text, "wf_steps_total", { type: "ACT", interpreter: "grammar", outcome: "SUCCEEDED" })).toBe(2);
  expect(sample(during.text, "wf_steps_total", { type: "ACT", interpreter: "grammar", outcome: "WF_ELEMENT_NOT_FOUND" })).toBe(1);
  expect(sample(during.text, "wf_step_duration_seconds_count", { type: "ACT", interpreter: "grammar" })).toBe(3);

  // The browser dies under the session: its process (a child of this one) is killed.
  const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
  const chromium = children.split("\n").map((l) => l.trim().split(/\s+/)).find(([, comm]) => comm?.includes("chrom"));
  expect(chromium).toBeDefined();
  process.kill(Number(chromium![0]), "SIGKILL");
  const ended = await api.session(workflowId, `?since=0&waitMs=${MAX_LONG_POLL_MS}`);
  expect(ended.status === "FAILED" ? ended : await api.session(workflowId, `?since=${ended.version}&waitMs=${MAX_LONG_POLL_MS}`)).toMatchObject({ status: "FAILED", error: { code: "WF_BROWSER_CLOSED" } });
  // The next create relaunches it.
  const next = await api.create();
  await api.call("POST", routePath(ROUTES.stepClose, { id: next.workflowId }), {});

  const after = await scrape();
  expect(sample(after.text, "wf_browser_crashes_total")).toBe(1);
  expect(sample(after.text, "wf_browser_launches_total")).toBe(2);
  expect(sample(after.text, "wf_sessions_open")).toBe(0);

  const events = lines.filter((l) => l.level === 40).map((l) => ({ event: l.event, sessionId: l.sessionId }));
  expect(events).toContainEqual({ event: "browser-crashed", sessionId: undefined });
  expect(events).toContainEqual({ event: "session-browser-closed", sessionId: workflowId });
  expect(events).toContainEqual({ event: "browser-relaunched", sessionId: undefined });
});

it("a step whose screenshot cannot be taken (a frame that stopped answering) is counted and logged with why, and the session goes on", async () => {
  const { workflowId } = await api.create({ screenshot: "on" });
  const run = async (instruction: string) => api.finished((await api.runOk(workflowId, { type: "ACT", step: instruction, timeoutMs: 20_000 })).stepId);
  // The page is fine; an ad frame from another site (its own renderer) spins its main thread 300 ms after it loaded.
  expect((await run(`go to "${pages.url}/busy-frame.html"`)).status).toBe("SUCCEEDED");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const clicked = await run('click "Ping"');
  expect(clicked.status).toBe("SUCCEEDED");
  // The next step waits for the click's picture: once it ran, the picture was taken or given up.
  expect((await run('wait for "pong"')).status).toBe("SUCCEEDED");
  expect(sample((await scrape()).text, "wf_screenshots_skipped_total")).toBeGreaterThanOrEqual(1);
  const skipped = lines.find((l) => l.event === "screenshot-skipped" && l.stepId === clicked.stepId);
  expect(skipped).toMatchObject({ level: 40, sessionId: workflowId });
  expect(String(skipped!.why)).toMatch(/mask|capture|took over/);
  expect(await server.context.sessions.screenshotPath(clicked.stepId)).toBeUndefined();
  await api.call("POST", routePath(ROUTES.stepClose, { id: workflowId }), {});
});

it("WF_METRICS off: no /metrics route", async () => {
  const off = await startServer({ port: 0, apiKeys: [KEY], dataDir: await mkdtemp(join(tmpdir(), "wf-metrics-off-")), databaseUrl: "memory:", metrics: false, warmSessions: false });
  try {
    const res = await fetch(off.url + ROUTES.metrics, { headers: { "api-key": KEY } });
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  } finally {
    await off.close();
  }
});
