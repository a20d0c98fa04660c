/**
 * The launcher in a clone (bin/wf.js with src/ beside it): it runs the clone's build (dist-clone/)
 * only while that build is of exactly the sources on disk, and the sources through tsx otherwise.
 * A copy of the launcher and its state module in a temporary folder laid out like the repository,
 * with a one-line `src/bin.ts` and a one-line "build" of it, so each run says which one ran.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileUserFile } from "../src/_compile.js";
import { CLI_DIR } from "./_helpers.js";

let root: string;
let cli: string;

/** Runs `node <temporary clone>/packages/cli/bin/wf.js`; resolves with its stdout. */
function wf(env: Record<string, string> = {}): Promise<string> {
  return new Promise((done, fail) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("WF_")));
    execFile(process.execPath, [join(cli, "bin", "wf.js")], { cwd: root, env: { ...clean, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout),
    );
  });
}

/** What `pnpm wf:build` does after tsdown: records the inputs the "build" was made from. */
function recordBuild(): Promise<string> {
  return new Promise((done, fail) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", `import { writeFileSync } from "node:fs"; import { MANIFEST, currentInputs } from ${JSON.stringify(join(cli, "scripts", "clone-build-state.mjs"))}; writeFileSync(MANIFEST, JSON.stringify({ format: 1, inputs: currentInputs() }));`],
      (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout)),
    ),
  );
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "wf-clone-build-"));
  cli = join(root, "packages", "cli");
  await mkdir(join(cli, "src"), { recursive: true });
  await mkdir(join(cli, "dist-clone"), { recursive: true });
  await mkdir(join(root, "packages", "core", "src"), { recursive: true });
  await cp(join(CLI_DIR, "bin", "wf.js"), join(cli, "bin", "wf.js"));
  await cp(join(CLI_DIR, "scripts", "clone-build-state.mjs"), join(cli, "scripts", "clone-build-state.mjs"));
  // tsx (and the launcher's preloads) resolve from the CLI's own dependencies.
  await symlink(join(CLI_DIR, "node_modules"), join(cli, "node_modules"), "dir");
  await writeFile(join(root, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
  await writeFile(join(cli, "package.json"), JSON.stringify({ name: "@wf/cli", type: "module" }));
  await writeFile(join(root, "packages", "core", "src", "index.ts"), "export const core: string = 'core';\n");
  await writeFile(join(cli, "src", "bin.ts"), "const from: string = 'source v1';\nconsole.log(from);\n");
  await writeFile(join(cli, "dist-clone", "bin.js"), "console.log('built v1');\n");
}, 30_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("bin/wf.js in a clone", () => {
  it("runs the sources through tsx when there is no build", async () => {
    expect((await wf()).trim()).toBe("source v1");
  });

  it("runs the build while it is of the sources on disk, the sources once one changes, the build again once rebuilt", async () => {
    await recordBuild();
    expect((await wf()).trim()).toBe("built v1");
    // WF_CLONE_BUILD=0 asks for the sources whatever the build.
    expect((await wf({ WF_CLONE_BUILD: "0" })).trim()).toBe("source v1");

    // An edited source: the next run has the new behaviour, not the stale build's.
    await writeFile(join(cli, "src", "bin.ts"), "const from: string = 'source v2';\nconsole.log(from);\n");
    expect((await wf()).trim()).toBe("source v2");

    // Rebuilt from it: the build runs again.
    await writeFile(join(cli, "dist-clone", "bin.js"), "console.log('built v2');\n");
    await recordBuild();
    expect((await wf()).trim()).toBe("built v2");
  });

  it("treats an input of another package, an added file, a removed one and an mtime moved back as changes", async () => {
    const index = join(root, "packages", "core", "src", "index.ts");
    await recordBuild();
    expect((await wf()).trim()).toMatch(/^built/);

    // Same size and content, the mtime set back a day (a file restored from an archive or another branch).
    const { mtime } = await stat(index);
    await utimes(index, new Date(mtime.getTime() - 86_400_000), new Date(mtime.getTime() - 86_400_000));
    expect((await wf()).trim()).toMatch(/^source/);
    await recordBuild();

    await writeFile(join(root, "packages", "core", "src", "added.ts"), "export {};\n");
    expect((await wf()).trim()).toMatch(/^source/);
    await recordBuild();
    expect((await wf()).trim()).toMatch(/^built/);

    await rm(join(root, "packages", "core", "src", "added.ts"));
    expect((await wf()).trim()).toMatch(/^source/);
    await recordBuild();

    // A test file is not an input: editing one leaves the build current.
    await writeFile(join(root, "packages", "core", "src", "index.test.ts"), "export {};\n");
    expect((await wf()).trim()).toMatch(/^built/);

    // A lockfile change (other dependencies) makes it stale too.
    await writeFile(join(root, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n# changed\n");
    expect((await wf()).trim()).toMatch(/^source/);
  });

  it("runs the sources when the record is unreadable", async () => {
    await writeFile(join(cli, "dist-clone", "inputs.json"), "{ not json");
    expect((await wf()).trim()).toMatch(/^source/);
  });
});

describe("a workflow run by the clone's build", () => {
  it("imports @wf/core from the build's own module (one instance with the CLI's), zod as a package", async () => {
    const project = join(root, "project");
    await mkdir(join(project, "node_modules"), { recursive: true });
    await writeFile(join(project, "helper.ts"), 'export { act } from "@wf/core";\n');
    await writeFile(join(project, "flow.ts"), 'import { workflow } from "@wf/core";\nimport { z } from "zod";\nexport { act } from "./helper.js";\nexport default [workflow, z];\n');
    const core = pathToFileURL(join(root, "dist-clone", "core.js")).href;
    const key = Symbol.for("wf.cli.moduleAliases");
    const flags = globalThis as Record<symbol, unknown>;
    flags[key] = { "@wf/core": core };
    let aliased: string;
    try {
      aliased = await compileUserFile(join(project, "flow.ts")).then((url) => readFile(new URL(url!), "utf8"));
    } finally {
      delete flags[key];
    }
    expect(aliased).toContain(`from ${JSON.stringify(core)}`);
    expect(aliased).not.toContain('"@wf/core"');
    expect(aliased).toContain('from "zod"');
    // Outside the clone's build the same file keeps its package imports (and is cached apart).
    const plain = await compileUserFile(join(project, "flow.ts")).then((url) => readFile(new URL(url!), "utf8"));
    expect(plain).toContain('from "@wf/core"');
    expect(plain).not.toContain(core);
  });
});
