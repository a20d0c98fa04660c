/**
 * Regression (issue 11): a step with a deeply nested schema was a 500. `canonicalJson` (the
 * idempotency digest) recursed once per level and overflowed the stack at ~2,000 levels: an 18 KB
 * body. Now a schema deeper than MAX_STEP_SCHEMA_DEPTH JSON levels is a 422 at `/schema`, and
 * every schema OpenAI's strict mode can take (10 levels of objects and arrays) still passes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_STEP_SCHEMA_DEPTH, jsonDepth } from "@wf/core/protocol";
import { MAX_NESTING_DEPTH } from "@wf/core";
import { startServer, type RunningServer } from "../../src/index.js";
import { apiClient, type ApiClient } from "../helpers/api.js";

const KEY = "test-key-nested";
let server: RunningServer;
let api: ApiClient;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-nested-"));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  await server?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** `{"a":{"a":…}}` `levels` deep, as text (JSON.stringify itself would recurse). */
function nestedObject(levels: number): string {
  return '{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
}

/** A strict schema at OpenAI's nesting limit, with an `anyOf` (nullable) at every level: the deepest JSON a usable schema has. */
function deepestUsableSchema(): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < MAX_NESTING_DEPTH; level++) {
    node = { anyOf: [{ type: "object", properties: { child: node }, required: ["child"], additionalProperties: false }, { type: "null" }] };
  }
  return { type: "json_schema", json_schema: { name: "deep", strict: true, schema: { type: "object", properties: { root: node }, required: ["root"], additionalProperties: false, $defs: {} } } };
}

it("a schema 2,000 or 100,000 levels deep is a 422 at /schema, not a 500; the server keeps serving", async () => {
  const { workflowId } = await api.create();
  for (const levels of [2_000, 100_000]) {
    for (const schema of [nestedObject(levels), "[".repeat(levels) + "]".repeat(levels)]) {
      const body = `{"type":"ASK","step":"What is the title?","schema":{"x":${schema}}}`;
      const res = await api.call("POST", `/apis/request/workflow/step/run/${workflowId}`, body);
      expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(422);
      expect(res.json.code).toBe("WF_VALIDATION_FAILED");
      expect(res.json.errors).toEqual([{ path: "/schema", message: expect.stringContaining(`more than ${MAX_STEP_SCHEMA_DEPTH} JSON levels`) }]);
    }
  }
  expect((await api.session(workflowId)).steps).toEqual([]);
});

it("the deepest schema OpenAI's strict mode accepts is still taken", async () => {
  const schema = deepestUsableSchema();
  expect(jsonDepth(schema)).toBeLessThanOrEqual(MAX_STEP_SCHEMA_DEPTH);
  const { workflowId } = await api.create();
  const res = await api.run(workflowId, { type: "ASK", step: "What is the title?", schema, currentDom: "<title>t</title>" });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  // And just past the limit is refused.
  const tooDeep = JSON.parse(nestedObject(MAX_STEP_SCHEMA_DEPTH + 1)) as Record<string, unknown>;
  expect((await api.run(workflowId, { type: "ASK", step: "What is the title?", schema: tooDeep })).status).toBe(422);
  expect((await api.run(workflowId, { type: "ASK", step: "What is the title?", schema: JSON.parse(nestedObject(MAX_STEP_SCHEMA_DEPTH)) })).status).toBe(200);
});
