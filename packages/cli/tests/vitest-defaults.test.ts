/**
 * The Vitest example of the root README, as written, in a Vitest project with Vitest's defaults
 * but a 20 s test timeout (10 s hook timeout): its code block is copied into a test file, with the app's
 * address pointed at a local app. The embedded server starts in `beforeAll` (not in the first
 * test's 5 s), the test passes, and a check that does not hold fails as `WF_CHECK_FAILED` within
 * the test's timeout, never as the timeout or a `TypeError` of the hook.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, scratchDir } from "./_helpers.js";

const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

/** The sign-in page the README's example drives, as messy as a real one: no form labels wired by ARIA, nested divs. */
const LOGIN_PAGE = `<!doctype html><html><head><title>Shop · sign in</title></head><body>
<div class="app"><div class="card"><div class="card-body">
  <form id="signin"><div class="row"><label for="em">Email</label><div class="ctl"><input id="em" name="email" type="email"></div></div>
  <div class="row"><div class="btn-wrap"><button type="submit" class="btn btn-primary">Sign in</button></div></div></form>
</div></div></div>
<script>
document.getElementById("signin").addEventListener("submit", function (e) {
  e.preventDefault();
  var email = document.getElementById("em").value;
  setTimeout(function () {
    document.querySelector(".app").innerHTML = '<div class="topbar"><h1 class="greeting">Welcome, ' + (email.startsWith("ada@") ? "Ada" : "stranger") + '</h1></div>';
  }, 150);
});
</script></body></html>`;

/** The README's Vitest code block (the one that starts `// login.test.ts`). */
async function readmeExample(): Promise<string> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const block = /```ts\n(\/\/ login\.test\.ts\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no Vitest example starting with `// login.test.ts`");
  return block;
}

interface JsonReport {
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[]; duration?: number }[] }[];
}

describe("the README's Vitest example with Vitest's defaults", { timeout: 200_000 }, () => {
  let app: Server;
  let appUrl: string;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let output = "";
  let report: JsonReport;
  const byName = (name: string) => report.testResults.flatMap((f) => f.assertionResults).find((t) => t.fullName === name);

  beforeAll(async () => {
    app = createServer((_req, res) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE));
    await new Promise<void>((done) => app.listen(0, "127.0.0.1", done));
    appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
    scratch = await scratchDir();
    const project = join(scratch.dir, "project");
    await mkdir(project);
    // Vitest's defaults but the test timeout: four browser steps within 5 s is a race with the
    // machine's load (2 cores shared with the rest of the suite), and a test here asserts behaviour,
    // not speed. What the defaults are about still holds at any timeout: the server and the session
    // start outside the test's time, and a check waits half of it (10 s of 20 s), so it fails as
    // itself. With the literal 5 s the same file passes on a machine that is not loaded.
    await writeFile(join(project, "vitest.config.ts"), `import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { testTimeout: 20_000 } });\n`);
    // The README's file as written, and one more test in it: a check that does not hold. One file,
    // so one Vitest worker, one embedded server and one browser, as the README's project has.
    const readme = (await readmeExample()).replaceAll("http://localhost:3000", appUrl);
    await writeFile(
      join(project, "login.test.ts"),
      `${readme}
test("a check that does not hold", async () => {
  await act("go to ${appUrl}/login");
  await check('the page shows "Free shipping"');
});
`,
    );
    const reportJson = join(scratch.dir, "vitest.json");
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("WF_") && !k.startsWith("VITEST") && k !== "FORCE_COLOR") env[k] = v;
    Object.assign(env, { WF_MODEL: "", NO_COLOR: "1", WF_REPORT_DIR: join(scratch.dir, "wf-report") });
    const child = spawn(process.execPath, [VITEST, "run", "--root", project, "--reporter=default", "--reporter=json", `--outputFile.json=${reportJson}`], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
    await new Promise((done) => child.on("close", done));
    clearTimeout(timer);
    report = JSON.parse(await readFile(reportJson, "utf8")) as JsonReport;
    if (process.env.DEBUG_VITEST_DEFAULTS) console.log(output);
  }, 200_000);
  afterAll(async () => {
    await new Promise((done) => app?.close(done));
    await scratch?.remove();
  });

  it("passes the README's test as written", () => {
    expect(byName("signs in")?.status, output).toBe("passed");
  });

  it("fails a check that does not hold as WF_CHECK_FAILED within the test's timeout, with the hook's evidence and no TypeError", () => {
    const failed = byName("a check that does not hold");
    expect(failed?.status, output).toBe("failed");
    const message = failed!.failureMessages.join("\n");
    expect(message).toContain("WF_CHECK_FAILED");
    expect(message).toContain('"Free shipping"');
    expect(message).not.toMatch(/timed out/i);
    expect(message).toMatch(/wf screenshot: \S+\.png/);
    expect(output).not.toContain("TypeError");
  });
});
