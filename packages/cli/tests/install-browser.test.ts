import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installBrowser, runCli } from "../src/index.js";
import { collector } from "./_helpers.js";

// The real install paths (a download, apt-get) are not run here: they change the machine. What is
// tested is the decision: nothing to do when a Chromium starts, and the commands --dry-run names.
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

describe("wf install-browser", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "wf-install-browser-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it.skipIf(!existsSync(SYSTEM_CHROMIUM))("does nothing when a Chromium that starts is already installed, however often it runs", async () => {
    for (let i = 0; i < 2; i++) {
      const stdout = collector();
      const stderr = collector();
      const code = await runCli(["install-browser"], { env: { WF_CHROMIUM_PATH: SYSTEM_CHROMIUM }, stdout, stderr });
      expect(code).toBe(0);
      expect(stdout.text()).toMatch(new RegExp(`^Chromium is already installed: ${SYSTEM_CHROMIUM} \\(Chromium \\d+.*\\)\\. Nothing to do\\.\\n$`));
      expect(stderr.text()).toBe("");
    }
    // Loads the server and starts Chromium twice (`--version`): slow on a loaded machine.
  }, 180_000);

  it("--dry-run names the Playwright download and the system fallback, and runs nothing", async () => {
    const missing = join(dir, "no-such", "chrome");
    const stdout = collector();
    const code = await runCli(["install-browser", "--dry-run"], { env: { WF_CHROMIUM_PATH: missing, PLAYWRIGHT_BROWSERS_PATH: dir }, stdout, stderr: collector() });
    expect(code).toBe(0);
    const text = stdout.text();
    expect(text).toContain(`No Chromium found (looked at ${missing}).`);
    expect(text).toMatch(/^Would run: \S+ \S+\/playwright-core\/cli\.js install (--with-deps )?chromium$/m);
    // On Debian/Ubuntu (CI): apt-get as root, else the same command printed with sudo.
    if (existsSync("/usr/bin/apt-get")) expect(text).toContain("apt-get install -y --no-install-recommends chromium fonts-liberation");
    expect(text).not.toContain("Downloading");
    expect(await readdir(dir)).toEqual([]);
  });

  it("reports the commands it would run", async () => {
    const result = await installBrowser({ dryRun: true, env: { WF_CHROMIUM_PATH: join(dir, "chrome") }, stdout: collector() });
    expect(result).toMatchObject({ status: "dry-run", exitCode: 0 });
    expect(result.commands[0]).toMatch(/playwright-core\/cli\.js install (--with-deps )?chromium$/);
  });

  it("WF_BROWSER_ENDPOINT means a remote browser: nothing to install", async () => {
    const stdout = collector();
    const result = await installBrowser({ env: { WF_BROWSER_ENDPOINT: "http://127.0.0.1:9222" }, stdout });
    expect(result).toMatchObject({ status: "found", exitCode: 0, commands: [] });
    expect(stdout.text()).toContain("WF_BROWSER_ENDPOINT is set");
  });
});
