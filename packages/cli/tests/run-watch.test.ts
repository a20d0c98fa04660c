/**
 * `wf run --watch`, spawned as a user runs it, on a folder of three workflows (two import a
 * helper): saving the helper runs exactly those two again, with the helper's new code, on the
 * browser that stayed up; Ctrl-C ends the process cleanly and leaves no Chromium behind.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, runWf, scratchDir } from "./_helpers.js";

const WAITING = "Waiting for file changes… (Ctrl-C to exit)";
const PAGE = pathToFileURL(join(FIXTURES, "pages", "index.html")).href;

/** The helper two of the workflows import; `version` tells which save a run used. */
const helperSource = (version: string) => `import { act } from "@wf/core";\nexport const version = "${version}";\nexport async function openShop() {\n  await act("go to ${PAGE}");\n}\n`;

/** The pids of the Chromium processes below `root` in the process tree (Linux `ps`). */
function chromiumBelow(root: number): number[] {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,comm="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm ?? "" }));
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) if (below.has(row.ppid) && !below.has(row.pid)) grew = below.add(row.pid) !== undefined;
  }
  return rows.filter((r) => below.has(r.pid) && /chrom/i.test(r.comm)).map((r) => r.pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("wf run --watch (spawned)", { timeout: 300_000 }, () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
    await writeFile(join(scratch.dir, "_helper.ts"), helperSource("v1"));
    for (const name of ["uses-helper-a", "uses-helper-b"]) {
      await writeFile(
        join(scratch.dir, `${name}.ts`),
        `import { workflow } from "@wf/core";\nimport { openShop, version } from "./_helper.js";\nexport default workflow({ name: "${name}" }, async () => {\n  await openShop();\n  return { version };\n});\n`,
      );
    }
    await writeFile(join(scratch.dir, "standalone.ts"), `import { act, workflow } from "@wf/core";\nexport default workflow({ name: "standalone" }, async () => {\n  await act("go to ${PAGE}");\n  return { version: "own" };\n});\n`);
  });
  afterAll(async () => {
    await scratch?.remove();
  });

  it("re-runs exactly the workflows that import a saved helper, with its new code, then exits on Ctrl-C", async () => {
    let phase = 0;
    let chromium: number[] = [];
    let afterSave = "";
    let chromiumAfterRerun: number[] = [];
    const result = await runWf(["run", ".", "--watch", "--workers", "1", "--reporter", "list,json"], {
      cwd: scratch.dir,
      timeoutMs: 280_000,
      onStdout: (stdout, child) => {
        const waits = stdout.split(WAITING).length - 1;
        if (phase === 0 && waits === 1) {
          phase = 1;
          chromium = chromiumBelow(child.pid!);
          void writeFile(join(scratch.dir, "_helper.ts"), helperSource("v2"));
        } else if (phase === 1 && waits === 2) {
          phase = 2;
          afterSave = stdout.slice(stdout.indexOf(WAITING) + WAITING.length);
          chromiumAfterRerun = chromiumBelow(child.pid!);
          child.kill("SIGINT");
        }
      },
    });
    expect(phase, result.stdout + result.stderr).toBe(2);
    expect(result.code, result.stderr).toBe(0);

    // The first run: all three.
    const first = result.stdout.slice(0, result.stdout.indexOf(WAITING));
    expect(first).toContain("Running 3 workflows using 1 worker");
    // The re-run: the two that import the helper, and not the other one.
    expect(afterSave).toMatch(/Changed: _helper\.ts → running 2 workflows again/);
    expect(afterSave).toContain("Running 2 workflows using 1 worker");
    expect(afterSave).toMatch(/✔ uses-helper-a\.ts › uses-helper-a/);
    expect(afterSave).toMatch(/✔ uses-helper-b\.ts › uses-helper-b/);
    expect(afterSave).not.toContain("standalone");
    // The re-run used the saved helper: its outputs say v2 (json reporter's document).
    const json = JSON.parse(afterSave.slice(afterSave.indexOf("{"), afterSave.lastIndexOf("}") + 1));
    expect(json.workflows.map((w: { name: string; attempts: Array<{ output: unknown }> }) => [w.name, w.attempts[0]!.output])).toEqual([
      ["uses-helper-a", { version: "v2" }],
      ["uses-helper-b", { version: "v2" }],
    ]);

    // The re-run was served by the browser of the first run (kept up, not relaunched).
    expect(chromium.length).toBeGreaterThan(0);
    expect(chromiumAfterRerun).toContain(chromium[0]);
    // No Chromium of this run is left behind.
    const deadline = Date.now() + 15_000;
    while (chromium.some(alive) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    expect(chromium.filter(alive)).toEqual([]);
  });
});
