/**
 * The real `wf` binary, spawned: help, exit codes and messages of bad input. Nothing here starts a
 * browser; runs are in run.test.ts and run-embedded.test.ts.
 */
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, brokenFixture, runWf, scratchDir, type WfProcess } from "./_helpers.js";

/** A bad-input answer: exit 2, one paragraph on stderr, no stack trace. */
function expectUsageError(result: WfProcess, ...needles: string[]) {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^wf: /);
  expect(result.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(result.stderr).not.toContain("node:internal");
  for (const needle of needles) expect(result.stderr).toContain(needle);
}

describe("wf (spawned)", { timeout: 120_000 }, () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => ({ dir, remove } = await scratchDir()));
  afterAll(() => remove());

  it("--help lists the commands with examples; each command's help has examples", async () => {
    const top = await runWf(["--help"]);
    expect(top.code).toBe(0);
    for (const command of ["wf run [files..]", "wf serve", "wf plan <file>", "wf check <files..>", "wf init [dir]", "wf install-browser", "Examples:", "Exit codes"]) expect(top.stdout).toContain(command);
    const run = await runWf(["run", "--help"]);
    expect(run.code).toBe(0);
    for (const flag of ["--param", "--params-file", "--service-url", "--app-url", "--project", "--last-failed", "--debug", "--api-key", "--reporter", "--out", "--timeout", "--workers", "--grep", "--grep-invert", "--retries", "--max-failures", "--list", "--var", "Examples:"]) expect(run.stdout).toContain(flag);
    const serve = await runWf(["serve", "--help"]);
    expect(serve.stdout).toContain("--workflows");
    expect(serve.stdout).toContain("Examples:");
  });

  it("exits 2 on a bad flag, a missing argument or no command", async () => {
    expectUsageError(await runWf(["run", join(FIXTURES, "hello.ts"), "--bogus"]), "Unknown argument");
    // No file and no testDir folder (ROOT has no workflows/): says where it looked and what to do.
    expectUsageError(await runWf(["run"]), "No workflow file given and the testDir");
    expectUsageError(await runWf([]), "Name a command");
    expectUsageError(await runWf(["run", join(FIXTURES, "hello.ts"), "--reporter", "fancy"]), "fancy");
    expectUsageError(await runWf(["run", join(FIXTURES, "hello.ts"), "--timeout", "-5"]), "--timeout");
  });

  it("exits 2 naming the flag when a flag that takes one value is given twice (any command); --param may repeat", async () => {
    expectUsageError(await runWf(["serve", "--data-dir", "a", "--data-dir", "b"]), '--data-dir takes one value, and was given 2: "a", "b"');
    expectUsageError(await runWf(["run", join(FIXTURES, "hello.ts"), "--timeout", "5", "--timeout", "6"]), "--timeout takes one value");
  });

  it("exits 2 with a clear message for a missing file, no default workflow, a syntax error", async () => {
    expectUsageError(await runWf(["run", "packages/cli/tests/fixtures/nope.ts"]), "Workflow file not found", "nope.ts");
    expectUsageError(await runWf(["run", join(FIXTURES, "no-default.ts")]), "no default-exported workflow", '"flow"', "export default workflow(");
    expectUsageError(await runWf(["run", await brokenFixture(dir, "syntax-error")]), "Could not load", "syntax-error.ts", "wf check");
  });

  it("exits 2 naming each bad param, for --param strings and a params file", async () => {
    const params = join(FIXTURES, "params.ts");
    expectUsageError(await runWf(["run", params, "--param", "limit=lots"]), "query", "limit");
    expectUsageError(await runWf(["run", params, "--param", "no-equals-sign"]), "key=value");
    const bad = join(dir, "bad.json");
    await writeFile(bad, "[1, 2]");
    expectUsageError(await runWf(["run", params, "--params-file", bad]), "JSON object");
    expectUsageError(await runWf(["run", params, "--params-file", join(dir, "none.json")]), "Params file not found");
  });

  it("exits 2 when nothing answers at --service-url", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => done(port));
      });
    });
    const result = await runWf(["run", join(FIXTURES, "params.ts"), "--param", "query=x", "--param", "limit=1", "--service-url", `http://127.0.0.1:${port}`]);
    expectUsageError(result, "No wf service answers at", `127.0.0.1:${port}`, "wf serve");
  });

  it("exits 2 with what to install when the embedded server finds no Chromium", async () => {
    const result = await runWf(["run", join(FIXTURES, "params.ts"), "--param", "query=x", "--param", "limit=1"], { env: { WF_CHROMIUM_PATH: join(dir, "no-chromium") } });
    expectUsageError(result, "Could not start the embedded wf server", "Chromium", "--service-url");
  });

  it("exits 2 on a broken wf.config.ts in the working directory", async () => {
    const project = join(dir, "bad-config");
    await import("node:fs/promises").then((fs) => fs.mkdir(project));
    await writeFile(join(project, "wf.config.ts"), `export default { serviceUrl: 42 };\n`);
    expectUsageError(await runWf(["run", join(FIXTURES, "hello.ts")], { cwd: project }), "Invalid configuration", "serviceUrl");
  });

  it("plan shows grammar or model per act; with WF_MODEL set an act the grammar does not understand is a note", async () => {
    const wording = join(FIXTURES, "wording.ts");
    const without = await runWf(["plan", wording]);
    expect(without.code).toBe(1);
    expect(without.stdout).toContain('4. ACT "make the page pop"  (model)');
    expect(without.stdout).toContain("WF_LINT_ACT_NOT_UNDERSTOOD");
    const withModel = await runWf(["plan", wording], { env: { WF_MODEL: "gpt-test" } });
    expect(withModel.code).toBe(0);
    expect(withModel.stdout).toContain("WF_NOTE_NEEDS_MODEL");
    expect(withModel.stdout).not.toContain("WF_LINT_ACT_NOT_UNDERSTOOD");
  });

  it("plan exits 1 on findings and 0 without; check exits 1 on a type error", async () => {
    const clean = await runWf(["plan", join(FIXTURES, "clean.ts")]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('1. ACT "go to ${…}"');
    const lint = await runWf(["plan", await brokenFixture(dir, "lint")]);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain("WF_LINT_ASK_NEEDS_SCHEMA");
    const check = await runWf(["check", await brokenFixture(dir, "type-error")], { timeoutMs: 170_000 });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("TS2322");
    // and on `scroll ${n} times`, which the grammar does not understand while no model is configured.
    expect(check.stdout).toContain("WF_LINT_ACT_NOT_UNDERSTOOD");
    expect(check.stdout).toContain("2 findings");
  }, 180_000);

  it("init writes a project and refuses to overwrite it (exit 2)", async () => {
    const first = await runWf(["init", "proj"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("wf.config.ts");
    expect(first.stdout).toMatch(/Next:\n  cd proj\n  npm install\n  npx wf install-browser .*\n  npx wf run workflows\/example\.ts\n/);
    expectUsageError(await runWf(["init", "proj"], { cwd: dir }), "would overwrite", "Nothing was written");
  });
});
