/**
 * `wf run --debug` and Playwright's `PWDEBUG=1`: a pause before each step, resumed from the
 * terminal (Enter runs the step, `c` runs on), the browser headed; without a display, a clear
 * error instead of playwright-core's Inspector failing as "No Chromium browser found". The headed
 * run is checked under `xvfb-run` where the machine has it. Real `wf` process, real Chromium.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, ROOT, WF_BIN, runWf, startPages } from "./_helpers.js";

let pages: { url: string; close(): Promise<void> };
beforeAll(async () => {
  pages = await startPages();
});
afterAll(async () => {
  await pages?.close();
});

/** The environment of a user's shell: no `WF_*`, no display unless given. */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("WF_") && !["DISPLAY", "WAYLAND_DISPLAY", "PWDEBUG", "FORCE_COLOR"].includes(k)) env[k] = v;
  return { ...env, NO_COLOR: "1", ...extra };
}

/**
 * Runs `wf` with stdin a pipe; `answer(stderr)` returns the line to type once a new pause shows.
 * @returns the exit code, stdout, stderr and the number of pauses seen
 */
function debugRun(command: string, args: string[], env: Record<string, string>, answer: (pause: number) => string): Promise<{ code: number | null; stdout: string; stderr: string; pauses: number }> {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let pauses = 0;
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    const seen = stderr.split("⏸ paused before step").length - 1;
    while (pauses < seen) child.stdin.write(answer(++pauses));
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, pauses });
    });
  });
}

describe("wf run --debug", () => {
  it("pauses before each step until Enter, and runs on without pausing after c", async () => {
    const args = [WF_BIN, "run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--debug", "--no-headed", "--reporter", "json"];
    const run = await debugRun(process.execPath, args, userEnv({}), (pause) => (pause === 1 ? "\n" : "c\n"));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "succeeded", steps: [{ index: 1 }, { index: 2 }, { index: 3 }] });
    // Paused before steps 1 and 2, each named with its call site; after `c`, step 3 ran without a pause.
    expect(run.pauses).toBe(2);
    expect(run.stderr).toMatch(/⏸ paused before step 1: ACT go to http:\/\/127\.0\.0\.1:\d+\/index\.html \(\S*hello\.ts:11:\d+\)\n {2}Enter: run it · c, Enter: run on without pausing\n/);
    // The secret param is redacted in the pause line as everywhere else.
    expect(run.stderr).toContain('⏸ paused before step 2: ACT type "[secret]" into "Password"');
  }, 240_000);

  it("with stdin closed, says so once and runs on", async () => {
    const run = await runWf(["run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--debug", "--no-headed", "--reporter", "json"], { timeoutMs: 200_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.match(/⏸ paused before step/g)).toHaveLength(1);
    expect(run.stderr).toContain("wf: stdin ended: running on without pausing.");
  }, 240_000);

  it("PWDEBUG=1 is --debug: without a display it says what to do, not that no Chromium was found", async () => {
    const run = await runWf(["run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`], { env: { PWDEBUG: "1", DISPLAY: "", WAYLAND_DISPLAY: "" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--debug (and PWDEBUG=1) shows the browser window, and this machine has no display");
    expect(run.stderr).toContain("--no-headed");
    expect(run.stderr).not.toContain("No Chromium browser found");
  }, 120_000);

  const xvfb = spawnSync("sh", ["-c", "command -v xvfb-run"]).status === 0;
  it.skipIf(!xvfb)("PWDEBUG=1 under xvfb-run: a headed Chromium, paused before each step, and playwright-core's own Inspector kept out", async () => {
    const args = ["-a", process.execPath, WF_BIN, "run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "json"];
    const run = await debugRun("xvfb-run", args, userEnv({ PWDEBUG: "1" }), () => "\n");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "succeeded" });
    expect(run.pauses).toBe(3);
  }, 240_000);
});
