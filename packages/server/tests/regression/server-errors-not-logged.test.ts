/**
 * Regression (issue 11): a 500 said "It is logged" while `wf serve` ran with the logger off, and
 * request logs showed session tokens. Now a logger (pino through Fastify, level `WF_LOG_LEVEL`)
 * records every 5xx with its stack under the request id the answer names; without a logger the
 * answer says so; `?token=` values and API keys never reach the log.
 *
 * The 500 is a real server fault: the store closed under a running server (what a failed disk
 * unmount or a bug in shutdown order would do), so recording a new session fails.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveServerOptions, startServer, type RunningServer } from "../../src/index.js";
import { redactUrl } from "../../src/observability/logging.js";
import { apiClient } from "../helpers/api.js";

const KEY = "test-key-logging-0123456789";
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-logging-"));
});

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { url: string };
  err?: { message: string; stack: string };
}

describe("the server's log", () => {
  it("logs a 5xx with its stack under the request id the answer names; tokens and keys stay out", async () => {
    const lines: string[] = [];
    const server: RunningServer = await startServer({
      port: 0,
      apiKeys: [KEY],
      dataDir: join(dataDir, "on"),
      journalSync: false,
      logger: { level: "info", stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      const api = apiClient(server.url, KEY);
      const session = await api.create();
      // The debugger page, opened with its token, and a wrong-token attempt: both are request-logged.
      expect((await fetch(session.debuggerUrl)).status).toBe(200);
      expect((await fetch(session.debuggerUrl.replace(/token=[^&]+/, "token=wrong-token-value"))).status).toBe(401);
      await fetch(`${server.url}/apis/request/health`, { headers: { authorization: `Bearer ${KEY}` } });

      await server.context.store.close();
      const failed = await api.call("POST", "/apis/request/workflow/step/create", {});
      expect(failed.status).toBe(500);
      expect(failed.json.code).toBe("WF_INTERNAL");
      const requestId = /request id (\S+)\./.exec(failed.json.detail)?.[1];
      expect(requestId).toBeDefined();

      const log = lines.map((l) => JSON.parse(l) as LogLine);
      const error = log.find((l) => l.level === 50 && l.reqId === requestId);
      expect(error).toBeDefined();
      expect(error!.msg).toContain("answered 500");
      expect(error!.err?.message).toMatch(/store .* is closed/);
      expect(error!.err?.stack).toMatch(/\n\s+at /);

      const text = lines.join("");
      expect(text).not.toContain(session.sessionToken);
      expect(text).not.toContain("wrong-token-value");
      expect(text).not.toContain(KEY);
      expect(log.some((l) => l.req?.url.includes("token=[redacted]"))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("without a logger, a 500 does not claim to be logged", async () => {
    const server = await startServer({ port: 0, apiKeys: [KEY], dataDir: join(dataDir, "off"), journalSync: false });
    try {
      await server.context.store.close();
      const failed = await apiClient(server.url, KEY).call("POST", "/apis/request/workflow/step/create", {});
      expect(failed.status).toBe(500);
      expect(failed.json.detail).not.toMatch(/is logged|in its log/);
      expect(failed.json.detail).toContain("WF_LOG_LEVEL");
    } finally {
      await server.close();
    }
  });

  it("WF_LOG_LEVEL turns the logger on; secrets in query strings are redacted", () => {
    expect(resolveServerOptions({}, {}).logger).toBe(false);
    expect(resolveServerOptions({}, { WF_LOG_LEVEL: "warn" }).logger).toMatchObject({ level: "warn" });
    expect(() => resolveServerOptions({}, { WF_LOG_LEVEL: "loud" })).toThrow(/WF_LOG_LEVEL="loud" is not one of fatal/);
    expect(redactUrl("/apis/request/workflow/view/ab?token=s3cret&x=1")).toBe("/apis/request/workflow/view/ab?token=[redacted]&x=1");
    expect(redactUrl("/x?API-KEY=k&Token=t")).toBe("/x?API-KEY=[redacted]&Token=[redacted]");
    expect(redactUrl("/x")).toBe("/x");
  });
});
