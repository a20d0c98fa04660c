/**
 * Regression (issue 33): a 2 MiB step-run body without files was answered 422 (its `step` is
 * longer than 4,000 characters) although a body over `bodyLimitBytes` is a 413, as the server
 * README says. The size is now checked before the body is validated.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";

const KEY = "test-key-oversized";
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-oversized-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", warmSessions: false });
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("a 2 MiB step-run body without files is a 413 WF_BODY_TOO_LARGE, not a 422", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  const res = await api.run(workflowId, { type: "ACT", step: `click "${"x".repeat(2 * 1024 * 1024)}"` });
  expect(res.status).toBe(413);
  expect(res.json).toMatchObject({ code: "WF_BODY_TOO_LARGE", detail: expect.stringContaining("bodyLimitBytes") });
  // A body under the limit with a bad field is still a 422.
  const bad = await api.run(workflowId, { type: "ACT", step: "x".repeat(5000) });
  expect(bad.status).toBe(422);
});
