/**
 * `allowModel: false` on a step-run request (issue 21): the server runs an ACT the grammar carries
 * out alone and, where the step would need the model (an ACT the grammar hands over, and every ASK
 * on a server with a model: issue 31), fails WF_MODEL_FORBIDDEN without calling it. Real server, real Chromium, a double of the model provider that counts requests.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROUTES, StepStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../../src/index.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";
import { askReply, refFor, startModelDouble, type ModelDouble } from "../helpers/model-double.js";

const PAGES = fileURLToPath(new URL("../../../cli/tests/fixtures/pages/", import.meta.url));
const TABLE_SCHEMA = {
  type: "json_schema",
  json_schema: {
    name: "answer",
    strict: true,
    schema: { type: "object", additionalProperties: false, required: ["value"], properties: { value: { type: "array", items: { type: "object", additionalProperties: false, required: ["name", "price"], properties: { name: { type: "string" }, price: { type: "number" } } } } } },
  },
};

describe("allowModel: false on a step", { timeout: 120_000 }, () => {
  let model: ModelDouble;
  let pages: StaticServer;
  let server: RunningServer;
  let dataDir: string;
  let sessionId: string;

  beforeAll(async () => {
    model = await startModelDouble((request) =>
      request.body.response_format?.json_schema?.name === "wf_act"
        ? { content: { reason: "Sign in.", actions: [{ verb: "click", ref: refFor(request, "Sign in", "button"), value: null }] }, usage: { prompt_tokens: 10, completion_tokens: 1 } }
        : { content: askReply(request, { value: "Fixture shop" }), usage: { prompt_tokens: 10, completion_tokens: 1 } },
    );
    pages = await startStaticServer(PAGES);
    dataDir = await mkdtemp(join(tmpdir(), "wf-allow-model-"));
    server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, model: "test-model", modelBaseUrl: model.baseUrl, modelApiKey: "sk-test", stepTimeoutMs: 20_000 });
    sessionId = ((await post(ROUTES.stepCreate, {})) as { workflowId: string }).workflowId;
    expect((await step({ step: `go to ${pages.url}/index.html`, type: "ACT" })).status).toBe("SUCCEEDED");
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await server?.close();
    await pages?.close();
    await model?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function post(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(server.url + path, { method: "POST", headers: { "api-key": "k", "content-type": "application/json" }, body: JSON.stringify(body) });
    return res.json();
  }
  async function step(body: Record<string, unknown>): Promise<StepStatus> {
    const { stepId } = (await post(routePath(ROUTES.stepRun, { id: sessionId }), body)) as { stepId: string };
    const res = await fetch(`${server.url}${routePath(ROUTES.stepStatus, { stepId })}?waitMs=25000`, { headers: { "api-key": "k" } });
    return StepStatus.parse(await res.json());
  }

  it("an ACT the grammar cannot carry out fails WF_MODEL_FORBIDDEN, keeping the grammar's own failure, with no model call", async () => {
    const status = await step({ step: "sign me in please", type: "ACT", allowModel: false });
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_FORBIDDEN", details: { cause: { code: "WF_INSTRUCTION_NOT_UNDERSTOOD" } } } });
    expect(status.error!.message).toMatch(/^The step needs the model, and it was sent with allowModel: false \(no model was called\)\. The grammar alone: /);
    expect(status.usage ?? undefined).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it("an ACT the grammar carries out alone still runs", async () => {
    const status = await step({ step: 'click the "Sign in" button', type: "ACT", allowModel: false });
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
    expect(model.requests).toHaveLength(0);
  });

  it("an ASK needs the model on a server with one: WF_MODEL_FORBIDDEN, never the model-free page reader's answer instead (issue 31)", async () => {
    // The page reader could read this table; on a server with a model every ASK is the model's,
    // and a step the budget or the lock stopped must say so, not be answered by someone else.
    for (const body of [
      { step: "the name and price of each row", type: "ASK", schema: TABLE_SCHEMA, allowModel: false },
      { step: "how many drinks cost more than 3", type: "ASK", allowModel: false },
    ]) {
      const status = await step(body);
      expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_FORBIDDEN" } });
      expect(status.error!.message).toMatch(/every ASK is the model's to answer/);
      expect(status.result ?? null).toBeNull();
      expect(status.usage ?? undefined).toBeUndefined();
    }
    expect(model.requests).toHaveLength(0);
  });

  it("without the flag the same ACT goes to the model (the samples' requests are unchanged)", async () => {
    const status = await step({ step: "sign me in please", type: "ACT" });
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    expect(model.requests).toHaveLength(1);
  });
});
