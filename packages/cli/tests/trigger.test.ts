/**
 * `wf trigger` and `wf workflows` against a real `startServer` serving the stored-workflow
 * fixtures of `@wf/server` (two workflows and one broken file), with a real Chromium: output,
 * `--wait` by long-poll, exit codes by outcome and for what the service refuses, and Ctrl-C with
 * and without `--cancel-on-interrupt`. One server (one browser) for the file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, SessionStatus, WorkflowList, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "@wf/server";
import { runCli } from "../src/cli.js";
import { EXIT } from "../src/errors.js";
import { startPageServer, WORKFLOWS_DIR, type LocalServer } from "../../server/tests/fixtures/stored/servers.js";
import { collector, runWf } from "./_helpers.js";

const KEY = "test-key-cli-trigger";

let server: RunningServer;
let pages: LocalServer;
let dataDir: string;
let cwd: string;

/** Runs `wf <args>` in-process against the test server; `onOutput` sees every write (stdout and stderr). */
async function wf(args: string[], options: { env?: Record<string, string>; signal?: AbortSignal; onOutput?: (text: string) => void } = {}) {
  const stdout = collector();
  const stderr = collector();
  const watch = (sink: ReturnType<typeof collector>) => ({
    write(chunk: string) {
      sink.write(chunk);
      options.onOutput?.(chunk);
      return true;
    },
  });
  const code = await runCli(args, {
    cwd,
    env: { WF_SERVICE_URL: server.url, WF_API_KEY: KEY, NO_COLOR: "1", ...options.env },
    stdout: watch(stdout),
    stderr: watch(stderr),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function sessionStatus(id: string): Promise<SessionStatus> {
  const res = await fetch(server.url + routePath(ROUTES.sessionStatus, { id }), { headers: { "api-key": KEY } });
  return SessionStatus.parse(await res.json());
}

function sessionIdOf(stdout: string): string {
  const match = /^session\s+(\S+)$/m.exec(stdout);
  if (!match) throw new Error(`no session line in: ${stdout}`);
  return match[1]!;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-cli-trigger-data-"));
  cwd = await mkdtemp(join(tmpdir(), "wf-cli-trigger-cwd-"));
  pages = await startPageServer();
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, workflowsDir: WORKFLOWS_DIR, journalSync: false });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  for (const dir of [dataDir, cwd]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("wf workflows", () => {
  it("prints a table of the stored workflows and names the file that failed to load", async () => {
    const { code, stdout, stderr } = await wf(["workflows"]);
    expect(code).toBe(EXIT.ok);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^WORKFLOW\s+PARAMS\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^read-title\s+url\s+Opens a page and reads its title\.$/);
    expect(lines[2]).toMatch(/^walk-pages\s+base, rounds\?, pauseMs\?\s+Visits the numbered pages/);
    expect(stderr).toContain("1 workflow file(s) failed to load");
    expect(stderr).toContain("broken.ts");
  });

  it("prints the service's answer with --json", async () => {
    const { code, stdout } = await wf(["workflows", "--json"]);
    expect(code).toBe(EXIT.ok);
    const list = WorkflowList.parse(JSON.parse(stdout));
    expect(list.workflows.map((w) => w.workflowId)).toEqual(["read-title", "walk-pages"]);
    expect(list.errors.map((e) => e.file)).toEqual(["broken.ts"]);
  });

  it("is a configuration error (exit 2) without a service", async () => {
    const { code, stderr } = await wf(["workflows"], { env: { WF_SERVICE_URL: "" } });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("WF_SERVICE_URL");
  });
});

describe("wf trigger", () => {
  it("prints sessionId and previewUrl and returns at once without --wait", async () => {
    const { code, stdout } = await wf(["trigger", "read-title", "--var", `url=${pages.url}page-1.html`]);
    expect(code).toBe(EXIT.ok);
    const id = sessionIdOf(stdout);
    expect(stdout).toMatch(new RegExp(`^preview\\s+${server.url}/apis/request/workflow/view/${id}\\?token=\\S+$`, "m"));
    // The run goes on on the service; it ends there.
    const res = await fetch(`${server.url}${routePath(ROUTES.sessionStatus, { id })}?waitMs=30000`, { headers: { "api-key": KEY } });
    expect(SessionStatus.parse(await res.json()).status).toBe("SUCCEEDED");
  });

  it("--wait shows each step as it finishes, as `wf run` prints them, then the output, and exits 0", async () => {
    const { code, stdout, stderr } = await wf(["trigger", "read-title", "--var", `url=${pages.url}page-2.html`, "--wait"]);
    expect(code).toBe(EXIT.ok);
    expect(stderr).toBe("");
    // The pretty format of `wf run` (off a terminal): one line per event.
    expect(stdout).toMatch(new RegExp(`^wf read-title  debugger: ${server.url}/apis/request/workflow/view/\\S+$`, "m"));
    expect(stdout).toMatch(new RegExp(`^step 1 ACT "go to ${pages.url}page-2\\.html" succeeded \\d+ms`, "m"));
    expect(stdout).toMatch(/^step 2 ASK "the page's title" succeeded \d+ms answer=\{"title":"Page 2"\}/m);
    expect(stdout).toMatch(/^run succeeded \(2 steps in [\d.]+m?s\)\n\{\n {2}"title": "Page 2"\n\}\n$/m);
  });

  it("--wait --reporter json prints the run record of `wf run`; variables come from --vars-file and --var", async () => {
    const file = join(cwd, "vars.json");
    await writeFile(file, JSON.stringify({ base: pages.url, rounds: 3 }));
    const { code, stdout } = await wf(["trigger", "walk-pages", "--vars-file", "vars.json", "--var", "rounds=2", "--wait", "--reporter", "json"]);
    expect(code).toBe(EXIT.ok);
    const record = JSON.parse(stdout);
    expect(record).toMatchObject({ version: 1, workflow: "walk-pages", status: "succeeded", output: { visited: ["page-1", "page-2"] } });
    expect(record.steps.map((s: { index: number; type: string; instruction: string; status: string }) => [s.index, s.type, s.instruction, s.status])).toEqual([
      [1, "ACT", `go to ${pages.url}page-1.html`, "succeeded"],
      [2, "ACT", `go to ${pages.url}page-2.html`, "succeeded"],
    ]);
    expect(record.debuggerUrl).toContain(record.sessionId);
  });

  it("exits 1 when the run fails; the step's message is shown once, under the step", async () => {
    const { code, stdout, stderr } = await wf(["trigger", "walk-pages", "--var", "base=http://127.0.0.1:9/", "--var", "rounds=1", "--wait"]);
    expect(code).toBe(EXIT.failed);
    expect(stdout).toMatch(/^step 1 ACT "go to http:\/\/127\.0\.0\.1:9\/page-1\.html" failed \d+ms error=WF_NAVIGATION_FAILED: Could not open/m);
    // Regression: the final line repeated the step's whole message; now it says where, as `wf run` does.
    expect(stderr).toMatch(/^run failed at step 1 \(\S*walk-pages\.ts:\d+:\d+\)\n$/);
    const message = /error=WF_NAVIGATION_FAILED: (.*)$/m.exec(stdout)![1]!.slice(0, 40);
    expect((stdout + stderr).split(message).length - 1).toBe(1);
  });

  it("--wait --reporter ndjson prints the events of `wf run`, ending with run-finished", async () => {
    const { code, stdout } = await wf(["trigger", "read-title", "--param", `url=${pages.url}page-1.html`, "--wait", "--reporter", "ndjson"]);
    expect(code).toBe(EXIT.ok);
    const events = stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; record?: { version: number; status: string } });
    expect(events.map((e) => e.type)).toEqual(["run-started", "step-started", "step-finished", "step-started", "step-finished", "run-finished"]);
    expect(events.at(-1)!.record).toMatchObject({ version: 1, status: "succeeded" });
  });

  it("exits 2 for what the service refuses and for bad flags", async () => {
    const unknown = await wf(["trigger", "no-such-workflow"]);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain("WF_WORKFLOW_NOT_FOUND");

    const invalid = await wf(["trigger", "read-title", "--var", "url=not a url"]);
    expect(invalid.code).toBe(EXIT.usage);
    expect(invalid.stderr).toContain("/variables/url");

    // --param is --var (as on `wf run`); an unknown name is refused with the known ones.
    const unknownVar = await wf(["trigger", "read-title", "--param", `url=${pages.url}`, "--param", "nope=1"]);
    expect(unknownVar.code).toBe(EXIT.usage);
    expect(unknownVar.stderr).toContain('Workflow "read-title" has no param "nope" (--var). Known params: url.');

    const proxy = await wf(["trigger", "read-title", "--var", `url=${pages.url}`, "--proxy"]);
    expect(proxy.code).toBe(EXIT.usage);
    expect(proxy.stderr).toContain("/proxy");

    const badPair = await wf(["trigger", "read-title", "--var", "url"]);
    expect(badPair.code).toBe(EXIT.usage);
    expect(badPair.stderr).toContain("is not key=value");

    const missingFile = await wf(["trigger", "read-title", "--vars-file", "nope.json"]);
    expect(missingFile.code).toBe(EXIT.usage);

    const noService = await wf(["trigger", "read-title"], { env: { WF_SERVICE_URL: "" } });
    expect(noService.code).toBe(EXIT.usage);
    expect(noService.stderr).toContain("wf serve --workflows");
  });

  it("on Ctrl-C stops waiting (exit 130) and leaves the run going; --cancel-on-interrupt cancels it", async () => {
    const args = ["trigger", "walk-pages", "--var", `base=${pages.url}`, "--var", "rounds=2", "--var", "pauseMs=30000", "--wait"];
    // Ctrl-C once the first step was shown.
    const interrupt = () => {
      const controller = new AbortController();
      return { signal: controller.signal, onOutput: (text: string) => void (/step 1 ACT .* succeeded/.test(text) && controller.abort()) };
    };

    const kept = await wf(args, interrupt());
    expect(kept.code).toBe(EXIT.interrupted);
    expect(kept.stderr).toContain("The run goes on");
    const keptId = sessionIdOf(kept.stdout);
    expect((await sessionStatus(keptId)).status).toBe("RUNNING");

    const cancelled = await wf([...args, "--cancel-on-interrupt"], interrupt());
    expect(cancelled.code).toBe(EXIT.interrupted);
    expect(cancelled.stderr).toContain("cancelled session");
    expect((await sessionStatus(sessionIdOf(cancelled.stdout))).status).toBe("CANCELLED");

    // Clean up the run left going.
    await fetch(server.url + routePath(ROUTES.sessionCancel, { id: keptId }), { method: "POST", headers: { "api-key": KEY } });
  });

  it("runs through the real wf binary, exit code by outcome", async () => {
    const result = await runWf(["trigger", "read-title", "--var", `url=${pages.url}page-3.html`, "--wait", "--reporter", "json"], {
      cwd,
      env: { WF_SERVICE_URL: server.url, WF_API_KEY: KEY },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ version: 1, status: "succeeded", output: { title: "Page 3" } });
  });
});
