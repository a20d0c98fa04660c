import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildParams, loadWorkflowFile, paramsFromEnv, parseParamFlags } from "../src/index.js";
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

  it("wf run takes them from --param-env and wf.config.ts, --param wins, and says which variable is missing (exit 2)", { timeout: 60_000 }, async () => {
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
