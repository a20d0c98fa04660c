/**
 * `wf run` as a user runs it: spawned, no base URL anywhere, so it starts the embedded
 * `@wf/server` (a real Chromium) on a random port and key, and stops it at the end.
 */
import { readdir, readFile } from "node:fs/promises";
import { unzipSync } from "fflate";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

const SECRET = "tr0ub4dor&3-never-print";

describe("wf run on the embedded server (spawned)", { timeout: 150_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
  });

  it("runs the workflow, prints the record, writes --out, and a secret appears nowhere", async () => {
    const out = join(scratch.dir, "run.json");
    const result = await runWf(
      ["run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--param", `password=${SECRET}`, "--reporter", "json", "--out", out],
      { cwd: scratch.dir, timeoutMs: 140_000 },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record).toMatchObject({ workflow: "hello", status: "succeeded", params: { password: "[secret]" }, output: { title: "Fixture shop", echo: "pw=[secret]" } });
    expect(record.debuggerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const written = await readFile(out, "utf8");
    // The embedded server is gone after the run: the saved record names the report instead of its debugger link.
    const { debuggerUrl: _gone, ...rest } = record;
    expect(JSON.parse(written)).toEqual({ ...rest, report: join(scratch.dir, "wf-report", "index.html") });
    for (const text of [result.stdout, result.stderr, written]) {
      expect(text).not.toContain(SECRET);
      // Escaped forms too (`&` stays as is in JSON, but be sure).
      expect(text).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    }
  });

  it("plain lines off a terminal, no colour codes even with a TERM", async () => {
    const result = await runWf(["run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--param", `password=${SECRET}`], {
      cwd: scratch.dir,
      env: { TERM: "xterm-256color", NO_COLOR: "1" },
      timeoutMs: 140_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/\x1b\[/);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^wf hello {2}debugger: http:\/\/127\.0\.0\.1:\d+\//);
    expect(lines).toContain('step 3 ASK "the title of the page" started');
    expect(lines.some((l) => /^step 3 ASK "the title of the page" succeeded \d+ms answer="Fixture shop"$/.test(l))).toBe(true);
    expect(result.stdout).toContain('step 2 ACT "type \\"[secret]\\" into \\"Password\\""');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });
  it("one file, the default trace (retain-on-failure, recorded from the context opened ahead): a failed run keeps its trace with every step, a passing run none", async () => {
    const failed = await runWf(["run", join(FIXTURES, "failing.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "json", "--report-dir", "failed-report"], { cwd: scratch.dir, timeoutMs: 140_000 });
    expect(failed.code).toBe(1);
    const files = unzipSync(new Uint8Array(await readFile(join(scratch.dir, "failed-report", "failing", "trace.zip"))));
    const events = new TextDecoder().decode(files["trace.trace"]).split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
    expect(events.find((e) => e.type === "context-options")).toMatchObject({ title: "wf session (STEP)" });
    // Both steps are in it: the navigation (with DOM snapshots) and the failed click's attempts; the screencast too.
    expect(events.some((e) => e.type === "before" && e.method === "goto")).toBe(true);
    expect(events.some((e) => e.type === "frame-snapshot")).toBe(true);
    expect(events.some((e) => e.type === "screencast-frame")).toBe(true);

    const passed = await runWf(["run", join(FIXTURES, "hello.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "json", "--report-dir", "passed-report"], { cwd: scratch.dir, timeoutMs: 140_000 });
    expect(passed.code).toBe(0);
    expect((await readdir(join(scratch.dir, "passed-report"), { recursive: true })).filter((f) => f.endsWith(".zip"))).toEqual([]);
  });
});
