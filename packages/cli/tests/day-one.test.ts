/**
 * What a Playwright Test user expects on day one (issue 34), through the real `wf` command: a
 * project with a local app served from disk, `use: { baseURL }`, two projects (a desktop one and
 * `devices["Pixel 7"]`), tags, a secret param bound from the environment for the one workflow
 * that declares it, a global check timeout and a failing soft check; then `--last-failed`,
 * `--grep @tag`, `--list` with params, and `--shard` with `--param-env`.
 */
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir, startPages, type WfProcess } from "./_helpers.js";

const DAY_ONE = join(FIXTURES, "day-one");
const SECRET = "pw-3141-very-secret";

let pages: { url: string; close(): Promise<void> };
let scratch: { dir: string; remove(): Promise<void> };
/** The first full run, shared by the tests that read what it left. */
let first: WfProcess;

interface JsonSuite {
  status: string;
  workflows: Array<{ file: string; name: string; project?: string; tags?: string[]; outcome: string; attempts: Array<{ status: string; output?: unknown; error?: { code: string; message: string }; steps: Array<{ type: string; check?: { holds: boolean; soft?: boolean; reason: string } }> }> }>;
}

beforeAll(async () => {
  pages = await startPages(DAY_ONE);
  scratch = await scratchDir();
  await mkdir(join(scratch.dir, "workflows"));
  await cp(join(DAY_ONE, "workflows"), join(scratch.dir, "workflows"), { recursive: true });
  await writeFile(
    join(scratch.dir, "wf.config.ts"),
    `import { defineConfig, devices } from "@wf/cli";

export default defineConfig({
  use: { baseURL: ${JSON.stringify(pages.url)} },
  projects: [{ name: "desktop" }, { name: "mobile", use: { ...devices["Pixel 7"] } }],
  paramsFromEnv: { password: "SHOP_PASSWORD" },
  check: { timeoutMs: 1_000 },
  reporter: [["list"], ["junit"], ["json", { outputFile: "results.json" }]],
  workers: 2,
  trace: "off",
});
`,
  );
  first = await runWf(["run"], { cwd: scratch.dir, env: { SHOP_PASSWORD: SECRET, NO_COLOR: "1" }, timeoutMs: 400_000 });
}, 420_000);

afterAll(async () => {
  await pages?.close();
  await scratch?.remove();
});

const suite = async (): Promise<JsonSuite> => JSON.parse(await readFile(join(scratch.dir, "results.json"), "utf8")) as JsonSuite;
const byKey = (s: JsonSuite) => Object.fromEntries(s.workflows.map((w) => [`${w.project} ${w.name}`, w]));

describe("a Playwright Test user's first project", () => {
  it("runs every workflow in each project: baseURL, the device, the bound secret; the failing soft check fails its workflow only", async () => {
    expect(first.code, first.stderr).toBe(1);
    const s = await suite();
    const w = byKey(s);
    expect(Object.keys(w).sort()).toEqual(["desktop catalog", "desktop example", "desktop signin", "mobile catalog", "mobile example", "mobile signin"]);
    // The secret reached the one workflow that declares it, and signed in against the app's baseURL.
    expect([w["desktop signin"]!.outcome, w["mobile signin"]!.outcome]).toEqual(["passed", "passed"]);
    // The workflow with no params is not failed by the config's binding.
    expect(w["desktop example"]!.outcome).toBe("passed");
    // Each project's browser: the Pixel 7's viewport lays the catalog out narrow.
    expect(w["desktop example"]!.attempts[0]!.output).toEqual({ layout: "wide" });
    expect(w["mobile example"]!.attempts[0]!.output).toEqual({ layout: "narrow" });
    // The soft check failed, the workflow went on to its end, and the run failed for it, with the global check timeout.
    for (const key of ["desktop catalog", "mobile catalog"]) {
      const attempt = w[key]!.attempts[0]!;
      expect(w[key]!.outcome, key).toBe("failed");
      expect(attempt.error?.code).toBe("WF_CHECK_FAILED");
      expect(attempt.error?.message).toContain("within 1000 ms");
      expect(attempt.steps.map((st) => st.type)).toEqual(["ACT", "CHECK", "CHECK", "ASK"]);
    }
    expect(w["desktop signin"]!.tags).toEqual(["@smoke", "@auth"]);
    expect(w["desktop example"]!.tags).toBeUndefined();
    // The secret is nowhere in what the run printed or wrote.
    expect(first.stdout + first.stderr + JSON.stringify(s)).not.toContain(SECRET);
  });

  it("names the project and the tags in the list reporter, JUnit (hostname, tag properties, the soft check in the message) and the HTML report", async () => {
    expect(first.stdout).toMatch(/✔ \[desktop\] › workflows\/signin\.ts › signin @smoke @auth \(/);
    expect(first.stdout).toMatch(/✘ \[mobile\] › workflows\/catalog\.ts › catalog @smoke \(/);
    expect(first.stdout).toContain("Running 6 workflows using 2 workers");
    const junit = await readFile(join(scratch.dir, "wf-report", "junit.xml"), "utf8");
    expect(junit).toMatch(/<testsuite name="workflows\/catalog\.ts" hostname="desktop"/);
    expect(junit).toMatch(/<testsuite name="workflows\/catalog\.ts" hostname="mobile"/);
    expect(junit).toContain('<property name="tag" value="@auth"/>');
    // A failed soft check's message names the check, not only how many failed.
    expect(junit).toMatch(/<failure message="1 soft check failed: step 2 &quot;the page shows \\&quot;Free shipping\\&quot;&quot;: [^"]+" type="WF_CHECK_FAILED"/);
    const report = JSON.parse(await readFile(join(scratch.dir, "wf-report", "report.json"), "utf8")) as JsonSuite;
    expect(report.workflows.map((x) => `${x.project} ${x.name} ${(x.tags ?? []).join(",")}`)).toEqual([
      "desktop catalog @smoke",
      "desktop example ",
      "desktop signin @smoke,@auth",
      "mobile catalog @smoke",
      "mobile example ",
      "mobile signin @smoke,@auth",
    ]);
  });

  it("--last-failed runs only what failed, from the set the last run kept in the report folder", async () => {
    const kept = JSON.parse(await readFile(join(scratch.dir, "wf-report", ".last-run.json"), "utf8"));
    expect(kept).toEqual({ status: "failed", failedTests: ["[desktop] workflows/catalog.ts › catalog", "[mobile] workflows/catalog.ts › catalog"] });
    const listed = await runWf(["run", "--last-failed", "--list"], { cwd: scratch.dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe("  [desktop] › workflows/catalog.ts › catalog @smoke\n  [mobile] › workflows/catalog.ts › catalog @smoke\nTotal: 2 workflows in 1 file (2 projects)\n");
    const again = await runWf(["run", "--last-failed", "--project", "mobile", "--reporter", "list"], { cwd: scratch.dir, env: { NO_COLOR: "1" }, timeoutMs: 200_000 });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout).toContain("Running 1 workflow using 1 worker");
    expect(again.stdout).toContain("[mobile] › workflows/catalog.ts › catalog");
    // The run left its own failed set; with no failure left, --last-failed runs nothing and says so.
    await writeFile(join(scratch.dir, "wf-report", ".last-run.json"), JSON.stringify({ status: "passed", failedTests: [] }));
    const none = await runWf(["run", "--last-failed"], { cwd: scratch.dir });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("No workflow failed in the last run");
  }, 240_000);

  it("--list says which workflows take which params, and --grep matches tags as Playwright's does", async () => {
    const listed = await runWf(["run", "--list", "--grep", "@auth", "--project", "desktop"], { cwd: scratch.dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe("  [desktop] › workflows/signin.ts › signin @smoke @auth · params: email, password\nTotal: 1 workflow in 1 file (1 project)\n");
    const inverted = await runWf(["run", "--list", "--grep-invert", "@smoke", "--project", "desktop"], { cwd: scratch.dir });
    expect(inverted.stdout).toContain("  [desktop] › workflows/example.ts › example\nTotal: 1 workflow");
  });

  it("a param on the command line no selected workflow declares is a typo (exit 2), unless --shard, --grep or --last-failed cut the selection", async () => {
    const typo = await runWf(["run", "workflows/example.ts", "--project", "desktop", "--param-env", "password=SHOP_PASSWORD"], { cwd: scratch.dir, env: { SHOP_PASSWORD: SECRET } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Workflow "example" has no param "password" (--param-env). It takes no params.');
    const grepped = await runWf(["run", "--list", "--grep", "example", "--param", "email=x@y.z"], { cwd: scratch.dir });
    expect(grepped.code, grepped.stderr).toBe(0);
    // Files sort catalog, example, signin: shard 2 of 3 is example alone, which takes no password; the variable is then not even needed.
    const shard = await runWf(["run", "--shard", "2/3", "--project", "desktop", "--param-env", "password=SHOP_PASSWORD", "--reporter", "list"], { cwd: scratch.dir, env: { NO_COLOR: "1" }, timeoutMs: 200_000 });
    expect(shard.code, shard.stderr).toBe(0);
    expect(shard.stdout).toContain("✔ [desktop] › workflows/example.ts › example");
    // The shard that holds signin reads it, and says which variable is missing.
    const missing = await runWf(["run", "--shard", "3/3", "--project", "desktop", "--param-env", "password=SHOP_PASSWORD"], { cwd: scratch.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("SHOP_PASSWORD is not set (--param-env password=SHOP_PASSWORD)");
  }, 240_000);

  it("a config binding never fails a workflow that does not declare it: one workflow runs with its variable unset", async () => {
    const one = await runWf(["run", "workflows/example.ts", "--project", "mobile", "--reporter", "json"], { cwd: scratch.dir, timeoutMs: 200_000 });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ workflow: "example", status: "succeeded", output: { layout: "narrow" } });
  }, 240_000);
});
