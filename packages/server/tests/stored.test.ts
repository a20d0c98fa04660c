/**
 * Stored workflows over real HTTP with a real Chromium: a workflows folder with two workflows and
 * one broken file; running by id on both paths; every 4xx of the run and cancel routes; variables
 * validated against params; status and long-poll; a failing run; cancel; the preview page loaded
 * in Chromium during a run; a restart that keeps finished runs. The proxy has its own file
 * (`stored-proxy.test.ts`). Servers here run one after the other: one browser at a time.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workflow } from "@wf/core";
import { ROUTES, RunWorkflowResponse, SessionStatus, WorkflowList, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { loadStoredWorkflows } from "../src/stored/load.js";
import { startPageServer, WORKFLOWS_DIR, type PageServer } from "./fixtures/stored/servers.js";

const KEY = "test-key-stored";
const RESULTS_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

let pages: PageServer;
let dataDir: string;
let server: RunningServer;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: { "api-key": KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", json: (await res.json()) as any };
}

async function trigger(body: Record<string, unknown>, path: string = ROUTES.workflowRun) {
  const res = await call("POST", path, body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return RunWorkflowResponse.parse(res.json);
}

async function status(id: string, query = "") {
  const res = await call("GET", routePath(ROUTES.sessionStatus, { id }) + query);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return SessionStatus.parse(res.json);
}

/** Long-polls the session until `done` holds, following `version`. */
async function waitUntil(id: string, done: (s: SessionStatus) => boolean): Promise<SessionStatus> {
  let current = await status(id);
  while (!done(current)) {
    if (current.status !== "RUNNING") throw new Error(`session ${id} ended ${current.status} first: ${JSON.stringify(current.error)}`);
    current = await status(id, `?since=${current.version}&waitMs=20000`);
  }
  return current;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-stored-"));
  pages = await startPageServer();
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, workflowsDir: WORKFLOWS_DIR, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the workflows folder", () => {
  it("lists the two workflows with their params as JSON Schema, and the broken file with its error", async () => {
    const res = await call("GET", ROUTES.workflowList);
    expect(res.status).toBe(200);
    const list = WorkflowList.parse(res.json);
    expect(list.workflows.map((w) => w.workflowId)).toEqual(["read-title", "walk-pages"]);
    const readTitle = list.workflows[0]!;
    expect(readTitle).toMatchObject({ description: "Opens a page and reads its title.", file: "read-title.ts" });
    expect(readTitle.params).toMatchObject({ type: "object", properties: { url: { type: "string" } }, required: ["url"] });
    const walk = list.workflows[1]!;
    expect(walk.params).toMatchObject({ properties: { rounds: { type: "integer", default: 3 } }, required: ["base"] });
    expect(list.errors).toEqual([{ file: "broken.ts", message: expect.stringContaining("broken on purpose") }]);
  });

  it("needs the API key", async () => {
    const res = await call("GET", ROUTES.workflowList, undefined, { "api-key": "wrong" });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe("WF_UNAUTHORIZED");
  });

  it("documents the stored-workflow routes in the served OpenAPI document", async () => {
    const { json } = await call("GET", ROUTES.openapi);
    expect(Object.keys(json.paths[ROUTES.workflowList])).toEqual(["get"]);
    for (const path of [ROUTES.workflowRun, ROUTES.workflowRunAlias]) {
      const op = json.paths[path].post;
      expect(op.requestBody.content["application/json"].schema).toMatchObject({ required: ["workflowId"], properties: { variables: {}, proxy: {} } });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "404", "422"]));
    }
    expect(Object.keys(json.paths[ROUTES.sessionCancel].post.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
  });

  it("reports duplicate names as an error of the second file, and skips files that are not workflows", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-stored-dup-"));
    try {
      for (const name of ["a-first.ts", "b-second.ts", "c-other.mts", "d-plain.js", "types.d.ts", "notes.md", "e.test.ts"]) await writeFile(join(dir, name), "");
      await mkdir(join(dir, "nested"));
      const same = workflow({ name: "same-name" }, async () => 1);
      const modules: Record<string, unknown> = {
        "a-first.ts": { default: same },
        "b-second.ts": { default: workflow({ name: "same-name" }, async () => 2) },
        "c-other.mts": { default: workflow({ name: "other" }, async () => 3) },
        "d-plain.js": { default: { not: "a workflow" } },
      };
      const imported: string[] = [];
      const catalog = await loadStoredWorkflows(dir, async (path) => {
        const name = path.slice(dir.length + 1);
        imported.push(name);
        return modules[name];
      });
      expect(imported).toEqual(["a-first.ts", "b-second.ts", "c-other.mts", "d-plain.js"]);
      expect([...catalog.workflows.keys()]).toEqual(["same-name", "other"]);
      expect(catalog.workflows.get("same-name")!.info.file).toBe("a-first.ts");
      expect(catalog.errors.map((e) => [e.file, e.code])).toEqual([
        ["b-second.ts", "WF_WORKFLOW_LOAD_FAILED"],
        ["d-plain.js", "WF_WORKFLOW_LOAD_FAILED"],
      ]);
      expect(catalog.errors[0]!.message).toContain('"same-name" is already used by a-first.ts');
      expect(catalog.errors[1]!.message).toContain("not a workflow");
      await expect(loadStoredWorkflows(join(dir, "missing"))).rejects.toMatchObject({ code: "WF_WORKFLOWS_DIR_UNREADABLE" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("running a stored workflow", () => {
  it("runs on both paths, answers at once with sessionId and previewUrl, and ends SUCCEEDED with the output", async () => {
    for (const [path, page] of [
      [ROUTES.workflowRun, "page-2.html"],
      [ROUTES.workflowRunAlias, "page-3.html"],
    ] as const) {
      const started = await trigger({ workflowId: "read-title", variables: { url: pages.url + page } }, path);
      expect(started.previewUrl).toBe(`${server.url}${routePath(ROUTES.sessionView, { id: started.sessionId })}?token=${new URL(started.previewUrl).searchParams.get("token")}`);
      // Without since, waitMs holds the answer until the session ended.
      const final = await status(started.sessionId, "?waitMs=30000");
      expect(final).toMatchObject({ sessionId: started.sessionId, kind: "STORED", workflowId: "read-title", status: "SUCCEEDED", error: null });
      const title = `Page ${page.slice(5, 6)}`;
      expect(final.output).toEqual({ title });
      expect(final.steps.map((s) => [s.index, s.type, s.status])).toEqual([
        [0, "ACT", "SUCCEEDED"],
        [1, "ASK", "SUCCEEDED"],
      ]);
      expect(final.steps[0]!.step).toBe(`go to ${pages.url}${page}`);
      expect(final.steps[1]!.result).toEqual({ title });
      expect(final.finishedAt).not.toBeNull();
      expect(final.currentUrl).toBe(pages.url + page);
    }
  });

  it("applies param defaults and conversions to the string variables", async () => {
    const started = await trigger({ workflowId: "walk-pages", variables: { base: pages.url, rounds: "2" } });
    const final = await status(started.sessionId, "?waitMs=30000");
    expect(final.status).toBe("SUCCEEDED");
    expect(final.output).toEqual({ visited: ["page-1", "page-2"] });
    expect(final.steps).toHaveLength(2);
  });

  it("answers every 4xx as problem details", async () => {
    const noId = await call("POST", ROUTES.workflowRun, { variables: {} });
    expect(noId.status).toBe(422);
    expect(noId.type).toContain("application/problem+json");
    expect(noId.json).toMatchObject({ code: "WF_VALIDATION_FAILED", errors: [{ path: "/workflowId" }] });

    const unknown = await call("POST", ROUTES.workflowRunAlias, { workflowId: "no-such-workflow" });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: "WF_WORKFLOW_NOT_FOUND", status: 404 });
    expect(unknown.json.detail).toContain("read-title, walk-pages");

    const broken = await call("POST", ROUTES.workflowRun, { workflowId: "broken" });
    expect(broken.status).toBe(404);

    const noKey = await call("POST", ROUTES.workflowRun, { workflowId: "read-title" }, { "api-key": "" });
    expect(noKey.status).toBe(401);

    const malformed = await call("POST", ROUTES.workflowRun, "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe("WF_MALFORMED_JSON");

    const noProxy = await call("POST", ROUTES.workflowRun, { workflowId: "read-title", variables: { url: pages.url }, proxy: true });
    expect(noProxy.status).toBe(422);
    expect(noProxy.json.errors).toEqual([{ path: "/proxy", message: expect.stringContaining("no proxy configured") }]);

    const wrongTypes = await call("POST", ROUTES.workflowRun, { workflowId: "read-title", variables: { url: 42 }, proxy: "yes" });
    expect(wrongTypes.status).toBe(422);
    expect(wrongTypes.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/proxy", "/variables/url"]);
  });

  it("validates the variables against the workflow's params, one field error per bad variable", async () => {
    const missing = await call("POST", ROUTES.workflowRun, { workflowId: "read-title" });
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual([{ path: "/variables/url", message: expect.any(String) }]);

    const bad = await call("POST", ROUTES.workflowRun, { workflowId: "read-title", variables: { url: "not a url", colour: "red" } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/variables/colour", "/variables/url"]);
    expect(bad.json.errors.find((e: { path: string }) => e.path === "/variables/colour").message).toContain("takes url");

    const notNumber = await call("POST", ROUTES.workflowRun, { workflowId: "walk-pages", variables: { base: pages.url, rounds: "many", pauseMs: "99999999" } });
    expect(notNumber.status).toBe(422);
    expect(notNumber.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/variables/pauseMs", "/variables/rounds"]);
  });

  it("ends FAILED with the step's error when a step fails", async () => {
    // Port 9 (discard) refuses connections: the first `go to` fails.
    const started = await trigger({ workflowId: "walk-pages", variables: { base: "http://127.0.0.1:9/", rounds: "1" } });
    const final = await status(started.sessionId, "?waitMs=30000");
    expect(final.status).toBe("FAILED");
    expect(final.error).toMatchObject({ code: "WF_STEP_FAILED", details: { stepIndex: 1, type: "ACT", instruction: "go to http://127.0.0.1:9/page-1.html" } });
    expect(final.error!.message).toContain("Step 1 ACT");
    expect(final.steps).toHaveLength(1);
    expect(final.steps[0]!.status).toBe("FAILED");
    expect(final.output).toBeUndefined();
  });
});

describe("status, long-poll and cancel", () => {
  it("long-polls by version, cancels a running run, and refuses to cancel it twice", async () => {
    const started = await trigger({ workflowId: "walk-pages", variables: { base: pages.url, rounds: "3", pauseMs: "30000" } });
    const first = await status(started.sessionId);
    expect(first.status).toBe("RUNNING");
    // Each long-poll answers with a newer version; the first step finishes, then the run pauses.
    const afterStep = await waitUntil(started.sessionId, (s) => s.steps[0]?.status === "SUCCEEDED");
    expect(afterStep.version).toBeGreaterThan(first.version);
    expect(afterStep.status).toBe("RUNNING");

    const cancelled = await call("POST", routePath(ROUTES.sessionCancel, { id: started.sessionId }));
    expect(cancelled.status).toBe(200);
    expect(SessionStatus.parse(cancelled.json)).toMatchObject({ status: "CANCELLED", error: { code: "WF_CANCELLED" } });

    const again = await call("POST", routePath(ROUTES.sessionCancel, { id: started.sessionId }));
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("WF_SESSION_FINISHED");

    const unknown = await call("POST", routePath(ROUTES.sessionCancel, { id: "0123456789abcdef01234567" }));
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe("WF_SESSION_NOT_FOUND");

    const final = await status(started.sessionId);
    expect(final.status).toBe("CANCELLED");
    expect(final.steps).toHaveLength(1);
    // Without since, a long-poll on an ended session answers at once.
    expect((await status(started.sessionId, "?waitMs=30000")).status).toBe("CANCELLED");
    // Its browser context is freed: only sessions still running hold one.
    expect(server.context.sessions.openSessionCount).toBe(0);
  });
});

describe("the preview page", () => {
  it("shows the run's steps as they happen, then the output", async () => {
    // The last step (its page held by the site) ends only once the preview page watches the run:
    // a step gets its screenshot when it ends while a debugger page watches, and on a loaded
    // machine the page can take longer to open than the whole run takes.
    const release = pages.hold("page-3.html");
    const started = await trigger({ workflowId: "walk-pages", variables: { base: pages.url, rounds: "3", pauseMs: "700" } });
    const context = await server.context.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(started.previewUrl);
      // Steps appear one by one while the run goes on; the first shown, the page's event stream is open.
      await page.locator("li.step").first().waitFor();
      release();
      await page.locator('li.step[data-status="SUCCEEDED"]').nth(2).waitFor({ timeout: 30_000 });
      await page.locator("#session-status", { hasText: "SUCCEEDED" }).waitFor({ timeout: 30_000 });
      await expect(page.locator("li.step").count()).resolves.toBe(3);
      await expect(page.locator("li.step").nth(1).textContent()).resolves.toContain(`go to ${pages.url}page-2.html`);
      await page.getByText('Output: {"visited":["page-1","page-2","page-3"]}').waitFor();
      await expect(page.locator("#workflow").textContent()).resolves.toBe("Stored workflow: walk-pages");
      // The picture after the last step, taken while the page watched.
      await page.locator("#shot img").waitFor();
      await expect(page.locator("#shot-caption").textContent()).resolves.toBe("after step 3");
      await mkdir(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: join(RESULTS_DIR, "stored-preview.png"), fullPage: true });
    } finally {
      release();
      await context.close();
    }
  });

  it("needs the session's token", async () => {
    const started = await trigger({ workflowId: "read-title", variables: { url: pages.url + "page-1.html" } });
    const url = new URL(started.previewUrl);
    url.searchParams.set("token", "wrong");
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(started.previewUrl)).status).toBe(200);
    await status(started.sessionId, "?waitMs=30000");
  });
});

describe("restart", () => {
  it("keeps finished runs; a run the restart interrupted reads FAILED", async () => {
    const done = await trigger({ workflowId: "read-title", variables: { url: pages.url + "page-4.html" } });
    const finished = await status(done.sessionId, "?waitMs=30000");
    expect(finished.status).toBe("SUCCEEDED");
    const interrupted = await trigger({ workflowId: "walk-pages", variables: { base: pages.url, rounds: "2", pauseMs: "30000" } });
    await waitUntil(interrupted.sessionId, (s) => s.steps[0]?.status === "SUCCEEDED");

    await server.close();
    server = await startServer({ port: 0, apiKeys: [KEY], dataDir, workflowsDir: WORKFLOWS_DIR, journalSync: false });

    const kept = await status(done.sessionId);
    expect(kept).toMatchObject({ status: "SUCCEEDED", kind: "STORED", workflowId: "read-title", output: { title: "Page 4" } });
    expect(kept.steps.map((s) => s.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    const cut = await status(interrupted.sessionId);
    expect(cut).toMatchObject({ status: "FAILED", error: { code: "WF_SERVER_RESTARTED" } });
    const cancel = await call("POST", routePath(ROUTES.sessionCancel, { id: interrupted.sessionId }));
    expect(cancel.status).toBe(409);
  });
});
