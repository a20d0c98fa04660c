/**
 * Stored runs and the action lock beside the stored workflow file, over real HTTP with a real
 * Chromium and a double of the model provider: a server allowed to write locks (`writeLocks`)
 * records what the model resolved and heals a renamed field in place without the model; a server
 * that may not write replays the lock with no model at all, and fails a stale entry naming it and
 * the command that refreshes it, leaving the file untouched.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, RunWorkflowResponse, SessionStatus, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { pageOf, refFor, startModelDouble, type ModelDouble } from "./helpers/model-double.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-stored-lock";
/** The sign-in pages of the CLI's lock tests: lock-a says "Email", lock-b "Work email", lock-c "E-mail address". */
const PAGES = fileURLToPath(new URL("../../cli/tests/fixtures/pages/", import.meta.url));
/** Inside the package, so the workflow file resolves @wf/core and zod. */
const RESULTS_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

const WORKFLOW = `import { z } from "zod";
import { act, secret, workflow } from "@wf/core";

export default workflow(
  { name: "sign-in", params: z.object({ url: z.string(), user: z.string(), password: secret(z.string()) }) },
  async ({ params }) => {
    await act(\`go to \${params.url}\`);
    await act(\`sign in as \${params.user} with password \${params.password}\`);
  },
);
`;

describe("stored runs with the action lock", { timeout: 180_000 }, () => {
  let pages: StaticServer;
  let model: ModelDouble;
  let dir: string;
  let lockPath: string;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    pages = await startStaticServer(PAGES);
    await mkdir(RESULTS_DIR, { recursive: true });
    dir = await mkdtemp(join(RESULTS_DIR, "stored-lock-"));
    await mkdir(join(dir, "workflows"));
    await writeFile(join(dir, "workflows", "sign-in.ts"), WORKFLOW);
    lockPath = join(dir, "workflows", "sign-in.wf.lock.json");
    model = await startModelDouble((request) => ({
      content: {
        reason: "Fill the form and sign in.",
        actions: [
          { verb: "fill", ref: refFor(request, "mail", "textbox"), value: /sign in as (\S+)/.exec(pageOf(request))?.[1] ?? "" },
          { verb: "fill", ref: refFor(request, "Password", "textbox"), value: "{{secret1}}" },
          { verb: "click", ref: refFor(request, "Sign in", "button"), value: null },
        ],
      },
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
        ...(options.withModel ? { model: "test-model", modelBaseUrl: model.baseUrl, modelApiKey: "sk-test-stored-lock" } : {}),
      },
      {},
    );
  };
  /** Starts sign-in on `page` and long-polls it to its end. */
  const run = async (page: string, user: string, password: string): Promise<SessionStatus> => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server!.url + path, {
        method,
        headers: { "api-key": KEY, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const started = await call("POST", ROUTES.workflowRun, { workflowId: "sign-in", variables: { url: `${pages.url}/${page}`, user, password } });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const { sessionId: workflowId } = RunWorkflowResponse.parse(started.json);
    let status = SessionStatus.parse((await call("GET", routePath(ROUTES.sessionStatus, { id: workflowId }))).json);
    while (status.status === "RUNNING") {
      status = SessionStatus.parse((await call("GET", `${routePath(ROUTES.sessionStatus, { id: workflowId })}?since=${status.version}&waitMs=20000`)).json);
    }
    return status;
  };

  it("a server allowed to write locks records what the model resolved, with placeholders and no secret", async () => {
    await start({ withModel: true, writeLocks: true });
    const status = await run("lock-a.html", "ada@example.com", "pw-first-secret");
    expect(status.status, JSON.stringify(status.error)).toBe("SUCCEEDED");
    expect(model.requests).toHaveLength(1);
    const text = await readFile(lockPath, "utf8");
    const lock = JSON.parse(text);
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0]).toMatchObject({
      callSite: expect.stringMatching(/^sign-in\.ts:8:\d+$/),
      instruction: "sign in as {{user}} with password {{password}}",
      actions: [
        { instruction: 'type "{{user}}" into the "Email" field', element: { role: "textbox", name: "Email" } },
        { instruction: 'type "{{password}}" into the "Password" field' },
        { instruction: 'click the "Sign in" button' },
      ],
      model: "test-model",
    });
    expect(text).not.toContain("pw-first-secret");
    expect(text).not.toContain("ada@example.com");
  });

  it("heals a renamed field there without the model: found again by its recorded locator, the entry rewritten in place", async () => {
    const status = await run("lock-b.html", "bob@example.com", "pw-second-secret");
    expect(status.status, JSON.stringify(status.error)).toBe("SUCCEEDED");
    expect(model.requests).toHaveLength(1);
    const signIn = status.steps.find((s) => s.step.startsWith("sign in"))!;
    expect(signIn).toMatchObject({ replayed: true, interpreter: "grammar" });
    const lock = JSON.parse(await readFile(lockPath, "utf8"));
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0].actions[0]).toMatchObject({ instruction: 'type "{{user}}" into the "Work email" field', element: { role: "textbox", name: "Work email" } });
  });

  it("a server with no model and read-only locks replays the entry, and fails a stale one naming it and the refresh command", async () => {
    await start({ withModel: false, writeLocks: false });
    const before = await readFile(lockPath, "utf8");
    const replayed = await run("lock-b.html", "cy@example.com", "pw-third-secret");
    expect(replayed.status, JSON.stringify(replayed.error)).toBe("SUCCEEDED");
    expect(replayed.steps.find((s) => s.step.startsWith("sign in"))).toMatchObject({ replayed: true, status: "SUCCEEDED" });

    const stale = await run("lock-c.html", "dee@example.com", "pw-fourth-secret");
    expect(stale.status).toBe("FAILED");
    expect(stale.error?.message).toContain('The lock entry "sign in as {{user}} with password {{password}}" at sign-in.ts:8:');
    expect(stale.error?.message).toContain("--lock write");
    expect(stale.error?.message).toContain('the lock recorded textbox "Work email"');
    expect(await readFile(lockPath, "utf8")).toBe(before);
    expect(model.requests).toHaveLength(1);
  });
});
