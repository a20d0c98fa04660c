/**
 * `check()` under `wf run`, spawned as a user runs it, with no model configured: checks that hold
 * exit 0; one that does not fails the run at it (exit 1, `WF_CHECK_FAILED` with the reason and
 * what was seen); soft checks let the workflow go on and fail the run at its end. The JSON record,
 * the JUnit file and the HTML report show each check with ✓ or ✗, its reason and evidence.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

describe("wf run with checks (spawned, no model)", { timeout: 200_000 }, () => {
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
  const env = { NO_COLOR: "1", WF_MODEL: "" };

  it("exits 0 when every check holds, and the record carries each check's reason and evidence", async () => {
    const result = await runWf(["run", join(FIXTURES, "checks-hold.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "json"], { cwd: scratch.dir, env, timeoutMs: 150_000 });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.status).toBe("succeeded");
    const checks = record.steps.filter((s: { type: string }) => s.type === "CHECK");
    expect(checks).toHaveLength(5);
    expect(checks[0]).toMatchObject({ instruction: 'the page shows "Fixture shop"', status: "succeeded", interpreter: "grammar", check: { holds: true, evidence: '"Fixture shop"' } });
    expect(checks[1].check.evidence).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/index\.html$/);
    expect(checks[4].check).toMatchObject({ holds: true, evidence: 'textbox "Password" = "hunter2"' });
  });

  it("exits 1 at a check that does not hold, printing WF_CHECK_FAILED with the reason; nothing after it runs", async () => {
    const result = await runWf(["run", join(FIXTURES, "checks-fail.ts"), "--param", `url=${pages.url}/index.html`, "--reporter", "pretty,junit"], {
      cwd: scratch.dir,
      env,
      timeoutMs: 150_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/step 2 CHECK "the page shows \\"Order placed\\"" failed \d+ms check=✗ error=WF_CHECK_FAILED: The check "the page shows \\"Order placed\\"" did not hold within 500 ms/);
    expect(result.stdout).toContain('the page does not show "Order placed". Seen: closest text on the page:');
    expect(result.stdout).not.toContain('step 3 ACT "click');
    expect(result.stdout + result.stderr).toMatch(/run failed at step 2 \(.*checks-fail\.ts:7:9\)/);
    const junit = await readFile(join(scratch.dir, "wf-report", "junit.xml"), "utf8");
    expect(junit).toContain('type="WF_STEP_FAILED"');
    expect(junit).toContain("[WF_CHECK_FAILED]");
    expect(junit).toContain("✗ the page does not show &quot;Order placed&quot;. · seen: closest text on the page:");
    // The HTML report carries the check (its page renders ✓/✗ with reason and evidence from it).
    const html = await readFile(join(scratch.dir, "wf-report", "report-data.js"), "utf8");
    expect(html).toMatch(/"check":\{"holds":false,"reason":"the page does not show \\"Order placed\\"\.","evidence":"closest text on the page:/);
  });

  it("soft checks let the workflow go on, then fail the run at its end (exit 1) listing each one", async () => {
    const result = await runWf(["run", join(FIXTURES, "checks-soft.ts"), "--param", `url=${pages.url}/index.html`], { cwd: scratch.dir, env, timeoutMs: 150_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/step 2 CHECK "the title is \\"Shop\\"" failed \d+ms check=✗ soft/);
    expect(result.stdout).toMatch(/step 3 CHECK "there are 5 rows" failed \d+ms check=✗ soft/);
    expect(result.stdout).toMatch(/step 4 CHECK "the page shows \\"Tea\\"" succeeded \d+ms check=✓/);
    expect(result.stdout).toContain("log reached the end");
    expect(result.stderr).toContain("2 soft checks failed");
    expect(result.stderr).toContain("[WF_CHECK_FAILED]");
    expect(result.stderr).toContain('the title does not equal "Shop"');
    expect(result.stderr).toContain("there are 2 visible rows, not 5");
  });
});
