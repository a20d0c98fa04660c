/**
 * Regression (issue 11): no `X-Content-Type-Options` on any route, no framing restriction on the
 * debugger page, an unknown HTTP method answered with a plain 400, and the debugger route said
 * whether a session id exists before checking the token. Now helmet sets the security headers on
 * every answer, unknown methods get problem details, and the token is checked first.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, ROUTES, routePath } from "@wf/core/protocol";
import { VIEW_ROUTES, startServer, type RunningServer } from "../../src/index.js";
import { apiClient, type ApiClient } from "../helpers/api.js";

const KEY = "test-key-headers";
let server: RunningServer;
let api: ApiClient;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-headers-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Sends raw bytes and resolves with everything the server answered before closing. */
async function raw(request: string): Promise<string> {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString("utf8")));
  socket.on("error", () => undefined);
  socket.write(request);
  await new Promise((resolve) => socket.once("close", resolve));
  return received;
}

describe("security headers", () => {
  it("X-Content-Type-Options: nosniff and no framing on every kind of answer", async () => {
    const { workflowId, debuggerUrl } = await api.create();
    const answers = [
      await fetch(server.url + ROUTES.health),
      await fetch(server.url + ROUTES.openapi, { headers: { "api-key": KEY } }),
      await fetch(server.url + ROUTES.openapi),
      await fetch(server.url + "/apis/request/nothing-here"),
      await fetch(server.url + "/apis/request/workflow/status/%E0%A4%A"),
      await fetch(server.url + routePath(ROUTES.stepRun, { id: workflowId }), { method: "POST", headers: { "api-key": KEY, "content-type": "application/json" }, body: "{}" }),
      await fetch(debuggerUrl),
    ];
    for (const res of answers) {
      expect(res.headers.get("x-content-type-options"), `${res.url} ${res.status}`).toBe("nosniff");
      expect(res.headers.get("x-frame-options"), `${res.url} ${res.status}`).toBe("DENY");
    }
    const page = answers.at(-1)!;
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // The page's script runs by a nonce, new for each answer; no inline script without it.
    const csp = page.headers.get("content-security-policy")!;
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, csp).toBeDefined();
    expect(csp).not.toContain("script-src 'unsafe-inline'");
    expect(await page.text()).toContain(`<script nonce="${nonce}">`);
    const again = (await fetch(debuggerUrl)).headers.get("content-security-policy")!;
    expect(again).not.toContain(nonce);

    const events = await fetch(debuggerUrl.replace("?", "/events?"));
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    expect(events.headers.get("x-content-type-options")).toBe("nosniff");
    await events.body?.cancel();
    // A HEAD of the never-ending stream answers and ends (the fuzz found it hanging).
    const head = await fetch(debuggerUrl.replace("?", "/events?"), { method: "HEAD", signal: AbortSignal.timeout(20_000) });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toContain("text/event-stream");
  });
});

describe("unknown HTTP methods", () => {
  it("a method the HTTP parser rejects is a 405 problem, not a plain 400", async () => {
    const answer = await raw(`FOO ${ROUTES.health} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toContain(`Content-Type: ${PROBLEM_CONTENT_TYPE}`);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ status: 405, code: "WF_METHOD_NOT_ALLOWED" });
  });

  it("a method Node knows but no route serves is a problem with a code", async () => {
    for (const method of ["PROPFIND", "PATCH", "DELETE", "PUT"]) {
      const res = await api.call(method, ROUTES.stepCreate);
      expect([404, 405], method).toContain(res.status);
      expect(res.headers.get("content-type"), method).toContain(PROBLEM_CONTENT_TYPE);
      expect(res.json.code, method).toMatch(/^WF_(ROUTE_NOT_FOUND|METHOD_NOT_ALLOWED)$/);
    }
  });

  it("a request that is not valid HTTP/1.1 (a space in a header name) is a 400 problem", async () => {
    const answer = await raw(`GET ${ROUTES.health} HTTP/1.1\r\nHo st: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "WF_BAD_REQUEST" });
  });
});

describe("the debugger routes check the token before the session id", () => {
  it("an unknown id without a key is a 401 like a wrong token; with the API key it is a 404", async () => {
    const { workflowId, debuggerUrl } = await api.create();
    const token = new URL(debuggerUrl).searchParams.get("token")!;
    const unknown = "0123456789abcdef01234567";
    const routes = [ROUTES.sessionView, VIEW_ROUTES.events, VIEW_ROUTES.screenshot];
    for (const route of routes) {
      const path = (id: string) => routePath(route, { id, stepId: "feedbeef" });
      // Existing id, wrong token, and unknown id with any token: the same 401.
      for (const url of [`${path(workflowId)}?token=wrong`, `${path(unknown)}?token=wrong`, `${path(unknown)}?token=${token}`, path(unknown)]) {
        const res = await fetch(server.url + url);
        expect(res.status, url).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe("WF_UNAUTHORIZED");
      }
      // With the API key, the caller may learn that the id is unknown.
      const withKey = await api.call("GET", path(unknown));
      expect(withKey.status).toBe(404);
      expect(withKey.json.code).toBe("WF_SESSION_NOT_FOUND");
    }
  });
});
