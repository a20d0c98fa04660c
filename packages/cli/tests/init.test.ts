import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkWorkflowFiles, initProject, planWorkflowFile, resolveCliConfig } from "../src/index.js";
import { CLI_DIR, scratchDir } from "./_helpers.js";

describe("initProject", () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await scratchDir()));
  afterEach(() => remove());

  it("writes a ready project whose config loads and whose example workflow type-checks", async () => {
    const result = await initProject({ dir: "my-flows", cwd: dir });
    expect(result.files.sort()).toEqual([".env.example", ".gitignore", "package.json", "pages/example.html", "tsconfig.json", "wf.config.ts", "workflows/example.ts"]);
    const project = join(dir, "my-flows");
    const pkg = JSON.parse(await readFile(join(project, "package.json"), "utf8"));
    expect(pkg.name).toBe("my-flows");
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["@wf/cli", "@wf/core", "zod"]);
    // What the files need to type-check as written (`types: ["node"]`, node:async_hooks in @wf/core).
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["@types/node", "typescript"]);
    expect((await readFile(join(project, ".gitignore"), "utf8")).split("\n")).toEqual(expect.arrayContaining([".env", ".wf/", "node_modules/", "wf-report/", "wf-report-*/"]));
    expect(await readFile(join(project, "wf.config.ts"), "utf8")).toContain("defineConfig(");

    // What `npm install` would do: link the three dependencies.
    await mkdir(join(project, "node_modules", "@wf"), { recursive: true });
    await symlink(CLI_DIR, join(project, "node_modules", "@wf", "cli"));
    await symlink(join(CLI_DIR, "node_modules", "@wf", "core"), join(project, "node_modules", "@wf", "core"));
    await symlink(join(CLI_DIR, "node_modules", "zod"), join(project, "node_modules", "zod"));

    const config = await resolveCliConfig({ cwd: project, env: {} });
    expect(config.configFile).toBe(join(project, "wf.config.ts"));
    expect(config.reporter).toBe("pretty");
    // The scaffold leaves the reporter to the default (and WF_REPORTER) and names its testDir.
    expect(config.reporterChosen).toBe(false);
    expect(config.testDir).toBe(join(project, "workflows"));

    const plan = await planWorkflowFile(join(project, "workflows/example.ts"));
    expect(plan.steps.map((s) => s.type)).toEqual(["ACT", "ASK", "ASK"]);
    expect(plan.findings).toEqual([]);
    const check = await checkWorkflowFiles([join(project, "workflows/example.ts")]);
    expect(check.files[0]!.findings).toEqual([]);
  }, 180_000);

  it("refuses to overwrite, names the files, and writes nothing", async () => {
    await writeFile(join(dir, "package.json"), "{}\n");
    const error = await initProject({ dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "WF_CLI_FILE_EXISTS", exitCode: 2 });
    expect((error as Error).message).toContain(join(dir, "package.json"));
    expect(await readFile(join(dir, "package.json"), "utf8")).toBe("{}\n");
    await expect(readFile(join(dir, "wf.config.ts"), "utf8")).rejects.toThrow();
  });
});
