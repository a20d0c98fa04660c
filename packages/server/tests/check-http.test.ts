/**
 * A check over HTTP, as a client that speaks only the protocol sends it: an ASK with `check`. It
 * succeeds with a `CheckAnswer`, fails `WF_CHECK_FAILED` with the reason and evidence in
 * `error.details`, and a check with a schema, on an ACT or with
 * `currentDom` is a 422. A plain ASK still answers as before (the public samples' shape).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CheckAnswer } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-check";
let dataDir: string;
let server: RunningServer;
let pages: StaticServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-check-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/check/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("runs a check as an ASK with check: a CheckAnswer when it holds, WF_CHECK_FAILED with details when not", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  await api.finished((await api.runOk(workflowId, { type: "ACT", step: `go to ${pages.url}/orders.html` })).stepId);

  const held = await api.finished((await api.runOk(workflowId, { type: "ASK", step: 'there are 2 "Pending" rows', check: { timeoutMs: 1_000 } })).stepId);
  expect(held).toMatchObject({ status: "SUCCEEDED", type: "ASK", interpreter: "grammar" });
  expect(CheckAnswer.parse(held.result)).toMatchObject({ holds: true, interpreter: "grammar", attempts: 1 });

  const failed = await api.finished((await api.runOk(workflowId, { type: "ASK", step: '"Session expired" is visible', check: { timeoutMs: 300 } })).stepId);
  expect(failed.status).toBe("FAILED");
  expect(failed.error).toMatchObject({ code: "WF_CHECK_FAILED", details: { reason: '"Session expired" is not visible.' } });
  expect((failed.error!.details as { evidence: string }).evidence).toContain("only hidden ones");

  // The question as a plain ASK (no check) is answered as before.
  const plain = await api.finished((await api.runOk(workflowId, { type: "ASK", step: "the title of the page" })).stepId);
  expect(plain).toMatchObject({ status: "SUCCEEDED", result: "Orders — Acme Shop" });
});

it("refuses a check with a schema, on an ACT, or with currentDom (422, /check)", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  for (const body of [
    { type: "ASK", step: 'the page shows "x"', check: {}, schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false } },
    { type: "ACT", step: 'the page shows "x"', check: {} },
    { type: "ASK", step: 'the page shows "x"', check: {}, currentDom: "<p>x</p>" },
  ]) {
    const res = await api.run(workflowId, body);
    expect([res.status, res.json.code, res.json.errors?.[0]?.path]).toEqual([422, "WF_VALIDATION_FAILED", "/check"]);
  }
});

it("refuses a check recipe on a step that is no check (422, /checkRecipe)", async () => {
  const api = apiClient(server.url, KEY);
  const { workflowId } = await api.create();
  const checkRecipe = { element: { role: "text", name: "Shipped", locator: "locator('#status')" }, contains: "Shipped" };
  for (const body of [
    { type: "ASK", step: "the status", checkRecipe },
    { type: "ACT", step: 'click "Orders"', checkRecipe },
  ]) {
    const res = await api.run(workflowId, body);
    expect([res.status, res.json.code, res.json.errors?.[0]?.path]).toEqual([422, "WF_VALIDATION_FAILED", "/checkRecipe"]);
  }
});
