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

  it("resolves the lock mode: the flag, else read on CI, else wf.config.ts, else heal with a model and read without", async () => {
    const lock = async (env: Record<string, string>, flags: { lock?: string; model?: string } = {}) => (await resolveCliConfig({ cwd: dir, env, flags })).lock;
    expect(await lock({})).toBe("read");
    expect(await lock({ WF_MODEL: "m" })).toBe("heal");
    expect(await lock({ WF_MODEL: "m", CI: "true" })).toBe("read");
    expect(await lock({ WF_MODEL: "m", CI: "false" })).toBe("heal");
    expect(await lock({ CI: "true" }, { lock: "heal" })).toBe("heal");
    await writeFile(join(dir, "wf.config.ts"), `export default { lock: "write" };\n`);
    expect(await lock({})).toBe("write");
    expect(await lock({ CI: "1" })).toBe("read");
    await expect(lock({}, { lock: "sometimes" })).rejects.toThrow(/Unknown lock mode "sometimes". Use one of: read, write, heal, off/);
  });

  it("ranks flag over wf.config.ts over environment (and .env) over default", async () => {
    await writeFile(
      join(dir, "wf.config.ts"),
      `import { defineConfig } from "@wf/cli";\nexport default defineConfig({ baseUrl: "http://config.test:1", reporter: "ndjson", server: { port: 9 } });\n`,
    );
    await writeFile(join(dir, ".env"), "WF_API_KEY=from-dotenv\nWF_TIMEOUT_MS=5000\nWF_BASE_URL=http://dotenv.test:1\n");

    const fromFile = await resolveCliConfig({ cwd: dir, env: { WF_BASE_URL: "http://env.test:1", WF_REPORTER: "json" } });
    expect(fromFile.configFile).toBe(join(dir, "wf.config.ts"));
    expect(fromFile.baseUrl).toBe("http://config.test:1");
    expect(fromFile.reporter).toBe("ndjson");
    expect(fromFile.apiKey).toBe("from-dotenv");
    expect(fromFile.timeoutMs).toBe(5000);
    expect(fromFile.server.port).toBe(9);

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

  it("rejects a config file that does not load", async () => {
    await writeFile(join(dir, "wf.config.ts"), `export default {{ nope\n`);
    await expect(resolveCliConfig({ cwd: dir, env: {} })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
  });

  it("rejects a bad environment value and a bad reporter flag", async () => {
    await expect(resolveCliConfig({ cwd: dir, env: { WF_TIMEOUT_MS: "soon" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
    await expect(resolveCliConfig({ cwd: dir, env: {}, flags: { reporter: "fancy" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
    await expect(resolveCliConfig({ cwd: dir, env: { WF_BASE_URL: "ftp://x" } })).rejects.toMatchObject({ code: "WF_CLI_CONFIG_INVALID" });
  });

  it("defineConfig is a typed identity", () => {
    const config = { baseUrl: "http://127.0.0.1:8787", reporter: "json" as const };
    expect(defineConfig(config)).toBe(config);
  });
});
