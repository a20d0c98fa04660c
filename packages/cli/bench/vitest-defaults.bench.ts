/**
 * The README's Vitest example under Vitest's literal defaults (5 s per test, 10 s per hook): runs
 * its `login.test.ts` as written (the app's address pointed at a local sign-in page) three times,
 * each a fresh `vitest run`, and prints the test's own duration, its share of the 5 s budget, and
 * whether it passed. The test file `tests/vitest-defaults.test.ts` checks the behaviour at a 20 s
 * timeout (the server and the session start outside the test's time, a failing check fails as
 * itself); this measures what the README claims of the 5 s, on the machine it runs on.
 *
 *   pnpm --filter @wf/cli bench:vitest        (or: node --import tsx packages/cli/bench/vitest-defaults.bench.ts)
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");
const ROUNDS = 3;
const DEFAULT_TEST_TIMEOUT_MS = 5_000;

const LOGIN_PAGE = `<!doctype html><html><head><title>Shop · sign in</title></head><body>
<div class="app"><div class="card"><form id="signin"><label for="em">Email</label><input id="em" type="email">
<button type="submit">Sign in</button></form></div></div>
<script>document.getElementById("signin").addEventListener("submit", function (e) { e.preventDefault();
var email = document.getElementById("em").value; setTimeout(function () { document.querySelector(".app").innerHTML =
'<h1>Welcome, ' + (email.startsWith("ada@") ? "Ada" : "stranger") + '</h1>'; }, 150); });</script></body></html>`;

async function main(): Promise<void> {
  const app = createServer((_req, res) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE));
  await new Promise<void>((done) => app.listen(0, "127.0.0.1", done));
  const appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const block = /```ts\n(\/\/ login\.test\.ts\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no Vitest example starting with `// login.test.ts`");
  await mkdir(join(ROOT, "packages", "cli", ".tmp"), { recursive: true });
  const dir = await mkdtemp(join(ROOT, "packages", "cli", ".tmp", "bench-vitest-"));
  try {
    await writeFile(join(dir, "vitest.config.ts"), `import { defineConfig } from "vitest/config";\nexport default defineConfig({});\n`);
    await writeFile(join(dir, "login.test.ts"), block.replaceAll("http://localhost:3000", appUrl));
    console.log(`README Vitest example, Vitest defaults (testTimeout ${DEFAULT_TEST_TIMEOUT_MS} ms); load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    const shares: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const out = join(dir, `report-${round}.json`);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("WF_") && !k.startsWith("VITEST")) env[k] = v;
      Object.assign(env, { WF_MODEL: "", NO_COLOR: "1", WF_REPORT_DIR: join(dir, "wf-report") });
      const started = Date.now();
      await new Promise((done) => spawn(process.execPath, [VITEST, "run", "--root", dir, "--reporter=json", `--outputFile.json=${out}`], { cwd: dir, env, stdio: "ignore" }).on("close", done));
      const wall = Date.now() - started;
      const report = JSON.parse(await readFile(out, "utf8")) as { testResults: { assertionResults: { status: string; duration?: number }[] }[] };
      const test = report.testResults[0]?.assertionResults[0];
      const ms = test?.duration ?? Number.NaN;
      shares.push(ms / DEFAULT_TEST_TIMEOUT_MS);
      console.log(`  round ${round}: test ${test?.status ?? "missing"} in ${Math.round(ms)} ms (${((ms / DEFAULT_TEST_TIMEOUT_MS) * 100).toFixed(0)}% of the 5 s budget); vitest run ${wall} ms wall`);
    }
    const sorted = [...shares].sort((a, b) => a - b);
    console.log(`median share of the budget: ${(sorted[Math.floor(sorted.length / 2)]! * 100).toFixed(0)}%`);
  } finally {
    app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
