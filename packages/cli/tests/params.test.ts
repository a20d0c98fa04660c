import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildParams, loadWorkflowFile, parseParamFlags } from "../src/index.js";
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
