/**
 * What a finished `wf run` leaves behind, spawned as a user runs it on a folder with a passing and
 * a failing workflow: `wf-report/` holds an HTML page that works from disk (opened in a real
 * Chromium over file://), each step's screenshot, and the failed workflow's Playwright trace, read
 * by Playwright's own trace loader (`playwright trace open` / `trace actions`). `wf show-report`
 * serves that folder until it gets a signal.
 */
import { execFile } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, WF_BIN, runWf, scratchDir } from "./_helpers.js";

const SUITE = join(FIXTURES, "suite");
const PLAYWRIGHT_CLI = join(dirname(createRequire(import.meta.url).resolve("playwright-core/package.json")), "cli.js");

describe("the report of wf run (spawned)", { timeout: 300_000 }, () => {
  let server: Server;
  let origin: string;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let run: Awaited<ReturnType<typeof runWf>>;
  const report = () => join(scratch.dir, "wf-report");

  beforeAll(async () => {
    const shop = await readFile(join(FIXTURES, "pages", "index.html"), "utf8");
    server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(shop));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    scratch = await scratchDir();
    // One passing and one failing workflow, two at a time; the trace mode is the default (retain-on-failure).
    run = await runWf(["run", SUITE, "--grep", "checkout-broken|shop-title", "--workers", "2", "--var", `url=${origin}`], { cwd: scratch.dir, timeoutMs: 280_000 });
  }, 300_000);
  afterAll(async () => {
    await new Promise<void>((done) => server?.close(() => done()));
    await scratch?.remove();
  });

  it("prints where the report and the failed workflow's trace are, and writes them", async () => {
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/1 passed, 1 failed \(/);
    expect(run.stdout).toContain("HTML report: wf-report/index.html (open it with: wf show-report)");
    expect(run.stdout).toContain("Trace: wf show-trace wf-report/checkout-broken/trace.zip");
    // .last-run.json: the failed set a later `wf run --last-failed` reads.
    expect((await readdir(report())).sort()).toEqual([".last-run.json", ".wf-report", "checkout-broken", "index.html", "report-data.js", "report.js", "report.json", "shop-title"]);
    // The failed step's screenshot (only-on-failure, the default); a trace only for the failed workflow (retain-on-failure).
    expect((await readdir(join(report(), "checkout-broken"))).sort()).toEqual(["step-2.png", "trace.zip"]);
    expect(await readdir(join(report(), "shop-title")).catch(() => [])).toEqual([]);
  });

  it("the page opens from disk in Chromium: the failed step's screenshot loads, with its message, candidates and URL", async () => {
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(pathToFileURL(join(report(), "index.html")).href);
      const broken = page.locator('details.workflow[data-outcome="failed"]');
      await expect.poll(() => broken.count()).toBe(1);
      expect(await broken.locator(":scope > summary").innerText()).toContain("checkout-broken");
      expect(await page.locator('details.workflow[data-outcome="passed"] > summary').innerText()).toContain("shop-title");

      const failedStep = broken.locator('tr[data-step-status="failed"]');
      expect(await failedStep.innerText()).toContain('click "No such button anywhere"');
      expect(await failedStep.innerText()).toMatch(/suite\/checkout-broken\.ts:10:\d+/);
      // The step("check out") group heads its steps, failed, with its call site; the log() line sits after step 1.
      const group = broken.locator("tr.group-row");
      expect(await group.locator(".group-title").innerText()).toBe("▸ check out");
      expect(await group.getAttribute("data-group-status")).toBe("failed");
      expect(await group.innerText()).toMatch(/suite\/checkout-broken\.ts:9:\d+/);
      const rows = await broken.locator("tbody > tr:not(.step-detail)").evaluateAll((trs) => trs.map((tr) => tr.className || `step ${tr.getAttribute("data-step")}`));
      expect(rows).toEqual(["step 1", "log-row", "group-row", "step 2"]);
      expect(await broken.locator("tr.log-row .log-message").innerText()).toBe("on the shop's home page");
      const error = broken.getByTestId("step-error");
      expect(await error.innerText()).toContain("WF_ELEMENT_NOT_FOUND");
      expect(await error.locator(".message").innerText()).toContain('no element matches "No such button anywhere"');
      expect(await error.locator("li").allInnerTexts()).toContain('"Sign in" (button)');
      expect(await error.locator(".page-url").innerText()).toBe(`${origin}/index.html`);

      const shot = broken.locator("img.failed-shot");
      expect(await shot.getAttribute("src")).toBe("checkout-broken/step-2.png");
      await expect.poll(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
      expect(await broken.locator("a.trace").getAttribute("href")).toBe("checkout-broken/trace.zip");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("the trace is one Playwright's trace loader reads, with the workflow's actions", async () => {
    const trace = join(report(), "checkout-broken", "trace.zip");
    const pw = (...args: string[]) => promisify(execFile)(process.execPath, [PLAYWRIGHT_CLI, "trace", ...args], { cwd: scratch.dir, timeout: 60_000 });
    const opened = await pw("open", trace);
    expect(opened.stdout).toMatch(/Browser:\s+chromium/);
    expect(opened.stdout).toMatch(/Pages:\s+1/);
    const actions = await pw("actions");
    // Step 1 navigated to the shop; step 2 looked for the button by role and name.
    expect(actions.stdout).toContain("Navigate");
    expect(actions.stdout).toContain(`${origin.replace("http://", "")}/index.html`);
    expect(actions.stdout).toContain("getByRole('button', { name: 'No such button anywhere'");
    await pw("close");
  });

  it("wf show-report serves the folder's index.html and its files, and exits on SIGTERM", async () => {
    const child = spawn(process.execPath, [WF_BIN, "show-report", "--port", "0"], { cwd: scratch.dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    try {
      await expect.poll(() => /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1], { timeout: 30_000 }).toBeDefined();
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)![1]!;
      // Not a terminal: it prints the URL and opens no browser.
      expect(stdout).not.toContain("Could not open a browser");
      const index = await fetch(url);
      expect(index.status).toBe(200);
      expect(index.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await index.text()).toContain('<script src="report-data.js"></script>');
      const png = await fetch(`${url}checkout-broken/step-2.png`);
      expect(png.headers.get("content-type")).toBe("image/png");
      expect((await png.arrayBuffer()).byteLength).toBeGreaterThan(100);
      expect((await fetch(`${url}no-such-file`)).status).toBe(404);

      // The report's trace link opens Playwright's trace viewer, served with the report, on the
      // failed workflow's trace: the viewer lists its actions, under the step("check out") group.
      const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
      try {
        const page = await browser.newPage();
        await page.goto(url);
        const link = page.locator('details.workflow[data-outcome="failed"] a.trace');
        await expect.poll(() => link.getAttribute("href"), { timeout: 30_000 }).toMatch(/^trace\/index\.html\?trace=/);
        expect(decodeURIComponent((await link.getAttribute("href"))!.split("trace=")[1]!)).toBe(`${url}checkout-broken/trace.zip`);
        expect(await page.locator('details.workflow[data-outcome="failed"] a.trace-zip').getAttribute("href")).toBe("checkout-broken/trace.zip");
        await link.click();
        await page.waitForURL(/\/trace\/index\.html\?trace=/);
        await expect.poll(() => page.getByText("check out", { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
        await expect.poll(() => page.getByText("Navigate", { exact: true }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
      } finally {
        await browser.close();
      }
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("wf show-trace serves one trace in Playwright's trace viewer", async () => {
    const zip = join(report(), "checkout-broken", "trace.zip");
    const child = spawn(process.execPath, [WF_BIN, "show-trace", zip, "--port", "0"], { cwd: scratch.dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
    try {
      await expect.poll(() => /viewer at (http:\S+)/.exec(stdout)?.[1], { timeout: 30_000 }).toBeDefined();
      const viewer = /viewer at (http:\S+)/.exec(stdout)![1]!;
      const page = await browser.newPage();
      await page.goto(viewer);
      await expect.poll(() => page.getByText("check out", { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
    } finally {
      await browser.close();
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    const missing = await runWf(["show-trace", "no/such/trace.zip", "--no-open"], { cwd: scratch.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("No trace at");
  });

  it("--screenshot only-on-failure: the report holds the failed step's picture and no other", async () => {
    const result = await runWf(["run", SUITE, "--grep", "checkout-broken|shop-title", "--workers", "2", "--screenshot", "only-on-failure", "--trace", "off", "--report-dir", "failures-only", "--var", `url=${origin}`], {
      cwd: scratch.dir,
      timeoutMs: 280_000,
    });
    expect(result.code).toBe(1);
    const dir = join(scratch.dir, "failures-only");
    // checkout-broken fails at its second step; shop-title passes.
    expect((await readdir(join(dir, "checkout-broken"))).sort()).toEqual(["step-2.png"]);
    const passed = existsSync(join(dir, "shop-title")) ? await readdir(join(dir, "shop-title")) : [];
    expect(passed.filter((name) => name.endsWith(".png"))).toEqual([]);
  });

  it("an unknown screenshot mode is a usage error (exit 2) that lists the modes", async () => {
    const result = await runWf(["run", join(SUITE, "shop-title.ts"), "--var", `url=${origin}`], { cwd: scratch.dir, env: { WF_SCREENSHOT: "sometimes" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('WF_SCREENSHOT="sometimes" is not one of on, only-on-failure, off.');
  });

  it("a --report-dir holding files wf did not write is refused (exit 2), not emptied", async () => {
    const mine = join(scratch.dir, "mine");
    await mkdir(mine);
    await writeFile(join(mine, "notes.txt"), "keep me");
    const result = await runWf(["run", join(SUITE, "shop-title.ts"), "--report-dir", "mine", "--var", `url=${origin}`], { cwd: scratch.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The report folder ${mine} holds files wf did not write`);
    expect(await readFile(join(mine, "notes.txt"), "utf8")).toBe("keep me");
  });

  it("a run keeps what @wf/cli/vitest saved in the report folder (vitest/), and a folder holding only that is wf's", async () => {
    const dir = join(scratch.dir, "with-vitest");
    await mkdir(join(dir, "vitest", "signs-in"), { recursive: true });
    await writeFile(join(dir, "vitest", "signs-in", "trace.zip"), "PK-from-vitest");
    const result = await runWf(["run", join(SUITE, "shop-title.ts"), "--report-dir", "with-vitest", "--var", `url=${origin}`], { cwd: scratch.dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(await readFile(join(dir, "vitest", "signs-in", "trace.zip"), "utf8")).toBe("PK-from-vitest");
    expect(existsSync(join(dir, "index.html"))).toBe(true);
  });

  it("wf show-report on a folder without a report says so (exit 2)", async () => {
    const result = await runWf(["show-report", "nowhere", "--no-open"], { cwd: scratch.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No report in");
    expect(existsSync(join(scratch.dir, "nowhere"))).toBe(false);
  });
});
