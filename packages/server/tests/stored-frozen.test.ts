/**
 * Stored runs follow `wf run`'s frozen lock and model budget (issue 21): over real HTTP with a real
 * Chromium and a double of the model provider, a server with `frozenLocks` fails a free-form ACT
 * its lock has no entry for with WF_LOCK_MISSING and calls no model; one with `maxModelCalls: 0`
 * fails it with WF_MODEL_BUDGET_EXCEEDED, no model call either. The steps themselves record the
 * service's own refusal, WF_MODEL_FORBIDDEN.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROUTES, RunWorkflowResponse, SessionStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { refFor, startModelDouble, type ModelDouble } from "./helpers/model-double.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-stored-frozen";
const PAGES = fileURLToPath(new URL("../../cli/tests/fixtures/pages/", import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

const WORKFLOW = `import { z } from "zod";
import { act, workflow } from "@wf/core";

export default workflow({ name: "free", params: z.object({ url: z.string() }) }, async ({ params }) => {
  await act(\`go to \${params.url}\`);
  await act("sign me in please");
});
`;

/** An ASK the model-free page reader could answer (the page's title): on a server with a model, it is the model's. */
const ASK_WORKFLOW = `import { z } from "zod";
import { act, ask, workflow } from "@wf/core";

export default workflow({ name: "title", params: z.object({ url: z.string() }) }, async ({ params }) => {
  await act(\`go to \${params.url}\`);
  return await ask("the page title");
});
`;

describe("stored runs: frozen lock and model budget", { timeout: 180_000 }, () => {
  let pages: StaticServer;
  let model: ModelDouble;
  let dir: string;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    pages = await startStaticServer(PAGES);
    await mkdir(RESULTS_DIR, { recursive: true });
    dir = await mkdtemp(join(RESULTS_DIR, "stored-frozen-"));
    await mkdir(join(dir, "workflows"));
    await writeFile(join(dir, "workflows", "free.ts"), WORKFLOW);
    await writeFile(join(dir, "workflows", "title.ts"), ASK_WORKFLOW);
    model = await startModelDouble((request) => ({
      content: { reason: "Sign in.", actions: [{ verb: "click", ref: refFor(request, "Sign in", "button"), value: null }] },
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    }));
  });
  beforeEach(() => void model.requests.splice(0));
  afterAll(async () => {
    await server?.close();
    await pages?.close();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const runWith = async (options: { frozenLocks?: boolean; maxModelCalls?: number }, workflowId = "free"): Promise<SessionStatus> => {
    await server?.close();
    server = await startServer(
      { port: 0, apiKeys: [KEY], dataDir: join(dir, `data-${Object.keys(options).join("-")}`), workflowsDir: join(dir, "workflows"), journalSync: false, model: "test-model", modelBaseUrl: model.baseUrl, modelApiKey: "sk-test", ...options },
      {},
    );
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server!.url + path, { method, headers: { "api-key": KEY, ...(body ? { "content-type": "application/json" } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return (await res.json()) as unknown;
    };
    const { sessionId } = RunWorkflowResponse.parse(await call("POST", ROUTES.workflowRun, { workflowId, variables: { url: `${pages.url}/index.html` } }));
    let status = SessionStatus.parse(await call("GET", routePath(ROUTES.sessionStatus, { id: sessionId })));
    while (status.status === "RUNNING") status = SessionStatus.parse(await call("GET", `${routePath(ROUTES.sessionStatus, { id: sessionId })}?since=${status.version}&waitMs=20000`));
    return status;
  };

  it("frozenLocks: an ACT with no lock entry that needs the model fails WF_LOCK_MISSING, with no model call", async () => {
    const status = await runWith({ frozenLocks: true });
    expect(status.status).toBe("FAILED");
    expect(status.error).toMatchObject({ details: { serviceCode: "WF_LOCK_MISSING", stepIndex: 2 } });
    expect(status.error!.message).toMatch(/has no entry for "sign me in please" at free\.ts:6:\d+.*`wf run \S*free\.ts --lock write`/s);
    expect(status.steps[1]).toMatchObject({ status: "FAILED", error: { code: "WF_MODEL_FORBIDDEN" } });
    expect(model.requests).toHaveLength(0);
  });

  it("maxModelCalls 0: the step that needs the model fails WF_MODEL_BUDGET_EXCEEDED, with no model call", async () => {
    const status = await runWith({ maxModelCalls: 0 });
    expect(status.status).toBe("FAILED");
    expect(status.error).toMatchObject({ details: { serviceCode: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(model.requests).toHaveLength(0);
  });

  it("maxModelCalls 0: an ASK fails WF_MODEL_BUDGET_EXCEEDED too, never answered by the model-free page reader (issue 31)", async () => {
    const status = await runWith({ maxModelCalls: 0 }, "title");
    expect(status.status).toBe("FAILED");
    expect(status.error).toMatchObject({ details: { serviceCode: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(status.steps[1]).toMatchObject({ type: "ASK", status: "FAILED", error: { code: "WF_MODEL_FORBIDDEN" } });
    expect(status.steps[1]!.result ?? null).toBeNull();
    expect(model.requests).toHaveLength(0);
  });

  it("without either, the same run calls the model and succeeds", async () => {
    const status = await runWith({});
    expect(status.status, JSON.stringify(status.error)).toBe("SUCCEEDED");
    expect(model.requests).toHaveLength(1);
  });
});
