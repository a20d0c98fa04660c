/**
 * Regression (issue 11): a secret could be recovered from the journal (now the database). `requestHash` was an
 * unsalted SHA-256 of the unredacted body (the `redact` list included), so hashing candidate
 * bodies found a test password in 5 tries. Now it is an HMAC with a server secret kept in the data
 * directory (mode 0600), and idempotency still works across a restart.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SECRET_FILE, startServer } from "../../src/index.js";
import { databaseBytes } from "../helpers/records.js";
import { apiClient } from "../helpers/api.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-secret";
const PASSWORD = "hunter2";
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-secret-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** What the old server digested: SHA-256 of the body with keys sorted. */
function bareDigest(body: Record<string, unknown>): string {
  const canonical = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    if (value && typeof value === "object") {
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
    }
    return JSON.stringify(value);
  };
  return createHash("sha256").update(canonical(body)).digest("hex");
}

it("the database holds no digest a dictionary can match, and idempotency survives a restart", async () => {
  const body = (password: string) => ({ type: "ACT", step: `type "${password}" into "Item name"`, redact: [password] });
  const first = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  let sessionId: string;
  let stepId: string;
  try {
    const api = apiClient(first.url, KEY);
    sessionId = (await api.create()).workflowId;
    await api.finished((await api.runOk(sessionId, { type: "ACT", step: `go to "${pages.url}/form.html"` })).stepId);
    stepId = (await api.runOk(sessionId, body(PASSWORD), { "idempotency-key": "login" })).stepId;
    expect((await api.finished(stepId)).status).toBe("SUCCEEDED");
  } finally {
    await first.close();
  }

  const text = await databaseBytes(dataDir);
  expect(text).toContain(stepId);
  expect(text).not.toContain(PASSWORD);
  const digests = new Set([...text.matchAll(/"requestHash":"([^"]*)"/g)].map((m) => m[1]!));
  expect(digests.size).toBeGreaterThan(0);
  for (const digest of digests) expect(digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  // The dictionary attack of the report: none of the candidates' digests appears in the database.
  for (const candidate of ["password", "123456", "letmein", "hunter1", PASSWORD]) {
    const bare = bareDigest(body(candidate));
    expect(text).not.toContain(bare);
  }
  expect((await stat(join(dataDir, SECRET_FILE))).mode & 0o777).toBe(0o600);

  const second = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  try {
    const api = apiClient(second.url, KEY);
    // Same key, same body after the restart: the first step's ids (the session ended, yet the retry is recognised).
    const retry = await api.run(sessionId, body(PASSWORD), { "idempotency-key": "login" });
    expect(retry.status).toBe(200);
    expect(retry.json.stepId).toBe(stepId);
    // Same key, another body: still told apart.
    const other = await api.run(sessionId, body("not-the-password"), { "idempotency-key": "login" });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe("WF_IDEMPOTENCY_KEY_REUSED");
  } finally {
    await second.close();
  }
});
