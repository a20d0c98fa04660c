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
    expect(config).toMatchObject({ configFile: undefined, baseUrl: undefined, apiKey: undefined, reporter: "pretty", timeoutMs: undefined });
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
      `import { defineConfig } from "@wf/cli";\nexport default defineConfig({ baseUrl: "http://config.test:1", reporter: "ndjson", server: { port: 9 } });\n`,
    );
    await writeFile(join(dir, ".env"), "WF_API_KEY=from-dotenv\nWF_TIMEOUT_MS=5000\nWF_BASE_URL=http://dotenv.test:1\n");

    const fromEnv = await resolveCliConfig({ cwd: dir, env: { WF_BASE_URL: "http://env.test:1", WF_REPORTER: "json" } });
    expect(fromEnv.configFile).toBe(join(dir, "wf.config.ts"));
    expect(fromEnv.baseUrl).toBe("http://env.test:1");
    expect(fromEnv.reporter).toBe("json");
    expect(fromEnv.apiKey).toBe("from-dotenv");
    expect(fromEnv.timeoutMs).toBe(5000);
    expect(fromEnv.server.port).toBe(9);

    // The file beats .env's absence: without the variable, the committed value holds.
    await writeFile(join(dir, ".env"), "WF_API_KEY=from-dotenv\n");
    const fromFile = await resolveCliConfig({ cwd: dir, env: {} });
    expect(fromFile.baseUrl).toBe("http://config.test:1");
    expect(fromFile.reporter).toBe("ndjson");
    expect(fromFile.reporterChosen).toBe(true);

    // A variable of the process wins over the same one in .env.
    const processEnv = await resolveCliConfig({ cwd: dir, env: { WF_API_KEY: "from-process" } });
    expect(processEnv.apiKey).toBe("from-process");

    const fromFlags = await resolveCliConfig({ cwd: dir, env: {}, flags: { baseUrl: "http://flag.test:1/", reporter: "json", apiKey: "flag-key", port: 1 } });
    expect(fromFlags).toMatchObject({ baseUrl: "http://flag.test:1", reporter: "json", apiKey: "flag-key" });
    expect(fromFlags.server.port).toBe(1);
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
