/**
 * Fuzz (not a test): N malformed requests (default 10,000) against a real server: deep and huge
 * bodies, bad encodings, wrong types, path tricks, odd methods and headers. Prints how many
 * answers had each status, every 5xx (the goal is none), and whether the server still serves.
 * Seeded, so a failure can be replayed (`WF_FUZZ_SEED`).
 *
 * Run: `pnpm --filter @wf/server fuzz` (`WF_FUZZ_REQUESTS=2000`, `WF_FUZZ_SEED=7`).
 * `WF_FUZZ_DATABASE=postgres`: two instances on one throwaway PostgreSQL (Debian's binaries, see
 * tests/helpers/postgres.ts); the session and step are made on the first, and every fuzzed request
 * goes to the second, so requests about them take the forwarding path (`src/cluster/instances.ts`).
 * `WF_LOG_LEVEL=error` logs the servers' errors (a 5xx's stack) to stdout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROUTES } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { startPostgres, type TestPostgres } from "../tests/helpers/postgres.js";

const REQUESTS = Number(process.env.WF_FUZZ_REQUESTS ?? 10_000);
let seed = Number(process.env.WF_FUZZ_SEED ?? 1);
const KEY = "fuzz-key";

/** mulberry32: a small seeded generator. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (max: number) => Math.floor(random() * max);

function nested(levels: number, open: string, close: string, leaf = "1"): string {
  return open.repeat(levels) + leaf + close.repeat(levels);
}

const VALUES: (() => string)[] = [
  () => "null",
  () => "true",
  () => String(int(1e9) - 5e8),
  () => "1e400",
  () => JSON.stringify("x".repeat(int(5000))),
  () => JSON.stringify("\u0000\ud800 \u202e" + "é".repeat(int(50))),
  () => nested(1 + int(5000), "[", "]"),
  () => nested(1 + int(3000), '{"a":', "}"),
  () => "{}",
  () => "[]",
  () => JSON.stringify({ type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } }),
  () => JSON.stringify(pick(["ACT", "ASK", "act", "", "CLICK"])),
];

function body(): { text: string; type: string } {
  const kind = int(12);
  const type = pick(["application/json", "application/json; charset=utf-8", "application/vnd.x+json", "text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=latin1"]);
  if (kind === 0) return { text: "", type };
  if (kind === 1) return { text: "{not json", type };
  if (kind === 2) return { text: Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString("latin1"), type };
  if (kind === 3) return { text: nested(2000 + int(20000), "[", "]"), type };
  if (kind === 4) return { text: `{"step":${pick(VALUES)()},"type":${pick(VALUES)()},"schema":${pick(VALUES)()}}`, type };
  if (kind === 5) return { text: `{"step":"reload","type":"ACT","timeoutMs":${pick(VALUES)()},"redact":${pick(VALUES)()}}`, type };
  if (kind === 6) return { text: `{"step":"x","type":"ASK","currentDom":${pick(VALUES)()},"currentPageURL":${pick(VALUES)()}}`, type };
  if (kind === 7) return { text: `{"workflowId":${pick(VALUES)()},"variables":${pick(VALUES)()},"proxy":${pick(VALUES)()}}`, type };
  if (kind === 8) return { text: `{"browserMode":${pick(VALUES)()}}`, type };
  if (kind === 9) return { text: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"step":"reload","type":"ACT"}', type };
  if (kind === 10) return { text: "x".repeat(int(2_000_000)), type };
  return { text: pick(VALUES)(), type };
}

function path(sessionId: string, stepId: string): string {
  const id = pick([sessionId, stepId, "", "..", "%2e%2e", "%00", "a".repeat(int(3000)), "%E0%A4%A", "..%2f..%2fetc%2fpasswd", "😀", "%F0%9F%98%80", "feedbeef"]);
  const routes = Object.values(ROUTES).map((r) => r.replace(/\{(\w+)\}/g, () => id));
  const base = pick([...routes, "/apis/request/", "/", "//apis//request//health", "/apis/request/health/..", `/apis/request/workflow/view/${id}/events`, `/apis/request/workflow/view/${id}/screenshots/${id}`]);
  const query = pick(["", "?waitMs=-1", "?waitMs=1e10x", "?waitMs=20", "?waitMs=abc", "?since=-5&waitMs=1", "?token=", `?token=${"t".repeat(int(100))}`, "?waitMs=0&waitMs=1", "?%zz", "?a[b]=c", "?waitMs=0x10"]);
  return base + query;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-fuzz-"));
  const cluster: TestPostgres | undefined = process.env.WF_FUZZ_DATABASE === "postgres" ? await startPostgres() : undefined;
  const databaseUrl = await cluster?.createDatabase();
  const start = (name: string) =>
    startServer({ port: 0, apiKeys: [KEY], dataDir: join(dataDir, name), ...(databaseUrl ? { databaseUrl } : {}), journalSync: false, maxSessions: 2, stepTimeoutMs: 2_000, logger: process.env.WF_LOG_LEVEL ? { level: process.env.WF_LOG_LEVEL } : false });
  // The session's holder, and the instance that gets the fuzzed requests (the same one without PostgreSQL).
  const holder = await start("a");
  const servers: RunningServer[] = [holder];
  if (cluster) servers.push(await start("b"));
  const server = servers[servers.length - 1]!;
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  try {
    const created = await fetch(holder.url + ROUTES.stepCreate, { method: "POST", headers: { "api-key": KEY } });
    const { workflowId } = (await created.json()) as { workflowId: string };
    const step = await fetch(`${holder.url}/apis/request/workflow/step/run/${workflowId}`, { method: "POST", headers: { "api-key": KEY, "content-type": "application/json" }, body: '{"step":"reload","type":"ACT"}' });
    const { stepId } = (await step.json()) as { stepId: string };
    for (let i = 0; i < REQUESTS; i++) {
      const method = pick(["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "PROPFIND"]);
      const url = path(workflowId, stepId);
      const { text, type } = body();
      const headers: Record<string, string> = {};
      if (random() < 0.85) headers["api-key"] = pick([KEY, KEY, KEY, "wrong", ""]);
      if (type) headers["content-type"] = type;
      if (random() < 0.2) headers["idempotency-key"] = pick(["k", "", "x".repeat(int(5000)), "é"]);
      let status: number;
      try {
        const res = await fetch(server.url + url, { method, headers, ...(method === "GET" || method === "HEAD" ? {} : { body: text }), signal: AbortSignal.timeout(35_000) });
        status = res.status;
        // The debugger's event stream never ends: its status is the answer.
        const streaming = (res.headers.get("content-type") ?? "").includes("text/event-stream");
        const answer = streaming ? "" : await res.text();
        if (streaming) await res.body?.cancel();
        if (status >= 500 && status !== 503) failures.push(`${method} ${url.slice(0, 120)} body=${text.slice(0, 120)} → ${status} ${answer.slice(0, 300)}`);
      } catch (error) {
        status = -1;
        failures.push(`${method} ${url.slice(0, 120)} → network error ${(error as Error).message}`);
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const healths = await Promise.all(servers.map((s) => fetch(s.url + ROUTES.health)));
    const health = healths.find((h) => h.status !== 200) ?? healths[0]!;
    process.stdout.write(`requests: ${REQUESTS} (seed ${process.env.WF_FUZZ_SEED ?? 1})${cluster ? ", to the second of two instances on one PostgreSQL" : ""}\n`);
    process.stdout.write(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ")}\n`);
    process.stdout.write(`5xx (other than 503) or network errors: ${failures.length}\n`);
    for (const failure of failures.slice(0, 20)) process.stdout.write(`  ${failure}\n`);
    process.stdout.write(`still serving: ${health.status === 200 ? "yes" : `no (${health.status})`}\n`);
    if (failures.length > 0 || health.status !== 200) process.exitCode = 1;
  } finally {
    for (const s of servers.reverse()) await s.close();
    await cluster?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main();
