/**
 * Secret params of a stored run: the workflow uses the secret in an instruction, a log line and
 * its output; the session's status, the workflow list and the database on disk must never hold it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROUTES, RunWorkflowResponse, SessionStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { startPageServer, type LocalServer } from "./fixtures/stored/servers.js";
import { databaseBytes } from "./helpers/records.js";

const KEY = "test-key-secrets";
const SECRET = "tok-3f9a7c-very-secret";
let pages: LocalServer;
let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-stored-secrets-"));
  pages = await startPageServer();
  server = await startServer({
    port: 0,
    apiKeys: [KEY],
    dataDir,
    workflowsDir: fileURLToPath(new URL("./fixtures/stored-secrets/", import.meta.url)),
    journalSync: false,
  });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("keeps a secret param's value out of the steps, the output, the logs and the database", async () => {
  const headers = { "api-key": KEY, "content-type": "application/json" };
  const res = await fetch(server.url + ROUTES.workflowRun, {
    method: "POST",
    headers,
    body: JSON.stringify({ workflowId: "secret-echo", variables: { url: `${pages.url}page-1.html`, token: SECRET } }),
  });
  expect(res.status).toBe(200);
  const { sessionId } = RunWorkflowResponse.parse(await res.json());
  const final = SessionStatus.parse(
    await (await fetch(`${server.url}${routePath(ROUTES.sessionStatus, { id: sessionId })}?waitMs=30000`, { headers })).json(),
  );
  expect(final.status, JSON.stringify(final.error)).toBe("SUCCEEDED");
  // The step ran with the real value; what is recorded and shown has it masked.
  expect(final.steps.map((s) => s.step)).toEqual([`go to ${pages.url}page-1.html`, "the page title (token [secret])"]);
  expect(final.output).toMatchObject({ echoed: "[secret]" });
  // The log() line is in the status, after the one step started before it.
  expect(final.logs).toEqual([{ at: expect.any(String), message: "using token [secret]", afterSteps: 1 }]);
  expect(JSON.stringify(final)).not.toContain(SECRET);

  await server.close();
  const records = await databaseBytes(dataDir);
  expect(records).toContain(sessionId);
  expect(records).toContain("using token [secret]");
  expect(records).not.toContain(SECRET);

  // The log lines outlive a restart, as the steps do.
  const again = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  try {
    const restored = SessionStatus.parse(await (await fetch(again.url + routePath(ROUTES.sessionStatus, { id: sessionId }), { headers })).json());
    expect(restored.logs).toEqual(final.logs);
  } finally {
    await again.close();
  }
});
