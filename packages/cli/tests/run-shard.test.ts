/**
 * `wf run --shard i/n` and `wf merge-reports`, spawned as a CI matrix runs them: the shards list
 * disjoint parts whose union is the whole list, each shard writes its own report folder, and the
 * merge gives one HTML report (its data in report.json, every shard's screenshots) and one JUnit
 * file with every workflow.
 */
import { access, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir } from "./_helpers.js";

const SUITE = join(FIXTURES, "suite");

/** The `file › name` lines of a `--list` output. */
function listed(stdout: string): string[] {
  return stdout.split("\n").filter((l) => l.includes(" › ")).map((l) => l.trim());
}

describe("wf run --shard and wf merge-reports (spawned)", { timeout: 300_000 }, () => {
  let server: Server;
  let origin: string;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    const shop = await readFile(join(FIXTURES, "pages", "index.html"), "utf8");
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(shop);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await new Promise<void>((done) => server?.close(() => done()));
    await scratch?.remove();
  });

  it("--list --shard 1/2 and 2/2 are disjoint and together are --list; a bad shard is a usage error", async () => {
    const all = listed((await runWf(["run", SUITE, "--list"], { cwd: scratch.dir })).stdout);
    const first = await runWf(["run", SUITE, "--list", "--shard", "1/2"], { cwd: scratch.dir });
    const second = await runWf(["run", SUITE, "--list", "--shard", "2/2"], { cwd: scratch.dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("(shard 1/2 of 4 workflows)");
    expect(all).toHaveLength(4);
    const [a, b] = [listed(first.stdout), listed(second.stdout)];
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(a.filter((l) => b.includes(l))).toEqual([]);
    expect([...a, ...b]).toEqual(all);
    const bad = await runWf(["run", SUITE, "--list", "--shard", "3/2"], { cwd: scratch.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--shard must be i/n");
  });

  it("two shards' reports merge into one HTML report and one JUnit file with every workflow", async () => {
    // A picture after every step, so that each shard's report has some to merge.
    const common = ["run", SUITE, "--grep-invert", "flaky", "--var", `url=${origin}`, "--screenshot", "on"];
    const one = await runWf([...common, "--shard", "1/2", "--report-dir", "r1"], { cwd: scratch.dir, timeoutMs: 140_000 });
    const two = await runWf([...common, "--shard", "2/2", "--report-dir", "r2"], { cwd: scratch.dir, timeoutMs: 140_000 });
    // checkout-broken fails in whichever shard runs it.
    expect([one.code, two.code].sort()).toEqual([0, 1]);

    const merged = await runWf(["merge-reports", "r1", "r2", "--report-dir", "merged"], { cwd: scratch.dir });
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain("Merged 2 reports: 3 workflow runs (2 passed, 1 failed), failed.");

    const data = JSON.parse(await readFile(join(scratch.dir, "merged", "report.json"), "utf8"));
    expect(data.workflows.map((w: { name: string; outcome: string }) => `${w.name} ${w.outcome}`)).toEqual(["checkout-broken failed", "shop-sign-in passed", "shop-title passed"]);
    // Which shard ran each workflow: the shard that exited 1 ran checkout-broken.
    const brokenShard = one.code === 1 ? 1 : 2;
    expect(data.workflows.map((w: { shard?: { current: number; total: number } }) => w.shard?.total)).toEqual([2, 2, 2]);
    expect(data.workflows[0].shard).toEqual({ current: brokenShard, total: 2 });
    const shardOne = JSON.parse(await readFile(join(scratch.dir, "r1", "report.json"), "utf8"));
    expect(shardOne.shard).toEqual({ current: 1, total: 2 });
    expect(data.stats).toMatchObject({ passed: 2, failed: 1 });
    // Each shard's screenshots come along, under shard-<k>/.
    const shots = data.workflows.flatMap((w: { attempts: Array<{ artifacts?: { screenshots: Record<string, string> } }> }) => w.attempts.flatMap((a) => Object.values(a.artifacts?.screenshots ?? {})));
    expect(shots.length).toBeGreaterThan(0);
    for (const shot of shots) await access(join(scratch.dir, "merged", shot));
    expect(shots.some((s: string) => s.startsWith("shard-1/"))).toBe(true);
    expect(shots.some((s: string) => s.startsWith("shard-2/"))).toBe(true);
    await access(join(scratch.dir, "merged", "index.html"));

    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(await readFile(join(scratch.dir, "merged", "junit.xml"), "utf8"));
    expect(junit.testsuites).toMatchObject({ tests: "3", failures: "1" });

    const refused = await runWf(["merge-reports", "r1", "merged-none-here"], { cwd: scratch.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("holds no wf report");
  });
});
