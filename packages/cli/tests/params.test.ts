import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { secret, workflow, type Workflow } from "@wf/core";
import { buildParams, loadWorkflowFile, paramsFromEnv, parseParamFlags } from "../src/index.js";
import { scopeParams } from "../src/params.js";
import { runWf, scratchDir } from "./_helpers.js";
import { FIXTURES } from "./_helpers.js";

describe("params from the command line", () => {
  it("converts --param strings by each field's zod type, over the params file's values", async () => {
    const { workflow } = await loadWorkflowFile(join(FIXTURES, "params.ts"));
    const flags = parseParamFlags(["limit=5", "exact=true", 'tags=["a","b"]', "query=a=b c"]);
    expect(buildParams(workflow, {}, flags)).toEqual({ query: "a=b c", limit: 5, exact: true, tags: ["a", "b"] });
    expect(buildParams(workflow, { query: "from-file", limit: 2 }, { limit: "3" })).toEqual({ query: "from-file", limit: 3, exact: false, tags: [] });
  });

  it("lists each bad field", async () => {
    const { workflow } = await loadWorkflowFile(join(FIXTURES, "params.ts"));
    expect(() => buildParams(workflow, {}, { limit: "0" })).toThrow(/query[\s\S]*limit|limit[\s\S]*query/);
  });

  it("rejects an entry without =", () => {
    expect(() => parseParamFlags(["oops"])).toThrow(/key=value/);
  });
});

describe("params from the environment (--param-env, paramsFromEnv)", () => {
  it("reads each bound variable; an empty one counts as set", () => {
    expect(paramsFromEnv({ query: "Q", limit: "L" }, { Q: "pg 15/x&y", L: "" })).toEqual({ query: "pg 15/x&y", limit: "" });
  });

  it("a variable that is not set fails WF_CLI_PARAM_ENV_MISSING naming it, never a value", () => {
    let caught: unknown;
    try {
      paramsFromEnv({ password: "SHOP_PASSWORD", user: "SHOP_USER" }, { SHOP_USER: "ada" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "WF_CLI_PARAM_ENV_MISSING", message: expect.stringContaining("SHOP_PASSWORD is not set (--param-env password=SHOP_PASSWORD)") });
    expect(String((caught as Error).message)).not.toContain("ada");
  });

  // Five spawned runs, each starting its own server and Chromium: minutes on a loaded 2-core machine.
  it("wf run takes them from --param-env and wf.config.ts, --param wins, and says which variable is missing (exit 2)", { timeout: 180_000 }, async () => {
    const scratch = await scratchDir();
    try {
      await writeFile(join(scratch.dir, "wf.config.ts"), 'export default { paramsFromEnv: { query: "FLOW_QUERY" } };\n');
      const flow = join(FIXTURES, "params.ts");
      const ok = await runWf(["run", flow, "--param-env", "limit=FLOW_LIMIT", "--param", "exact=true", "--reporter", "json"], { cwd: scratch.dir, env: { FLOW_QUERY: "from env", FLOW_LIMIT: "4" } });
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout).output).toEqual({ query: "from env", limit: 4, exact: true, tags: [] });
      const missing = await runWf(["run", flow, "--param-env", "limit=FLOW_LIMIT"], { cwd: scratch.dir, env: { FLOW_LIMIT: "4" } });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("FLOW_QUERY is not set");
    } finally {
      await scratch.remove();
    }
  });
});

describe("params bound to the workflows that declare them (scopeParams)", () => {
  // As the runner holds them: workflows of any params.
  const signIn = workflow({ name: "sign-in", params: z.object({ email: z.string(), password: secret(z.string()) }) }, async () => {}) as unknown as Workflow;
  const search = workflow({ name: "search", params: z.object({ query: z.string(), email: z.string().optional() }) }, async () => {}) as unknown as Workflow;
  const example = workflow({ name: "example" }, async () => {}) as unknown as Workflow;

  it("gives each workflow the names it declares, from --param over --param-env over paramsFromEnv over the params file", () => {
    const paramsOf = scopeParams(
      [signIn, search, example],
      { params: { query: "pg" }, paramEnv: { email: "FLAG_EMAIL" }, configEnv: { email: "CONFIG_EMAIL", password: "SHOP_PASSWORD" }, file: { email: "file@x.y", query: "from file" } },
      { FLAG_EMAIL: "flag@x.y", CONFIG_EMAIL: "config@x.y", SHOP_PASSWORD: "pw" },
      { cut: false },
    );
    expect(paramsOf(signIn)).toEqual({ strings: { email: "flag@x.y", password: "pw" }, file: { email: "file@x.y" } });
    expect(paramsOf(search)).toEqual({ strings: { email: "flag@x.y", query: "pg" }, file: { email: "file@x.y", query: "from file" } });
    expect(paramsOf(example)).toEqual({ strings: {}, file: {} });
  });

  it("never fails on a config binding no selected workflow declares, and reads no variable for it", () => {
    const paramsOf = scopeParams([example], { configEnv: { password: "SHOP_PASSWORD" } }, {}, { cut: false });
    expect(paramsOf(example)).toEqual({ strings: {}, file: {} });
    // A selected workflow that declares it needs the variable.
    expect(() => scopeParams([signIn], { configEnv: { password: "SHOP_PASSWORD" }, params: { email: "a@b.c" } }, {}, { cut: false })).toThrow(
      "SHOP_PASSWORD is not set (paramsFromEnv in wf.config.ts: password=SHOP_PASSWORD)",
    );
  });

  it("refuses a command-line name no selected workflow declares, unless the selection was cut", () => {
    expect(() => scopeParams([example], { paramEnv: { password: "SHOP_PASSWORD" } }, { SHOP_PASSWORD: "pw" }, { cut: false })).toThrow('Workflow "example" has no param "password" (--param-env). It takes no params.');
    expect(() => scopeParams([signIn, search], { params: { qeury: "pg" } }, {}, { cut: false })).toThrow('No selected workflow has a param "qeury" (--param). Known params: email, password, query.');
    expect(() => scopeParams([search], { file: { limit: 3 } }, {}, { cut: false })).toThrow(/has no param "limit" \(--params-file\)/);
    // Cut by --shard, --grep or --last-failed: ignored, and the variable is not even read.
    expect(scopeParams([example], { paramEnv: { password: "SHOP_PASSWORD" }, params: { qeury: "pg" } }, {}, { cut: true })(example)).toEqual({ strings: {}, file: {} });
  });
});

