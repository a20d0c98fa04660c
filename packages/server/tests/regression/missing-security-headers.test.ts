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
    // The page's script is a file of this server ('self'): no inline script runs, so a script
    // injected into the page (through a step's text, a URL) does not. Its style is a file too.
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("'unsafe-inline'");
    const html = await page.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/\bsrc="/);
    // The page is one fixed file: another session's page is the same bytes (nothing interpolated).
    const other = await api.create();
    expect(await (await fetch(other.debuggerUrl)).text()).toBe(html);
    // Its script and style: the right types, nosniff, no token needed (nothing in them is the session's).
    const files = [
      [/<script\b[^>]*src="([^"]+)"/.exec(html)![1]!, "text/javascript"],
      [/<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!, "text/css"],
      [/<link rel="icon" href="([^"]+)"/.exec(html)![1]!, "image/svg+xml"],
    ] as const;
    for (const [src, type] of files) {
      const asset = await fetch(new URL(src, debuggerUrl).href.replace(/\?.*$/, ""));
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get("content-type"), src).toContain(type);
      expect(asset.headers.get("x-content-type-options"), src).toBe("nosniff");
    }
    // Nothing else is served from there (not the page itself without its token check).
    for (const name of ["index.html", "nope.js"]) {
      const missing = await fetch(new URL(`../view-assets/${name}`, debuggerUrl).href.replace(/\?.*$/, ""));
      expect(missing.status, name).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe("WF_ROUTE_NOT_FOUND");
    }

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
