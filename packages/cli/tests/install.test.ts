/**
 * How a user meets wf: the packages packed as tarballs, a project made by `wf init` in a folder
 * outside this workspace, installed with plain `npm install` (no workspace, no overrides; the
 * npm registry serves the third-party dependencies), type-checked with `tsc --noEmit`, checked
 * with `npx wf check` and run with `npx wf run` on the page the scaffold ships (a file: URL, offline).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { ROOT, WF_BIN } from "./_helpers.js";

/** What a command did; never throws on a non-zero exit. */
interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: none of pnpm's `npm_*` settings, none of wf's `WF_*`. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|WF_)/i.test(key)));
}

function exec(command: string, args: string[], cwd: string, timeoutMs = 600_000): Promise<Ran> {
  return execWith(command, args, cwd, {}, timeoutMs);
}

/** {@link exec} with variables added to the user's environment. */
function execWith(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 600_000): Promise<Ran> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env: { ...userEnv(), ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== "number" ? `\n${error.message}` : "") });
    });
  });
}

/** Fails with the command's output, so a CI log says what went wrong. */
function expectOk(ran: Ran, what: string): void {
  if (ran.code !== 0) throw new Error(`${what} exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
}

const PACKED = ["core", "cli"] as const;

describe.skipIf(!existsSync("/usr/bin/chromium"))("wf from tarballs, in a project outside the workspace", () => {
  let dir: string;
  let project: string;
  const tarballs: Record<(typeof PACKED)[number], string> = { core: "", cli: "" };
  let installed: Ran;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "wf-install-"));
    // `pnpm pack` runs each package's prepack (the tsdown build) and applies its publishConfig.
    for (const name of PACKED) {
      const ran = await exec("pnpm", ["pack", "--pack-destination", dir], join(ROOT, "packages", name));
      expectOk(ran, `pnpm pack (@wf/${name})`);
      tarballs[name] = join(dir, `wf-${name}-0.1.0.tgz`);
      expect(existsSync(tarballs[name])).toBe(true);
    }
    project = join(dir, "my-flows");
    expectOk(await exec(process.execPath, [WF_BIN, "init", project], dir), "wf init");
    installed = await exec("npm", ["install", "--no-audit", "--no-fund", tarballs.core, tarballs.cli], project);
    expectOk(installed, "npm install");
  }, 900_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("ships only what a user needs: the build, the launcher, the manifest and the README", async () => {
    for (const name of PACKED) {
      const ran = await exec("tar", ["tzf", tarballs[name]], dir);
      expectOk(ran, "tar");
      const files = ran.stdout.trim().split("\n");
      expect(files.filter((f) => !/^package\/(dist\/.+\.(js|d\.ts)|dist\/assets\/.+|bin\/wf\.js|package\.json|README\.md)$/.test(f))).toEqual([]);
      expect(files).toContain("package/dist/index.d.ts");
      // The files the CLI reads at run time: the report's page, and the bundled server's debugger page.
      if (name === "cli") {
        for (const asset of ["report/index.html", "report/report.js", "debugger/index.html", "debugger/debugger.js", "debugger/debugger.css"]) expect(files).toContain(`package/dist/assets/${asset}`);
      }
    }
    const cli = JSON.parse(await readFile(join(project, "node_modules", "@wf", "cli", "package.json"), "utf8"));
    expect(cli.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(cli.dependencies["@wf/core"]).toBe("^0.1.0");
    expect(Object.keys(cli.dependencies).filter((d: string) => d.startsWith("@wf/"))).toEqual(["@wf/core"]);
  });

  it("installs with no engine warning on the oldest Node wf supports: the dependency the workspace overrides is pinned for npm users too", async () => {
    // fastify takes light-my-request ^6, whose 6.8 needs cookie 2 (node >=22); @wf/cli depends on 6.6.0, which npm keeps for fastify too.
    expect(installed.stdout + installed.stderr).not.toMatch(/EBADENGINE/);
    const lmr = JSON.parse(await readFile(join(project, "node_modules", "light-my-request", "package.json"), "utf8"));
    expect(lmr.version).toBe("6.6.0");
    expect(existsSync(join(project, "node_modules", "fastify", "node_modules", "light-my-request"))).toBe(false);
  });

  it("installs @wf/core and @wf/cli alone: the CLI carries the runtime and the server", async () => {
    expect((await readdir(join(project, "node_modules", "@wf"))).sort()).toEqual(["cli", "core"]);
    const ran = await exec(process.execPath, ["--input-type=module", "-e", 'const core = await import("@wf/core"); const cli = await import("@wf/cli"); console.log(typeof core.workflow, typeof cli.runWorkflowFile)'], project);
    expectOk(ran, "importing the packages");
    expect(ran.stdout.trim()).toBe("function function");
  });

  it("wf --help prints yargs's own text from the build's cache; a non-English locale still gets yargs's translation", async () => {
    const bin = join(project, "node_modules", "@wf", "cli", "bin", "wf.js");
    let expected = "";
    expect(await runCli(["--help"], { stdout: { write: (chunk) => (expected += chunk) }, env: {} })).toBe(0);
    for (const flag of ["--help", "-h"]) {
      const ran = await exec(process.execPath, [bin, flag], dir);
      expectOk(ran, `wf ${flag}`);
      expect(ran.stdout).toBe(expected);
    }
    const german = await execWith(process.execPath, [bin, "--help"], dir, { LC_ALL: "de_DE.UTF-8" });
    expectOk(german, "wf --help in German");
    expect(german.stdout).toContain("Kommandos:");
  });

  it("wf run reaches its service without creating an Intl.Segmenter (yargs's string-width makes one on first use, patches/), and wf run --help still measures its text with one", async () => {
    // Counts the segmenters the process constructs (the first loads ICU's break rules, ~15 ms of start-up).
    const counter = join(dir, "count-segmenters.mjs");
    await writeFile(
      counter,
      "let made = 0;\nconst Segmenter = Intl.Segmenter;\nIntl.Segmenter = class extends Segmenter { constructor(...args) { super(...args); made += 1; } };\nprocess.on(\"exit\", () => process.stderr.write(`segmenters=${made}\\n`));\n",
    );
    // A service that refuses the key at once: the run ends right after its first request.
    let requests = 0;
    const service = createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(401, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ type: "about:blank", title: "Unauthorized", status: 401, code: "WF_UNAUTHORIZED", detail: "test" }));
    });
    await new Promise<void>((done) => service.listen(0, "127.0.0.1", done));
    try {
      const bin = join(project, "node_modules", "@wf", "cli", "bin", "wf.js");
      const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
      const run = await exec(process.execPath, ["--import", pathToFileURL(counter).href, bin, "run", "workflows/example.ts", "--service-url", url, "--api-key", "test"], project);
      expect(run.stderr).toContain("refused the API key (401)");
      expect(requests).toBe(1);
      expect(run.stderr).toContain("segmenters=0");
      const help = await exec(process.execPath, ["--import", pathToFileURL(counter).href, bin, "run", "--help"], project);
      expectOk(help, "wf run --help");
      expect(help.stdout).toContain("--service-url");
      expect(help.stderr).toMatch(/segmenters=[1-9]/);
    } finally {
      service.close();
    }
  });

  it("the scaffold type-checks as written (tsc --noEmit) and passes wf check", async () => {
    expectOk(await exec("npx", ["--no-install", "tsc", "--noEmit"], project), "tsc --noEmit");
    const check = await exec("npx", ["--no-install", "wf", "check", "workflows/example.ts"], project);
    expectOk(check, "wf check");
    expect(check.stdout).toContain("1 file checked, 0 findings");
  }, 300_000);

  it("npx wf run runs the example on the page it ships and returns the typed rows", async () => {
    const ran = await exec("npx", ["--no-install", "wf", "run", "workflows/example.ts", "--reporter", "json", "--out", "run.json"], project);
    expectOk(ran, "wf run");
    const record = JSON.parse(await readFile(join(project, "run.json"), "utf8"));
    expect(record.status).toBe("succeeded");
    expect(record.output).toEqual({
      title: "Plans and prices",
      plans: [
        { plan: "Starter", price: 9, seats: 1 },
        { plan: "Team", price: 49, seats: 10 },
        { plan: "Business", price: 199, seats: 50 },
      ],
    });
    // The installed wf compiles the file itself (esbuild, no loader thread): each step's call site
    // is still the line:column of the .ts source, read through the compiled file's source map.
    const source = (await readFile(join(project, "workflows", "example.ts"), "utf8")).split("\n");
    const at = (text: string) => `${join(project, "workflows", "example.ts")}:${source.findIndex((l) => l.includes(text)) + 1}:${source.find((l) => l.includes(text))!.indexOf("await") + 7}`;
    expect(record.steps.map((s: { callSite?: string }) => s.callSite)).toEqual([at("await act("), at('ask("the main heading")'), at('ask("the table of plans"')]);
    // The report's page, copied from the installed package.
    expect(await readFile(join(project, "wf-report", "index.html"), "utf8")).toContain('<script src="report.js"></script>');
  }, 300_000);

  it("a workflow and the helper it imports each see their own import.meta, also from the compile cache", async () => {
    await mkdir(join(project, "workflows", "lib"), { recursive: true });
    await writeFile(join(project, "workflows", "lib", "where.ts"), "export const helperUrl: string = import.meta.url;\nexport const helperDir: string = import.meta.dirname;\n");
    await writeFile(
      join(project, "workflows", "meta.ts"),
      'import { workflow } from "@wf/core";\nimport { helperDir, helperUrl } from "./lib/where.ts";\n\nexport default workflow({ name: "meta" }, async () => ({ url: import.meta.url, helperUrl, helperDir }));\n',
    );
    for (const round of [1, 2]) {
      const ran = await exec("npx", ["--no-install", "wf", "run", "workflows/meta.ts", "--reporter", "json", "--out", "meta.json"], project);
      expectOk(ran, `wf run (round ${round})`);
      const record = JSON.parse(await readFile(join(project, "meta.json"), "utf8"));
      expect(record.output).toEqual({
        url: pathToFileURL(join(project, "workflows", "meta.ts")).href,
        helperUrl: pathToFileURL(join(project, "workflows", "lib", "where.ts")).href,
        helperDir: join(project, "workflows", "lib"),
      });
    }
    expect((await readdir(join(project, "node_modules", ".cache", "wf"))).filter((f) => f.startsWith("meta-")).sort()).toEqual([expect.stringMatching(/^meta-\w+\.json$/), expect.stringMatching(/^meta-\w+\.mjs$/)]);
  }, 300_000);

  it("@wf/cli/vitest from the tarball: a Vitest test with Vitest's defaults passes, and a check that does not hold fails as WF_CHECK_FAILED", async () => {
    // The workspace's Vitest version, from the npm registry, as a user adds it.
    const { version } = JSON.parse(await readFile(join(ROOT, "node_modules", "vitest", "package.json"), "utf8")) as { version: string };
    expectOk(await exec("npm", ["install", "--no-audit", "--no-fund", "--save-dev", `vitest@${version}`], project), "npm install vitest");
    await mkdir(join(project, "tests"), { recursive: true });
    await writeFile(
      join(project, "tests", "plans.test.ts"),
      `import { act, ask, check } from "@wf/core";
import { useWf } from "@wf/cli/vitest";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";

useWf();
const page = pathToFileURL("pages/example.html").href;

test("reads the heading", async () => {
  await act(\`go to \${page}\`);
  await check('the page shows "Plans and prices"');
  expect(await ask("the main heading")).toBe("Plans and prices");
});

test("a check that does not hold", async () => {
  await act(\`go to \${page}\`);
  await check('the page shows "Free forever"');
});
`,
    );
    const ran = await exec("npx", ["--no-install", "vitest", "run", "tests/plans.test.ts", "--reporter=json", "--outputFile=vitest.json"], project);
    const report = JSON.parse(await readFile(join(project, "vitest.json"), "utf8")) as { testResults: Array<{ assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }> };
    const tests = report.testResults.flatMap((f) => f.assertionResults);
    expect(tests.map((t) => [t.title, t.status]), ran.stdout + ran.stderr).toEqual([
      ["reads the heading", "passed"],
      ["a check that does not hold", "failed"],
    ]);
    expect(tests[1]!.failureMessages.join("\n")).toContain("WF_CHECK_FAILED");
    expect(ran.stdout + ran.stderr).not.toContain("TypeError");
  }, 600_000);
});
