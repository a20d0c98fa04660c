/**
 * `@wf/cli/vitest` under Vitest itself: a small Vitest project (tests/fixtures/vitest-project)
 * whose ordinary test files call `act`/`ask`/`check` of `@wf/core`, run by the real `vitest run`
 * in a child process with no model, against the fixture pages. Each test gets its own session on
 * an embedded server; a failed test's error names its screenshot and trace, saved under the report
 * folder; a soft check fails its test at the end; a free-form step with no lock entry names the
 * lock beside the test file and the test it is keyed by.
 */
import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "@wf/server";
import { FIXTURES, ROOT, scratchDir, startPages } from "./_helpers.js";

const PROJECT = join(FIXTURES, "vitest-project");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

function runVitest(env: Record<string, string>, timeoutMs: number, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: Record<string, string> = {};
  // The outer Vitest's own variables (worker ids, pool) must not leak into the inner run.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("WF_") && !k.startsWith("VITEST") && k !== "FORCE_COLOR") childEnv[k] = v;
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [VITEST, "run", "--root", PROJECT, "--reporter=default", "--reporter=json", `--outputFile.json=${env.REPORT_JSON}`, ...args], { cwd: PROJECT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe("@wf/cli/vitest (a Vitest project run in a child process, no model)", { timeout: 200_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let result: Awaited<ReturnType<typeof runVitest>>;
  let report: JsonReport;
  const byName = (name: string) => report.testResults.flatMap((f) => f.assertionResults).find((t) => t.fullName === name);

  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    const reportJson = join(scratch.dir, "vitest.json");
    result = await runVitest({ SHOP_URL: pages.url, WF_MODEL: "", NO_COLOR: "1", WF_REPORT_DIR: join(scratch.dir, "wf-report"), REPORT_JSON: reportJson }, 180_000);
    report = JSON.parse(await readFile(reportJson, "utf8")) as JsonReport;
  }, 200_000);
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
  });

  it("runs act/ask/check in ordinary tests, each test in its own session; a test that takes no step passes without one", () => {
    expect(result.code).toBe(1);
    expect(byName("the shop lists tea and coffee")?.status).toBe("passed");
    expect(byName("a second test gets its own session")?.status).toBe("passed");
    expect(byName("takes no step")?.status).toBe("passed");
    expect(report.numPassedTests).toBe(3);
    expect(report.numFailedTests).toBe(3);
  });

  it("shows a failed check's reason, its call site in the test file, and the saved screenshot and trace", async () => {
    const failed = byName("failures a check that does not hold");
    expect(failed?.status).toBe("failed");
    const message = failed!.failureMessages.join("\n");
    expect(message).toContain("WF_CHECK_FAILED");
    expect(message).toContain('the page does not show "Free shipping"');
    // The call site is the source's line and column (Vite's transform is mapped back).
    expect(message).toContain(`${join(PROJECT, "shop.spec.ts")}:29:11`);
    const screenshot = /wf screenshot: (\S+\.png)/.exec(message)?.[1];
    const trace = /wf trace: (\S+\.zip)/.exec(message)?.[1];
    expect(screenshot?.startsWith(join(scratch.dir, "wf-report", "vitest", "failures-a-check-that-does-not-hold"))).toBe(true);
    const png = await readFile(screenshot!);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect((await stat(trace!)).size).toBeGreaterThan(0);
    // Vitest's own failure output shows them too.
    expect(result.stdout + result.stderr).toContain(`wf screenshot: ${screenshot}`);
  });

  it("fails a test at its end when a soft check failed, after the rest of it ran", () => {
    const soft = byName("failures a soft check fails the test at its end");
    expect(soft?.status).toBe("failed");
    const message = soft!.failureMessages.join("\n");
    expect(message).toMatch(/1 soft check failed[\s\S]*"Gift cards"[\s\S]*WF_CHECK_FAILED/);
    expect(message).toMatch(/wf screenshot: \S+\.png/);
  });

  it("keys the lock beside the test file by the test's name: a free-form step without an entry says which test and how to record it", () => {
    const freeForm = byName("failures a free-form step with no lock entry and no model");
    expect(freeForm?.status).toBe("failed");
    const message = freeForm!.failureMessages.join("\n");
    expect(message).toContain("WF_LOCK_MISSING");
    expect(message).toContain(join(PROJECT, "shop.spec.wf.lock.json"));
    expect(message).toContain('in test "failures > a free-form step with no lock entry and no model"');
    expect(message).toContain("WF_LOCK=write npx vitest run shop.spec.ts");
  });
});

describe("@wf/cli/vitest against a service at WF_BASE_URL", { timeout: 200_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let server: RunningServer;
  let dataDir: string;
  const KEY = "vitest-key-0123456789";

  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    dataDir = await mkdtemp(join(tmpdir(), "wf-vitest-served-"));
    server = await startServer({ host: "127.0.0.1", port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await pages?.close();
    await scratch?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const run = async (apiKey: string) => {
    const reportJson = join(scratch.dir, `served-${apiKey.length}.json`);
    const env = { SHOP_URL: pages.url, WF_BASE_URL: server.url, WF_API_KEY: apiKey, NO_COLOR: "1", WF_REPORT_DIR: join(scratch.dir, "wf-report"), REPORT_JSON: reportJson };
    const result = await runVitest(env, 180_000, ["-t", "a second test|a check that does not hold"]);
    const report = JSON.parse(await readFile(reportJson, "utf8")) as JsonReport;
    const tests = report.testResults.flatMap((f) => f.assertionResults).filter((t) => t.status !== "skipped" && t.status !== "pending");
    return { result, tests };
  };

  it("runs each test in a session of that service, and a failed one still names its screenshot and trace", async () => {
    const { tests } = await run(KEY);
    expect(tests.map((t) => [t.fullName, t.status])).toEqual([
      ["a second test gets its own session", "passed"],
      ["failures a check that does not hold", "failed"],
    ]);
    const message = tests[1]!.failureMessages.join("\n");
    expect(message).toContain("WF_CHECK_FAILED");
    expect(message).toMatch(/wf screenshot: \S+step-2\.png/);
    expect(message).toMatch(/wf trace: \S+trace\.zip/);
  });

  it("uses that service, not an embedded one: a wrong WF_API_KEY fails the tests that take a step", async () => {
    const { tests } = await run("not-the-key");
    expect(tests.map((t) => t.status)).toEqual(["failed", "failed"]);
    expect(tests[0]!.failureMessages.join("\n")).toMatch(/401|WF_UNAUTHORIZED|api key/i);
  });
});
