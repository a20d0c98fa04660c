/**
 * Regression (issue 11, found by the fuzz after the move to a database): an id with a NUL byte in
 * the path (`/workflow/status/%00`) reached a query, PostgreSQL refused the text (SQLSTATE 22021),
 * and the server answered 503 WF_STORAGE_UNAVAILABLE, telling the client to free disk space. Ids
 * that can't be ours are now a 404 (or the token's 401 on the debugger page) without a query.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";

const KEY = "test-key-bad-id";
let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-bad-id-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("answers 404 for ids with a NUL byte or other characters no id has, never a 503", async () => {
  const api = apiClient(server.url, KEY);
  for (const id of ["%00", "ab%00cd", "%C3%A9t%C3%A9", "x'%3B--"]) {
    for (const [method, path, code] of [
      ["GET", `/apis/request/workflow/status/${id}`, "WF_SESSION_NOT_FOUND"],
      ["GET", `/apis/request/workflow/step/status/${id}`, "WF_STEP_NOT_FOUND"],
      ["POST", `/apis/request/workflow/step/run/${id}`, "WF_SESSION_NOT_FOUND"],
      ["POST", `/apis/request/workflow/step/close/${id}`, "WF_SESSION_NOT_FOUND"],
      ["POST", `/apis/request/workflow/cancel/${id}`, "WF_SESSION_NOT_FOUND"],
    ] as const) {
      const res = await api.call(method, path, method === "POST" && path.includes("/run/") ? { type: "ACT", step: "reload" } : undefined);
      expect([res.status, res.json.code], `${method} ${path}`).toEqual([404, code]);
    }
    const view = await fetch(`${server.url}/apis/request/workflow/view/${id}?token=x`);
    expect(view.status).toBe(401);
  }
});
