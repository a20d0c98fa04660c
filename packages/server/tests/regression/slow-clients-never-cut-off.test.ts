/**
 * Regression (issue 11): slow clients were never cut off. 500 connections that sent a partial
 * body to an unknown route, without a key, were all still open after 330 s: no `requestTimeout`,
 * no `connectionTimeout`. Now a request must arrive whole within `requestTimeoutMs` (else 408
 * `WF_REQUEST_TIMEOUT`, problem details) and a silent connection is closed after
 * `connectionTimeoutMs`. Raw TCP sockets stand for the slow clients; the test waits for the
 * server to close them (no timing is asserted).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LONG_POLL_MS, PROBLEM_CONTENT_TYPE } from "@wf/core/protocol";
import { resolveServerOptions, startServer, type RunningServer } from "../../src/index.js";

const KEY = "test-key-slow";
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-slow-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, requestTimeoutMs: 1_000, connectionTimeoutMs: 2_000 });
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Opens a socket to the server; `closed` resolves with everything the server sent once it closes the connection. */
async function open(): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString("utf8")));
  socket.on("error", () => undefined);
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  return { socket, closed };
}

describe("slow clients", () => {
  it("a body trickling in a byte at a time is cut off with a 408 problem", async () => {
    const { socket, closed } = await open();
    socket.write("POST /apis/request/nothing-here HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
    // Never silent long enough for the connection timeout: only the request timeout can end it.
    const trickle = setInterval(() => socket.writable && socket.write(" "), 200);
    const answer = await closed;
    clearInterval(trickle);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain(`Content-Type: ${PROBLEM_CONTENT_TYPE}`);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { code: string; status: number; detail: string };
    expect(body).toMatchObject({ code: "WF_REQUEST_TIMEOUT", status: 408 });
    expect(body.detail).toContain("1000 ms");
  });

  it("many half-sent requests are all closed, and the server keeps serving", async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => open()));
    for (const { socket } of clients) socket.write("POST /apis/request/nothing-here HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    await Promise.all(clients.map((c) => c.closed));
    expect(clients.every((c) => c.socket.destroyed)).toBe(true);
    const health = await fetch(server.url + "/apis/request/health");
    expect(health.status).toBe(200);
  });

  it("a connection that says nothing after a finished request is closed after connectionTimeoutMs", async () => {
    const { socket, closed } = await open();
    socket.write("GET /apis/request/health HTTP/1.1\r\nHost: x\r\n\r\n");
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("defaults: 30 s for a request, a silent connection outlives the longest long-poll", () => {
    const defaults = resolveServerOptions({}, {});
    expect(defaults.requestTimeoutMs).toBe(30_000);
    expect(defaults.connectionTimeoutMs).toBeGreaterThan(MAX_LONG_POLL_MS);
    expect(resolveServerOptions({}, { WF_REQUEST_TIMEOUT_MS: "5000", WF_CONNECTION_TIMEOUT_MS: "90000" })).toMatchObject({ requestTimeoutMs: 5_000, connectionTimeoutMs: 90_000 });
  });
});
