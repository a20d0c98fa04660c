/**
 * `browserEndpoint` (`WF_BROWSER_ENDPOINT`): the server connects over CDP to a browser that runs
 * elsewhere instead of launching one, as it would to a browser grid. The "remote" browser here is a
 * real Chromium started by the test with a DevTools port, outside the server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, StepStatus, routePath } from "@wf/core/protocol";
import { CHROMIUM_ARGS } from "../src/browser/host.js";
import { resolveServerOptions, startServer, type RunningServer } from "../src/index.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-cdp";
let remote: ChildProcess;
let endpoint: string;
let profileDir: string;
let dataDir: string;
let pages: StaticServer;
let server: RunningServer;

/** Starts Chromium with a DevTools port of its own choosing and resolves with its WebSocket endpoint. */
function startRemoteChromium(executable: string, userDataDir: string): Promise<{ child: ChildProcess; endpoint: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, ["--headless", ...CHROMIUM_ARGS, "--remote-debugging-port=0", `--user-data-dir=${userDataDir}`, "about:blank"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`Chromium printed no DevTools endpoint:\n${stderr}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, endpoint: match[1]! });
      }
    });
    child.on("error", reject);
  });
}

beforeAll(async () => {
  const executable = resolveServerOptions({}, {}).chromiumPath;
  if (!executable) throw new Error("No Chromium on this machine: apt-get install chromium");
  profileDir = await mkdtemp(join(tmpdir(), "wf-cdp-profile-"));
  dataDir = await mkdtemp(join(tmpdir(), "wf-cdp-data-"));
  ({ child: remote, endpoint } = await startRemoteChromium(executable, profileDir));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, browserEndpoint: endpoint, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  if (remote && remote.exitCode === null && remote.signalCode === null) {
    // Wait for the exit: a Chromium still writing its profile makes removing the folder fail.
    const exited = new Promise((resolve) => remote.once("exit", resolve));
    remote.kill("SIGKILL");
    await exited;
  }
  await pages?.close();
  for (const dir of [dataDir, profileDir]) if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

it("runs steps in a browser it connected to over CDP", async () => {
  const headers = { "api-key": KEY, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => (await fetch(server.url + path, { method: "POST", headers, body: JSON.stringify(body) })).json();
  const session = CreateSessionResponse.parse(await post(ROUTES.stepCreate, {}));
  const run = async (body: Record<string, unknown>) => {
    const { stepId } = RunStepResponse.parse(await post(routePath(ROUTES.stepRun, { id: session.workflowId }), body));
    const res = await fetch(`${server.url}${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`, { headers });
    return StepStatus.parse(await res.json());
  };
  expect((await run({ step: `go to "${pages.url}/form.html"`, type: "ACT" })).status).toBe("SUCCEEDED");
  const title = await run({ step: "the page title", type: "ASK" });
  expect(title).toMatchObject({ status: "SUCCEEDED", result: "Item form" });
  // The page lives in the remote browser: its DevTools target list shows it.
  const targets = (await (await fetch(`http://${new URL(endpoint).host}/json/list`)).json()) as Array<{ type: string; url: string }>;
  expect(targets.filter((t) => t.type === "page").map((t) => t.url)).toContain(`${pages.url}/form.html`);
  expect(remote.exitCode).toBeNull();
});
