/**
 * Regression (issue 25): a JSON body with invalid UTF-8 was accepted (its bytes became U+FFFD and
 * the step ran with an instruction nobody sent); a body whose charset is not UTF-8, or whose
 * `Content-Encoding` the server does not decode, was accepted with 200. Now invalid UTF-8 is a 400
 * naming the first bad byte, and a foreign charset or any content coding but `identity` is a 415
 * saying what to send, all as problem details, and nothing is queued.
 */
import { gzipSync } from "node:zlib";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../../src/index.js";
import { apiClient, type ApiClient } from "../helpers/api.js";

const KEY = "test-key-body-encoding";
let server: RunningServer;
let api: ApiClient;
let dataDir: string;
let sessionId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-body-encoding-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, warmSessions: false });
  api = apiClient(server.url, KEY);
  sessionId = (await api.create()).workflowId;
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Posts raw bytes as a step run of the session; resolves with status and parsed problem. */
async function post(body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; type: string | null; json: Record<string, unknown> }> {
  const res = await fetch(server.url + routePath(ROUTES.stepRun, { id: sessionId }), { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers: { "api-key": KEY, ...headers } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const STEP = JSON.stringify({ step: "reload", type: "ACT" });

it("a body that is not valid UTF-8 is a 400 naming the byte, and nothing runs", async () => {
  // `type "caf\xe9" into "Name"` in Latin-1: 0xE9 then a backslash, which no UTF-8 character allows.
  const prefix = Buffer.from('{"step":"type \\"caf', "utf8");
  const body = Buffer.concat([prefix, Buffer.from([0xe9]), Buffer.from('\\" into \\"Name\\"","type":"ACT"}', "utf8")]);
  const answer = await post(body, { "content-type": "application/json" });
  expect(answer.status).toBe(400);
  expect(answer.type).toContain(PROBLEM_CONTENT_TYPE);
  expect(answer.json.code).toBe("WF_MALFORMED_JSON");
  // The lead byte 0xE9 is fine; the backslash after it at prefix.length + 1 is what breaks the sequence.
  expect(answer.json.detail).toContain(`not valid UTF-8: the byte at offset ${prefix.length + 1}`);
  expect(answer.json.detail).toMatch(/Send the JSON encoded as UTF-8/);
  // A lone continuation byte is named at its own offset.
  const lone = await post(Buffer.concat([Buffer.from('{"step":"', "utf8"), Buffer.from([0x80]), Buffer.from('","type":"ACT"}', "utf8")]), { "content-type": "application/json" });
  expect(lone.status).toBe(400);
  expect(lone.json.detail).toContain("the byte at offset 9 (0x80)");
  expect((await api.session(sessionId)).steps).toHaveLength(0);
});

it("a charset other than UTF-8 is a 415 saying to send UTF-8; utf-8 in any spelling is read", async () => {
  for (const charset of ["iso-8859-1", "utf-16", '"windows-1252"']) {
    const answer = await post(STEP, { "content-type": `application/json; charset=${charset}` });
    expect(answer.status, charset).toBe(415);
    expect(answer.type).toContain(PROBLEM_CONTENT_TYPE);
    expect(answer.json.code).toBe("WF_UNSUPPORTED_MEDIA_TYPE");
    expect(answer.json.detail).toContain(`charset is ${JSON.stringify(charset.replace(/"/g, ""))}`);
    expect(answer.json.detail).toContain("UTF-8");
  }
  expect((await api.session(sessionId)).steps).toHaveLength(0);
  for (const charset of ["utf-8", "UTF8", '"UTF-8"']) {
    const answer = await post(STEP, { "content-type": `application/json; charset=${charset}` });
    expect(answer.status, charset).toBe(200);
  }
});

it("a Content-Encoding the server does not decode is a 415 saying to send the body uncompressed", async () => {
  const gzip = await post(gzipSync(Buffer.from(STEP)), { "content-type": "application/json", "content-encoding": "gzip" });
  expect(gzip.status).toBe(415);
  expect(gzip.json.code).toBe("WF_UNSUPPORTED_MEDIA_TYPE");
  expect(gzip.json.detail).toContain("Content-Encoding: gzip");
  expect(gzip.json.detail).toContain("uncompressed");
  // Plain JSON under a coding it does not have is refused too, rather than read as something else.
  const br = await post(STEP, { "content-type": "application/json", "content-encoding": "br" });
  expect(br.status).toBe(415);
  const before = (await api.session(sessionId)).steps.length;
  const identity = await post(STEP, { "content-type": "application/json", "content-encoding": "identity" });
  expect(identity.status).toBe(200);
  expect((await api.session(sessionId)).steps).toHaveLength(before + 1);
});
