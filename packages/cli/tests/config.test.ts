import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineConfig, resolveCliConfig } from "../src/index.js";
import { scratchDir } from "./_helpers.js";

describe("resolveCliConfig", () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await scratchDir()));
  afterEach(() => remove());

  it("uses the defaults with no file, no env and no flags: embedded server, pretty reporter", async () => {
    const config = await resolveCliConfig({ cwd: dir, env: {} });
    expect(config).toMatchObject({ configFile: undefined, serviceUrl: undefined, apiKey: undefined, reporter: "pretty", timeoutMs: undefined, use: {}, projects: [], debug: false, notices: [] });
    expect(config.server.host).toBe("127.0.0.1");
  });

  it("resolves the lock mode: the flag, else frozen on CI (like npm ci), else wf.config.ts, else heal with a model and read without", async () => {
    const lock = async (env: Record<string, string>, flags: { lock?: string; model?: string } = {}) => (await resolveCliConfig({ cwd: dir, env, flags })).lock;
    expect(await lock({})).toBe("read");
    expect(await lock({ WF_MODEL: "m" })).toBe("heal");
    expect(await lock({ WF_MODEL: "m", CI: "true" })).toBe("frozen");
    expect(await lock({ CI: "true" })).toBe("frozen");
    expect(await lock({ WF_MODEL: "m", CI: "false" })).toBe("heal");
    expect(await lock({ CI: "true" }, { lock: "heal" })).toBe("heal");
    expect(await lock({ CI: "true" }, { lock: "read" })).toBe("read");
    await writeFile(join(dir, "wf.config.ts"), `export default { lock: "write" };\n`);
    expect(await lock({})).toBe("write");
    expect(await lock({ CI: "1" })).toBe("frozen");
    await expect(lock({}, { lock: "sometimes" })).rejects.toThrow(/Unknown lock mode "sometimes". Use one of: frozen, read, write, heal, off/);
  });

  it("resolves the model budget: --max-model-calls, else WF_MAX_MODEL_CALLS, else maxModelCalls of wf.config.ts, else no limit", async () => {
    const budget = async (env: Record<string, string>, flags: { maxModelCalls?: number } = {}) => (await resolveCliConfig({ cwd: dir, env, flags })).maxModelCalls;
    expect(await budget({})).toBeUndefined();
    await writeFile(join(dir, "wf.config.ts"), `export default { maxModelCalls: 7 };\n`);
    expect(await budget({})).toBe(7);
    expect(await budget({ WF_MAX_MODEL_CALLS: "3" })).toBe(3);
    expect(await budget({ WF_MAX_MODEL_CALLS: "3" }, { maxModelCalls: 0 })).toBe(0);
    await expect(budget({ WF_MAX_MODEL_CALLS: "lots" })).rejects.toThrow(/WF_MAX_MODEL_CALLS="lots" is not a whole number/);
    await writeFile(join(dir, "wf.config.ts"), `export default { maxModelCalls: -1 };\n`);
    await expect(budget({})).rejects.toThrow(/maxModelCalls/);
  });

  it("ranks flag over environment (process, then .env) over wf.config.ts over default, so CI can override a committed file", async () => {
    await writeFile(
      join(dir, "wf.config.ts"),
      `import { defineConfig } from "@wf/cli";\nexport default defineConfig({ serviceUrl: "http://config.test:1", reporter: "ndjson", server: { port: 9 } });\n`,
    );
    await writeFile(join(dir, ".env"), "WF_API_KEY=from-dotenv\nWF_TIMEOUT_MS=5000\nWF_SERVICE_URL=http://dotenv.test:1\n");

    const fromEnv = await resolveCliConfig({ cwd: dir, env: { WF_SERVICE_URL: "http://env.test:1", WF_REPORTER: "json" } });
    expect(fromEnv.configFile).toBe(join(dir, "wf.config.ts"));
    expect(fromEnv.serviceUrl).toBe("http://env.test:1");
    expect(fromEnv.reporter).toBe("json");
    expect(fromEnv.apiKey).toBe("from-dotenv");
    expect(fromEnv.timeoutMs).toBe(5000);
    expect(fromEnv.server.port).toBe(9);

    // The file beats .env's absence: without the variable, the committed value holds.
    await writeFile(join(dir, ".env"), "WF_API_KEY=from-dotenv\n");
    const fromFile = await resolveCliConfig({ cwd: dir, env: {} });
    expect(fromFile.serviceUrl).toBe("http://config.test:1");
    expect(fromFile.reporter).toBe("ndjson");
    expect(fromFile.reporterChosen).toBe(true);

    // A variable of the process wins over the same one in .env.
    const processEnv = await resolveCliConfig({ cwd: dir, env: { WF_API_KEY: "from-process" } });
    expect(processEnv.apiKey).toBe("from-process");

    const fromFlags = await resolveCliConfig({ cwd: dir, env: {}, flags: { serviceUrl: "http://flag.test:1/", reporter: "json", apiKey: "flag-key", port: 1 } });
    expect(fromFlags).toMatchObject({ serviceUrl: "http://flag.test:1", reporter: "json", apiKey: "flag-key", notices: [] });
    expect(fromFlags.server.port).toBe(1);
  });

  it("still reads the service's old names (--base-url, WF_BASE_URL, baseUrl) where the new one is unset, each with a one-line notice", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default { baseUrl: "http://old-file.test:1" };\n`);
    const fromFile = await resolveCliConfig({ cwd: dir, env: {} });
    expect(fromFile.serviceUrl).toBe("http://old-file.test:1");
    expect(fromFile.notices).toEqual(["baseUrl in wf.config.ts is deprecated: it names the wf service, now serviceUrl (the app's address is use.baseURL / --app-url / WF_APP_URL)."]);
    const fromEnv = await resolveCliConfig({ cwd: dir, env: { WF_BASE_URL: "http://old-env.test:1" } });
    expect(fromEnv.serviceUrl).toBe("http://old-env.test:1");
    expect(fromEnv.notices).toEqual([expect.stringMatching(/^WF_BASE_URL is deprecated: it names the wf service, now WF_SERVICE_URL \(/)]);
    const fromFlag = await resolveCliConfig({ cwd: dir, env: {}, flags: { baseUrl: "http://old-flag.test:1" } });
    expect(fromFlag.serviceUrl).toBe("http://old-flag.test:1");
    expect(fromFlag.notices).toEqual([expect.stringMatching(/^--base-url is deprecated: it names the wf service, now --service-url \(/)]);
    // The new name wins, and then the old one is not read: no notice.
    const both = await resolveCliConfig({ cwd: dir, env: { WF_SERVICE_URL: "http://new.test:1", WF_BASE_URL: "http://old-env.test:1" } });
    expect(both).toMatchObject({ serviceUrl: "http://new.test:1", notices: [] });
    expect(fromFile.notices.every((n) => !n.includes("\n"))).toBe(true);
  });

  it("resolves use and projects as Playwright's: each project's use over the top-level one, --app-url / WF_APP_URL over every baseURL, --project picks", async () => {
    await writeFile(
      join(dir, "wf.config.ts"),
      `import { defineConfig, devices } from "@wf/cli";
export default defineConfig({
  use: { baseURL: "http://localhost:3000", locale: "en-GB" },
  projects: [
    { name: "desktop" },
    { name: "mobile", use: { ...devices["Pixel 7"], locale: "de-DE" } },
    { name: "iphone", use: { ...devices["iPhone 15"], baseURL: "http://localhost:4000/m/" } },
  ],
  check: { timeoutMs: 2_000 },
});\n`,
    );
    const all = await resolveCliConfig({ cwd: dir, env: {} });
    expect(all.use).toEqual({ baseURL: "http://localhost:3000", locale: "en-GB" });
    expect(all.checkTimeoutMs).toBe(2_000);
    expect(all.projects.map((p) => p.name)).toEqual(["desktop", "mobile", "iphone"]);
    expect(all.projects[0]!.use).toEqual({ baseURL: "http://localhost:3000", locale: "en-GB" });
    expect(all.projects[1]!.use).toMatchObject({ baseURL: "http://localhost:3000", locale: "de-DE", viewport: { width: 412, height: 839 }, isMobile: true, hasTouch: true });
    expect(all.projects[1]!.use.userAgent).toContain("Pixel 7");
    // The descriptor's browser is not a context option; a device of another browser says what wf does instead.
    expect(all.projects[1]!.use).not.toHaveProperty("defaultBrowserType");
    expect(all.projects[2]!.use.baseURL).toBe("http://localhost:4000/m/");
    expect(all.notices).toEqual(['project "iphone" names the webkit browser (defaultBrowserType): wf runs Chromium, with the project\'s viewport, user agent and touch.']);

    const picked = await resolveCliConfig({ cwd: dir, env: { WF_APP_URL: "http://staging.test" }, flags: { projects: ["MOBILE", "desktop"] } });
    expect(picked.projects.map((p) => [p.name, p.use.baseURL])).toEqual([["desktop", "http://staging.test"], ["mobile", "http://staging.test"]]);
    expect(picked.use.baseURL).toBe("http://staging.test");
    const flag = await resolveCliConfig({ cwd: dir, env: { WF_APP_URL: "http://staging.test" }, flags: { appUrl: "http://flag.test:3000" } });
    expect(flag.projects.every((p) => p.use.baseURL === "http://flag.test:3000")).toBe(true);

    await expect(resolveCliConfig({ cwd: dir, env: {}, flags: { projects: ["tablet"] } })).rejects.toThrow('Project "tablet" not found (--project). The projects of wf.config.ts: desktop, mobile, iphone.');
    await expect(resolveCliConfig({ cwd: dir, env: { WF_APP_URL: "localhost:3000" } })).rejects.toThrow(/The app's URL "localhost:3000" \(--app-url, WF_APP_URL\) is not an http\(s\) or file URL/);
  });

  it("refuses a use option wf keeps elsewhere, saying where, and --project without projects", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default { use: { headless: false, trace: "on", locale: "nope nope" } };\n`);
    const error = (await resolveCliConfig({ cwd: dir, env: {} }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("use: Unrecognized keys");
    expect(error.message).toContain("the browser window is `headed: true` at the top of wf.config.ts (--headed)");
    expect(error.message).toContain("`trace` is a top-level setting of wf.config.ts (--trace)");
    expect(error.message).toContain("use.locale: must be a BCP 47 language tag like en-GB");
    await writeFile(join(dir, "wf.config.ts"), `export default { projects: [{ name: "a" }, { name: "A" }] };\n`);
    await expect(resolveCliConfig({ cwd: dir, env: {} })).rejects.toThrow(/Two projects are named "A"/);
    await writeFile(join(dir, "wf.config.ts"), `export default {};\n`);
    await expect(resolveCliConfig({ cwd: dir, env: {}, flags: { projects: ["mobile"] } })).rejects.toThrow(/--project mobile: wf.config.ts defines no projects/);
  });

  it("--debug (or Playwright's PWDEBUG=1): headed, slowed down, one worker, no retries, no run timeout; what is set explicitly still counts", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default { workers: 4, retries: 2, timeoutMs: 60_000 };\n`);
    expect(await resolveCliConfig({ cwd: dir, env: {}, flags: { debug: true } })).toMatchObject({ debug: true, headed: true, slowMoMs: 250, workers: 1, retries: 0, timeoutMs: undefined });
    expect(await resolveCliConfig({ cwd: dir, env: { PWDEBUG: "1" } })).toMatchObject({ debug: true, headed: true, workers: 1 });
    expect(await resolveCliConfig({ cwd: dir, env: { PWDEBUG: "0" } })).toMatchObject({ debug: false, headed: false, workers: 4 });
    expect(await resolveCliConfig({ cwd: dir, env: { WF_SLOW_MO_MS: "0" }, flags: { debug: true, headed: false } })).toMatchObject({ debug: true, headed: false, slowMoMs: 0 });
  });

  it("rejects a config file with a wrong field, naming the file and the field", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default { reporter: "fancy", timeoutMs: -1 };\n`);
    const error = await resolveCliConfig({ cwd: dir, env: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "WF_CLI_CONFIG_INVALID", exitCode: 2 });
    expect((error as Error).message).toContain("wf.config.ts");
    expect((error as Error).message).toContain("reporter");
    expect((error as Error).message).toContain("timeoutMs");
  });

  it("reads Playwright's reporter list and the runner settings from the file; a comma list from the flag or env wins", async () => {
    await writeFile(
      join(dir, "wf.config.ts"),
      `export default { reporter: [["list"], ["junit", { outputFile: "out/junit.xml" }]], testDir: "flows", workers: 3, retries: 2, maxFailures: 1 };\n`,
    );
    const fromFile = await resolveCliConfig({ cwd: dir, env: {} });
    expect(fromFile.reporters).toEqual([{ name: "list" }, { name: "junit", outputFile: "out/junit.xml" }]);
    expect(fromFile).toMatchObject({ testDir: join(dir, "flows"), workers: 3, retries: 2, maxFailures: 1 });
    const fromEnv = await resolveCliConfig({ cwd: dir, env: { WF_REPORTER: "dot,junit", WF_WORKERS: "1", WF_RETRIES: "0" } });
    expect(fromEnv.reporters).toEqual([{ name: "dot" }, { name: "junit" }]);
    expect(fromEnv).toMatchObject({ workers: 1, retries: 0 });
    const fromFlag = await resolveCliConfig({ cwd: dir, env: { WF_REPORTER: "dot" }, flags: { reporter: "line", workers: 2 } });
    expect(fromFlag.reporters).toEqual([{ name: "line" }]);
    expect(fromFlag.workers).toBe(2);
    await expect(resolveCliConfig({ cwd: dir, env: {}, flags: { reporter: "list,fancy" } })).rejects.toThrow(/Unknown reporter "fancy"/);
  });

  it("resolves repeatEach, headed and slowMoMs: flag, then WF_REPEAT_EACH / WF_HEADED / WF_SLOW_MO_MS, then the file, then 1 / false / 0", async () => {
    expect(await resolveCliConfig({ cwd: dir, env: {} })).toMatchObject({ repeatEach: 1, headed: false, slowMoMs: 0 });
    await writeFile(join(dir, "wf.config.ts"), `export default { repeatEach: 3, headed: true, slowMoMs: 250 };\n`);
    expect(await resolveCliConfig({ cwd: dir, env: {} })).toMatchObject({ repeatEach: 3, headed: true, slowMoMs: 250 });
    expect(await resolveCliConfig({ cwd: dir, env: { WF_REPEAT_EACH: "2", WF_HEADED: "0", WF_SLOW_MO_MS: "0" } })).toMatchObject({ repeatEach: 2, headed: false, slowMoMs: 0 });
    expect(await resolveCliConfig({ cwd: dir, env: { WF_HEADED: "0" }, flags: { repeatEach: 5, headed: true, slowMoMs: 10 } })).toMatchObject({ repeatEach: 5, headed: true, slowMoMs: 10 });
    await expect(resolveCliConfig({ cwd: dir, env: { WF_HEADED: "maybe" } })).rejects.toThrow(/WF_HEADED="maybe" is not a yes\/no value/);
    await writeFile(join(dir, "wf.config.ts"), `export default { repeatEach: 0 };\n`);
    await expect(resolveCliConfig({ cwd: dir, env: {} })).rejects.toThrow(/repeatEach/);
  });

  it("rejects a config file that does not load", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default {{ nope\n`);
    await expect(resolveCliConfig({ cwd: dir, env: {} })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
  });

  it("rejects a bad environment value and a bad reporter flag", async () => {
    await expect(resolveCliConfig({ cwd: dir, env: { WF_TIMEOUT_MS: "soon" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
    await expect(resolveCliConfig({ cwd: dir, env: {}, flags: { reporter: "fancy" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
    await expect(resolveCliConfig({ cwd: dir, env: { WF_BASE_URL: "ftp://x" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
  });

  it("rejects a malformed WF_TIMING or WF_DEBUG (read before the configuration, without zod) with the schema's message", async () => {
    await expect(resolveCliConfig({ cwd: dir, env: { WF_TIMING: "sometimes" } })).rejects.toMatchObject({
      code: "WF_CLI_CONFIG_INVALID",
      message: 'Environment variable WF_TIMING="sometimes" is not a yes/no value. Set it to 1/true/yes or 0/false/no, or unset it.',
    });
    await expect(resolveCliConfig({ cwd: dir, env: { WF_DEBUG: "verbose" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
    await expect(resolveCliConfig({ cwd: dir, env: { WF_TIMING: "0", WF_DEBUG: "yes" } })).resolves.toBeDefined();
  });

  it("defineConfig is a typed identity", () => {
    const config = { baseUrl: "http://127.0.0.1:8787", reporter: "json" as const };
    expect(defineConfig(config)).toBe(config);
  });
});
