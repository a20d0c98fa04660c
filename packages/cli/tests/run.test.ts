/**
 * `runWorkflowFile()` against a real wf service (one `serve()` server, one Chromium, for the whole
 * file), and the spawned `wf run` for Ctrl-C.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient } from "@wf/runtime";
import { runWorkflowFile, serve, type ServeHandle } from "../src/index.js";
import { createRunReport } from "../src/report/report.js";
import { FIXTURES, collector, runWf, scratchDir, startPages } from "./_helpers.js";

const SECRET = "correct-horse-battery-staple";

describe("runWorkflowFile against a service", { timeout: 120_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let server: ServeHandle;
  let dataDir: string;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  const base = () => ({ serviceUrl: server.url, apiKey: server.apiKey, loadConfigFile: false, env: {} });

  beforeAll(async () => {
    pages = await startPages();
    dataDir = await mkdtemp(join(tmpdir(), "wf-cli-run-"));
    scratch = await scratchDir();
    server = await serve({ port: 0, dataDir, apiKey: "test-key", loadConfigFile: false, env: {}, stdout: collector() });
  });
  afterAll(async () => {
    await server?.close();
    await pages?.close();
    await rm(dataDir, { recursive: true, force: true });
    await scratch?.remove();
  });

  it("runs a workflow: exit 0, typed params, the record with each step and the output", async () => {
    const stdout = collector();
    const result = await runWorkflowFile({
      ...base(),
      file: join(FIXTURES, "hello.ts"),
      params: { url: `${pages.url}/index.html`, times: "3" },
      reporter: "json",
      stdout,
      stderr: collector(),
    });
    expect(result.exitCode).toBe(0);
    expect(result.record.status).toBe("succeeded");
    expect(result.record.steps.map((s) => [s.type, s.status])).toEqual([
      ["ACT", "succeeded"],
      ["ACT", "succeeded"],
      ["ASK", "succeeded"],
    ]);
    expect(result.record.output).toEqual({ title: "Fixture shop", times: 3, echo: "pw=[secret]" });
    expect(JSON.parse(stdout.text())).toEqual(result.record);
  });

  it("never shows a secret param: not in stdout, stderr, the json record or the --out file", async () => {
    for (const reporter of ["pretty", "json", "ndjson"] as const) {
      const stdout = collector();
      const stderr = collector();
      const out = join(scratch.dir, `run-${reporter}.json`);
      const result = await runWorkflowFile({
        ...base(),
        file: join(FIXTURES, "hello.ts"),
        params: { url: `${pages.url}/index.html`, password: SECRET },
        reporter,
        out,
        stdout,
        stderr,
      });
      expect(result.exitCode).toBe(0);
      const written = await readFile(out, "utf8");
      expect(JSON.parse(written).params.password).toBe("[secret]");
      for (const text of [stdout.text(), stderr.text(), written, JSON.stringify(result.record)]) expect(text).not.toContain(SECRET);
      if (reporter === "json") expect(JSON.parse(stdout.text()).steps[1].instruction).toBe('type "[secret]" into "Password"');
    }
  });

  it("a secret that is also part of the record's own text (a field name, a number) hides only in values: every step keeps its index, the report names each screenshot by it", async () => {
    // "in" is part of the field names index, instruction, interpreter; "1" is step 1's index.
    for (const password of ["in", "1"]) {
      const dir = join(scratch.dir, `report-${password}`);
      const entry = { file: join(FIXTURES, "hello.ts"), relFile: "hello.ts", name: "hello", title: "hello", repeatEachIndex: 0, workflow: undefined as never };
      const report = await createRunReport({ dir, trace: "off", entries: [entry], cwd: scratch.dir, warn: (m) => expect.fail(m) });
      const stdout = collector();
      const result = await runWorkflowFile({
        ...base(),
        env: { WF_SCREENSHOT: "on" },
        file: join(FIXTURES, "hello.ts"),
        params: { url: `${pages.url}/index.html`, password },
        reporter: "json",
        stdout,
        stderr: collector(),
        afterRun: (record, client) => report.collect(entry, 0, record, client),
      });
      // The json reporter's record is still JSON, the same record.
      expect(JSON.parse(stdout.text()), password).toEqual(result.record);
      expect(result.exitCode, password).toBe(0);
      expect(result.record.steps.map((s) => s.index), password).toEqual([1, 2, 3]);
      expect(result.record.params.password, password).toBe("[secret]");
      expect(result.record.steps[1]!.instruction, password).not.toContain(`"${password}"`);
      expect((await readdir(join(dir, "hello"))).sort(), password).toEqual(["step-1.png", "step-2.png", "step-3.png"]);
    }
  });

  it("a step's downloads: act() returns them, the record lists them, the report saves each file and lists it under its step", async () => {
    const dir = join(scratch.dir, "report-downloads");
    const entry = { file: join(FIXTURES, "downloads.ts"), relFile: "downloads.ts", name: "downloads", title: "downloads", repeatEachIndex: 0, workflow: undefined as never };
    const report = await createRunReport({ dir, trace: "off", entries: [entry], cwd: scratch.dir, warn: (m) => expect.fail(m) });
    const result = await runWorkflowFile({
      ...base(),
      file: join(FIXTURES, "downloads.ts"),
      params: { url: `${pages.url}/reports.html` },
      stdout: collector(),
      stderr: collector(),
      afterRun: (record, client) => report.collect(entry, 0, record, client),
    });
    expect(result.exitCode).toBe(0);
    const first = await readFile(join(FIXTURES, "pages", "q3-report.csv"));
    const second = await readFile(join(FIXTURES, "pages", "exports", "q3-report.csv"));
    expect(result.record.output).toEqual({ files: [{ name: "q3-report.csv", sizeBytes: first.length }, { name: "q3-report.csv", sizeBytes: second.length }] });
    expect(result.record.steps.map((s) => s.downloads?.map((d) => d.name) ?? [])).toEqual([[], ["q3-report.csv"], ["q3-report.csv"]]);
    // Two files of one name: the second is saved as a browser saves it.
    expect(await readFile(join(dir, "downloads", "downloads", "q3-report.csv"))).toEqual(first);
    expect(await readFile(join(dir, "downloads", "downloads", "q3-report (2).csv"))).toEqual(second);
    await report.write({ status: "passed", results: [{ entry, outcome: "passed", attempts: [result.record], durationMs: 1 }], startedAt: new Date().toISOString(), durationMs: 1, stats: { passed: 1, flaky: 0, failed: 0, interrupted: 0, skipped: 0 } } as never);
    const data = JSON.parse(await readFile(join(dir, "report.json"), "utf8")) as { workflows: Array<{ attempts: Array<{ artifacts?: { downloads?: unknown[] } }> }> };
    expect(data.workflows[0]!.attempts[0]!.artifacts?.downloads).toEqual([
      { step: 2, name: "q3-report.csv", sizeBytes: first.length, mimeType: "application/octet-stream", path: "downloads/downloads/q3-report.csv" },
      { step: 3, name: "q3-report.csv", sizeBytes: second.length, mimeType: "application/octet-stream", path: "downloads/downloads/q3-report (2).csv" },
    ]);
    // The page lists each file under its step, linked to the saved copy.
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(join(dir, "index.html")).href);
      const listed = page.getByTestId("downloads");
      await expect.poll(() => listed.count()).toBe(2);
      expect(await listed.first().textContent()).toBe(`Downloaded: q3-report.csv (${first.length} bytes, application/octet-stream)`);
      expect(await listed.nth(1).locator("a").getAttribute("href")).toBe("downloads/downloads/q3-report (2).csv");
    } finally {
      await browser.close();
    }
  });

  it("a failed step: exit 1, the record names the step and where it was called", async () => {
    const stdout = collector();
    const stderr = collector();
    const result = await runWorkflowFile({ ...base(), file: join(FIXTURES, "failing.ts"), params: { url: `${pages.url}/index.html` }, stdout, stderr });
    expect(result.exitCode).toBe(1);
    expect(result.record.status).toBe("failed");
    expect(result.record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    // The step's message is shown once, under the step; the last line says where the run stopped.
    expect(stdout.text()).toMatch(/step 2 ACT .* failed \d+ms error=WF_ELEMENT_NOT_FOUND: /);
    expect(stderr.text()).toMatch(/^run failed at step 2 \(\S*failing\.ts:\d+:\d+\)\n$/); // in-process tsImport: no source map

    // The spawned command says where in the file the step was called. The service's old flag still works, with a one-line notice.
    const spawned = await runWf(["run", join(FIXTURES, "failing.ts"), "--param", `url=${pages.url}/index.html`, "--base-url", server.url, "--api-key", server.apiKey]);
    expect(spawned.code).toBe(1);
    expect(spawned.stderr.split("\n")[0]).toBe("wf: --base-url is deprecated: it names the wf service, now --service-url (the app's address is use.baseURL / --app-url / WF_APP_URL).");
    expect(spawned.stdout).toContain("error=WF_ELEMENT_NOT_FOUND");
    expect(spawned.stderr).not.toContain("No such button anywhere"); // not repeated at the end
    expect(spawned.stderr).toContain("run failed at step 2 (");
    expect(spawned.stderr).toContain("failing.ts:7:9)");
  });

  it("--timeout aborts the run: status cancelled, error WF_RUN_TIMEOUT, exit 1", async () => {
    const result = await runWorkflowFile({ ...base(), file: join(FIXTURES, "slow.ts"), params: { url: `${pages.url}/index.html` }, timeoutMs: 1_500, stdout: collector(), stderr: collector() });
    expect(result.exitCode).toBe(1);
    expect(result.record.status).toBe("cancelled");
    expect(result.record.error?.message).toContain("timeout of 1500 ms");
    // The runtime records any abort as WF_ABORTED; the CLI says it was the timeout.
    expect(result.record.error?.code).toBe("WF_RUN_TIMEOUT");
  });

  it("a wrong API key is a configuration error (exit 2)", async () => {
    const error = await runWorkflowFile({ ...base(), apiKey: "wrong", file: join(FIXTURES, "hello.ts"), params: { url: pages.url }, stdout: collector(), stderr: collector() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "WF_CLI_SERVICE_REJECTED", exitCode: 2 });
  });

  it("Ctrl-C on `wf run` closes the session and exits 130", async () => {
    let sessionId: string | undefined;
    const result = await runWf(["run", join(FIXTURES, "slow.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "ndjson", "--service-url", server.url, "--api-key", server.apiKey], {
      onStdout: (text, child) => {
        for (const line of text.split("\n")) {
          if (!line.startsWith("{")) continue;
          const event = JSON.parse(line) as { type: string; sessionId?: string; index?: number };
          if (event.type === "run-started") sessionId = event.sessionId;
          if (event.type === "step-started" && event.index === 2 && !child.killed) child.kill("SIGINT");
        }
      },
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('"status":"cancelled"');
    expect(sessionId).toBeDefined();
    const client = createServiceClient({ baseUrl: server.url, apiKey: server.apiKey });
    try {
      const status = await client.getSessionStatus(sessionId!);
      expect(status.status).not.toBe("RUNNING");
    } finally {
      await client.close();
    }
  });
});
