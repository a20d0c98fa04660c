/**
 * Stored runs replay recorded reads (issue 35) as `wf run` does: a server allowed to write locks
 * records an ASK the model answered with its read recipe; restarted with no model and read-only
 * locks, it replays the read with no model call and returns the page's current data. Over real
 * HTTP with a real Chromium and a double of the model provider.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, RunWorkflowResponse, SessionStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { askReply, startModelDouble, type ModelDouble } from "./helpers/model-double.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-stored-read-lock";
const PAGES = fileURLToPath(new URL("./fixtures/model/", import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

const WORKFLOW = `import { z } from "zod";
import { act, ask, workflow } from "@wf/core";

export default workflow(
  { name: "pending", params: z.object({ url: z.string() }), output: z.array(z.object({ order: z.string(), total: z.number() })) },
  async ({ params }) => {
    await act(\`go to \${params.url}\`);
    return ask("the pending orders", z.array(z.object({ order: z.string(), total: z.number() })));
  },
);
`;

describe("stored runs with recorded reads", { timeout: 180_000 }, () => {
  let pages: StaticServer;
  let model: ModelDouble;
  let dir: string;
  let lockPath: string;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    pages = await startStaticServer(PAGES);
    await mkdir(RESULTS_DIR, { recursive: true });
    dir = await mkdtemp(join(RESULTS_DIR, "stored-read-lock-"));
    await mkdir(join(dir, "workflows"));
    await writeFile(join(dir, "workflows", "pending.ts"), WORKFLOW);
    lockPath = join(dir, "workflows", "pending.wf.lock.json");
    model = await startModelDouble((request) => ({
      content: askReply(request, { value: [{ order: "#1042", total: 120 }, { order: "#1044", total: 1299 }] }, [
        { path: "/value/0/order", quote: "#1042" },
        { path: "/value/0/total", quote: "$120.00" },
        { path: "/value/1/order", quote: "#1044" },
        { path: "/value/1/total", quote: "$1,299.00" },
      ]),
      usage: { prompt_tokens: 400, completion_tokens: 40 },
    }));
  });
  afterAll(async () => {
    await server?.close();
    await pages?.close();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const start = async (options: { withModel: boolean; writeLocks: boolean }) => {
    await server?.close();
    server = await startServer(
      {
        port: 0,
        apiKeys: [KEY],
        dataDir: join(dir, `data-${options.withModel}-${options.writeLocks}`),
        workflowsDir: join(dir, "workflows"),
        journalSync: false,
        writeLocks: options.writeLocks,
        ...(options.withModel ? { model: "test-model", modelBaseUrl: model.baseUrl, modelApiKey: "sk-test-stored-read" } : {}),
      },
      {},
    );
  };
  const run = async (variant: string): Promise<SessionStatus> => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server!.url + path, {
        method,
        headers: { "api-key": KEY, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const started = await call("POST", ROUTES.workflowRun, { workflowId: "pending", variables: { url: `${pages.url}/read-orders.html${variant ? `?variant=${variant}` : ""}` } });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const { sessionId: workflowId } = RunWorkflowResponse.parse(started.json);
    let status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id: workflowId }))).json);
    while (status.status === "RUNNING") {
      status = SessionStatus.parse((await call("GET", `${routePath(ROUTES.sessionStatus, { id: workflowId })}?since=${status.version}&waitMs=20000`)).json);
    }
    return status;
  };

  it("records the read with its recipe, then replays it with no model on changed data", async () => {
    await start({ withModel: true, writeLocks: true });
    const recorded = await run("");
    expect(recorded.status, JSON.stringify(recorded.error)).toBe("SUCCEEDED");
    expect(model.requests).toHaveLength(1);
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0]).toMatchObject({ instruction: "the pending orders", read: { recipe: { parts: [{ path: "/value", where: [{ equals: "Pending" }] }] } } });

    await start({ withModel: false, writeLocks: false });
    const replayed = await run("changed");
    expect(replayed.status, JSON.stringify(replayed.error)).toBe("SUCCEEDED");
    expect(replayed.output).toEqual([
      { order: "#1042", total: 120 },
      { order: "#1044", total: 1349 },
      { order: "#1046", total: 18.25 },
    ]);
    expect(replayed.steps.find((s) => s.type === "ASK")).toMatchObject({ replayed: true, interpreter: "grammar" });
    expect(model.requests).toHaveLength(1);
  });
});
