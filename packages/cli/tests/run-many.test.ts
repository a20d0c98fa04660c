/**
 * `wf run` as a test runner, spawned as a user runs it: a folder of workflows (two pass, one
 * fails, one is flaky through a page that has its button on every other load), on ONE embedded
 * server, with workers, retries, grep, list, max failures, and several reporters at once.
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { FIXTURES, runWf, scratchDir } from "./_helpers.js";

const SUITE = join(FIXTURES, "suite");

describe("wf run on many workflows (spawned)", { timeout: 400_000 }, () => {
  let server: Server;
  let origin: string;
  let flakyLoads = 0;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    const shop = await readFile(join(FIXTURES, "pages", "index.html"), "utf8");
    server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      // The first load (and every odd one) lacks the button: the first attempt fails, the retry passes.
      if (req.url === "/flaky") res.end(++flakyLoads % 2 === 1 ? shop.replace(/<button[^>]*>Sign in<\/button>/, "") : shop);
      else res.end(shop);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await new Promise<void>((done) => server?.close(() => done()));
    await scratch?.remove();
  });

  it("--list shows what --grep selects, passes over helpers, and runs nothing", async () => {
    const listed = await runWf(["run", SUITE, "--list", "--grep", "sign-in"], { cwd: scratch.dir });
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    // Each with the params its workflow takes.
    expect(lines[0]).toMatch(/flaky-sign-in\.ts › flaky-sign-in · params: url$/);
    expect(lines[1]).toMatch(/shop-sign-in\.ts › shop-sign-in · params: url$/);
    expect(lines[2]).toBe("Total: 2 workflows in 2 files");
    const inverted = await runWf(["run", join(SUITE, "*.ts"), "--list", "--grep-invert", "sign-in|broken"], { cwd: scratch.dir });
    expect(inverted.stdout).toMatch(/^ {2}\S*shop-title\.ts › shop-title · params: url\nTotal: 1 workflow in 1 file\n$/);
    expect(flakyLoads).toBe(0);
  });

  it("runs the folder with 2 workers and 1 retry: list on stdout, JUnit XML and JSON in files, exit 1", async () => {
    await writeFile(
      join(scratch.dir, "wf.config.ts"),
      `export default { reporter: [["list"], ["junit", { outputFile: "report/junit.xml" }], ["json", { outputFile: "report/run.json" }]] };\n`,
    );
    flakyLoads = 0;
    const result = await runWf(["run", SUITE, "--workers", "2", "--retries", "1", "--trace", "on-first-retry", "--var", `url=${origin}`], { cwd: scratch.dir, timeoutMs: 380_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Running 4 workflows using 2 workers");
    expect(result.stdout).toMatch(/✘ \S*flaky-sign-in\.ts › flaky-sign-in \(/);
    expect(result.stdout).toMatch(/✔ \S*flaky-sign-in\.ts › flaky-sign-in \(retry #1\)/);
    expect(result.stdout).toContain("flaky-sign-in is flaky: passed on retry #1");
    // The failed step ran in the workflow's step("check out"): the failure names the group.
    expect(result.stdout).toMatch(/1\) \S*checkout-broken\.ts › checkout-broken\n +step 2 ACT "click \\"No such button anywhere\\"" failed in step "check out"\n +\[WF_STEP_FAILED\] .*\n +at \S*checkout-broken\.ts:10:\d+/);
    expect(result.stdout).toMatch(/2 passed, 1 flaky, 1 failed \(/);
    expect(flakyLoads).toBe(2);

    // on-first-retry (Playwright's mode): only the retries were traced, kept whatever their outcome.
    const report = join(scratch.dir, "wf-report");
    const traces = (await readdir(report, { recursive: true })).filter((f) => f.endsWith("trace.zip")).sort();
    expect(traces).toEqual([join("checkout-broken-retry1", "trace.zip"), join("flaky-sign-in-retry1", "trace.zip")]);
    expect(result.stdout).toContain("Trace: wf show-trace wf-report/checkout-broken-retry1/trace.zip");
    expect(result.stdout).not.toContain("show-trace wf-report/flaky-sign-in");

    // JUnit XML, read by a parser: one testcase per workflow, the failure with its step, code, message and call site.
    const xml = await readFile(join(scratch.dir, "report", "junit.xml"), "utf8");
    // Valid against the JUnit schema CI systems read (libxml2's XSD validation, compiled to WebAssembly);
    // a document missing a testcase's required name is not, so the check has teeth.
    const junitSchema = [{ fileName: "junit.xsd", contents: await readFile(join(FIXTURES, "junit.xsd"), "utf8") }];
    const validated = await validateXML({ xml: [{ fileName: "junit.xml", contents: xml }], schema: junitSchema });
    expect(validated.errors.map((e) => e.message)).toEqual([]);
    expect(validated.valid).toBe(true);
    const unnamed = await validateXML({ xml: [{ fileName: "broken.xml", contents: xml.replace(/<testcase name="[^"]*"/, "<testcase") }], schema: junitSchema });
    expect(unnamed.valid).toBe(false);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (name) => name === "testsuite" || name === "testcase" }).parse(xml);
    const root = parsed.testsuites;
    expect(root).toMatchObject({ name: "wf", tests: "4", failures: "1", skipped: "0" });
    const cases = root.testsuite.flatMap((s: { testcase: unknown[] }) => s.testcase) as Array<Record<string, any>>;
    expect(cases.map((c) => c.name).sort()).toEqual(["checkout-broken", "flaky-sign-in", "shop-sign-in", "shop-title"]);
    const broken = cases.find((c) => c.name === "checkout-broken")!;
    expect(broken.failure.type).toBe("WF_STEP_FAILED");
    expect(broken.failure.message).toContain("No such button anywhere");
    expect(broken.failure["#text"]).toMatch(/step 2 ACT "click \\"No such button anywhere\\"" failed/);
    expect(broken.failure["#text"]).toMatch(/at \S*checkout-broken\.ts:10:\d+/);
    expect(broken["system-out"]).toContain('step 1 ACT "go to');
    // The step() group and the log() line, in order, in each attempt's lines.
    expect(broken["system-out"]).toMatch(/step 1 ACT "go to[^\n]*\nlog on the shop's home page\n▸ check out\n  step 2 ACT "click \\"No such button anywhere\\"" failed[^\n]*\n✖ check out failed/);
    const flaky = cases.find((c) => c.name === "flaky-sign-in")!;
    expect(flaky.failure).toBeUndefined();
    expect(flaky["system-out"]).toMatch(/attempt 1: failed[\s\S]*attempt 2: succeeded/);
    expect(cases.filter((c) => c.failure)).toHaveLength(1);

    const json = JSON.parse(await readFile(join(scratch.dir, "report", "run.json"), "utf8"));
    expect(json).toMatchObject({ version: 1, status: "failed", stats: { passed: 2, flaky: 1, failed: 1, skipped: 0, interrupted: 0 } });
    const byName = Object.fromEntries(json.workflows.map((w: { name: string }) => [w.name, w]));
    expect(byName["flaky-sign-in"].outcome).toBe("flaky");
    expect(byName["flaky-sign-in"].attempts.map((a: { status: string }) => a.status)).toEqual(["failed", "succeeded"]);
    expect(byName["checkout-broken"].attempts).toHaveLength(2);
    // One embedded server for the whole run: every session's debugger link has the same origin.
    const origins = new Set(json.workflows.flatMap((w: { attempts: Array<{ debuggerUrl: string }> }) => w.attempts.map((a) => new URL(a.debuggerUrl).origin)));
    expect(origins.size).toBe(1);
  });

  it("-x stops after the first failure; the rest did not run (dot reporter, exit 1)", async () => {
    await writeFile(join(scratch.dir, "wf.config.ts"), `export default {};\n`);
    const result = await runWf(["run", SUITE, "-x", "--workers", "1", "--reporter", "dot", "--param", `url=${origin}`], { cwd: scratch.dir, timeoutMs: 200_000 });
    expect(result.code).toBe(1);
    // Files run in order: checkout-broken.ts is the first, and fails.
    expect(result.stdout.split("\n")[0]).toBe("F");
    expect(result.stdout).toMatch(/1 failed, 3 did not run/);
  });

  it("refuses an unknown --var/--param, listing the known ones, before starting anything", async () => {
    const one = await runWf(["run", join(FIXTURES, "hello.ts"), "--var", "nope=1"], { cwd: scratch.dir });
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('Workflow "hello" has no param "nope" (--param). Known params: url, password, times.');
    const many = await runWf(["run", SUITE, "--param", "urll=x"], { cwd: scratch.dir });
    expect(many.code).toBe(2);
    expect(many.stderr).toContain('No selected workflow has a param "urll" (--param). Known params: url.');
  });

  it("--repeat-each runs each workflow that many times, each reported on its own", async () => {
    await writeFile(join(scratch.dir, "wf.config.ts"), `export default {};\n`);
    const listed = await runWf(["run", SUITE, "--list", "--grep", "shop-title", "--repeat-each", "3"], { cwd: scratch.dir });
    expect(listed.stdout).toMatch(/shop-title\.ts › shop-title · params: url\n.*shop-title\.ts › shop-title \(repeat #1\) · params: url\n.*shop-title\.ts › shop-title \(repeat #2\) · params: url\nTotal: 3 workflows in 1 file\n$/);
    const result = await runWf(["run", SUITE, "--grep", "shop-title", "--repeat-each", "2", "--reporter", "json", "--param", `url=${origin}`], { cwd: scratch.dir, timeoutMs: 200_000 });
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.stats).toMatchObject({ passed: 2, failed: 0 });
    expect(json.workflows.map((w: { name: string; repeatEachIndex: number }) => [w.name, w.repeatEachIndex])).toEqual([["shop-title", 0], ["shop-title", 1]]);
    // Two runs, two sessions.
    expect(new Set(json.workflows.map((w: { attempts: Array<{ sessionId: string }> }) => w.attempts[0]!.sessionId)).size).toBe(2);
  });

  it("--headed without a display fails before launching, saying why (exit 2)", async () => {
    const result = await runWf(["run", join(SUITE, "shop-title.ts"), "--headed", "--param", `url=${origin}`], { cwd: scratch.dir, env: { DISPLAY: "", WAYLAND_DISPLAY: "" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("A headed browser needs a display");
    expect(result.stderr).toContain("xvfb-run");
    expect(result.stderr).not.toContain("Install a Chromium");
  });
});
