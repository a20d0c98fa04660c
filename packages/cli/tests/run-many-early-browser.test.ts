/**
 * `wf run` on many workflows launches the embedded server's Chromium before the workflow files are
 * loaded, as a single run does (issue 36: a suite's start overlapped with the files' compile), and
 * the shared server takes it: the first session gets the context opened ahead, the others their
 * own, and the suite passes. Read from the `WF_TIMING=1` milestones, in order (no time is asserted).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

const SUITE = join(FIXTURES, "suite");

describe("wf run on many workflows, Chromium launched ahead (spawned)", { timeout: 200_000 }, () => {
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

  it("starts Chromium before the files load, and both workflows pass on the one server", async () => {
    const result = await runWf(["run", join(SUITE, "shop-title.ts"), join(SUITE, "shop-sign-in.ts"), "--workers", "2", "--reporter", "list", "--param", `url=${pages.url}`], {
      cwd: scratch.dir,
      env: { WF_TIMING: "1", WF_CHROMIUM_PATH: "/usr/bin/chromium" },
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/2 passed/);
    const labels = [...result.stderr.matchAll(/^wf timing: [\d.]+ (.+)$/gm)].map((m) => m[1]!);
    const launched = labels.indexOf("server: browser launch started early");
    const loaded = labels.indexOf("workflow files loaded");
    expect(launched).toBeGreaterThanOrEqual(0);
    expect(loaded).toBeGreaterThan(launched);
    // One launch: the server took the browser launched ahead rather than start a second.
    expect(labels.filter((l) => l === "server: browser launch started early")).toHaveLength(1);
    // Each workflow's milestones name its file.
    expect(labels.filter((l) => /^session created \(.*shop-(title|sign-in)\.ts\)$/.test(l))).toHaveLength(2);
  });
});
