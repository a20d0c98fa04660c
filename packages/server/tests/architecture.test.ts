/**
 * The dependency rules of `.dependency-cruiser.cjs` (run on the real tree by `pnpm check-deps`)
 * catch what they are written for: each planted violation below, in a throwaway tree laid out like
 * the server's, is reported under its rule, and the same tree without it is clean.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { cruise, type IForbiddenRuleType } from "dependency-cruiser";
import { afterAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const { forbidden } = require("../../../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[] };

const INTERPRETER = "packages/server/src/interpreter";
/** A clean miniature of the server: every folder's entry, and the imports the real tree has. */
const CLEAN: Record<string, string> = {
  [`${INTERPRETER}/errors.ts`]: "export const e = 1;\n",
  [`${INTERPRETER}/types.ts`]: "export type T = number;\n",
  [`${INTERPRETER}/grammar/rules.ts`]: 'import { e } from "../errors.js";\nexport const rules = e;\n',
  [`${INTERPRETER}/grammar/index.ts`]: 'export { rules } from "./rules.js";\n',
  [`${INTERPRETER}/page/index.ts`]: "export const page = 1;\n",
  [`${INTERPRETER}/locate/locate.ts`]: 'import { rules } from "../grammar/index.js";\nimport { page } from "../page/index.js";\nexport const locate = rules + page;\n',
  [`${INTERPRETER}/locate/index.ts`]: 'export { locate } from "./locate.js";\n',
  [`${INTERPRETER}/act/index.ts`]: 'import { locate } from "../locate/index.js";\nexport const act = locate;\n',
  [`${INTERPRETER}/model/interpreter.ts`]: 'import { act } from "../act/index.js";\nimport { locate } from "../locate/index.js";\nexport const model = act + locate;\n',
  [`${INTERPRETER}/model/index.ts`]: 'export { model } from "./interpreter.js";\n',
  [`${INTERPRETER}/deterministic.ts`]: 'import { act } from "./act/index.js";\nexport const grammar = act;\n',
  [`${INTERPRETER}/index.ts`]: 'export { grammar } from "./deterministic.js";\n',
  "packages/server/src/index.ts": 'import { grammar } from "./interpreter/index.js";\nexport const server = grammar;\nexport const loadModel = () => import("./interpreter/model/index.js");\n',
};

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** The rules broken in a tree made of {@link CLEAN} plus `planted` (path → source). */
async function violations(planted: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(path.join(tmpdir(), "wf-deps-"));
  roots.push(root);
  for (const [file, source] of Object.entries({ ...CLEAN, ...planted })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  const { output } = await cruise(["packages"], { baseDir: root, validate: true, ruleSet: { forbidden }, tsPreCompilationDeps: true });
  if (typeof output === "string") throw new Error(`dependency-cruiser answered text: ${output}`);
  return [...new Set(output.summary.violations.map((v) => v.rule.name))].sort();
}

describe("the interpreter's folder rules", () => {
  it("finds nothing in a tree that keeps them", async () => {
    expect(await violations({})).toEqual([]);
  });

  it.each([
    ["grammar/ imports model/", { [`${INTERPRETER}/grammar/bad.ts`]: 'import { model } from "../model/index.js";\nexport const bad = model;\n' }, ["interpreter-grammar-layer"]],
    ["a folder reaches into another's file", { [`${INTERPRETER}/act/bad.ts`]: 'import { locate } from "../locate/locate.js";\nexport const bad = locate;\n' }, ["interpreter-folder-through-its-index"]],
    ["the server reaches into a folder", { "packages/server/src/bad.ts": 'import { locate } from "./interpreter/locate/index.js";\nexport const bad = locate;\n' }, ["interpreter-through-its-entries"]],
    ["the server loads the model side statically", { "packages/server/src/bad.ts": 'import { model } from "./interpreter/model/index.js";\nexport const bad = model;\n' }, ["model-interpreter-loaded-on-demand"]],
    ["a shared file imports a folder", { [`${INTERPRETER}/types.ts`]: 'import { rules } from "./grammar/index.js";\nexport type T = typeof rules;\n' }, ["interpreter-shared-files-import-no-folder"]],
    ["a folder imports the interpreter built from it", { [`${INTERPRETER}/locate/bad.ts`]: 'import { grammar } from "../deterministic.js";\nexport const bad = grammar;\n' }, ["interpreter-no-folder-imports-the-top"]],
    ["an import cycle", { [`${INTERPRETER}/page/index.ts`]: 'import { locate } from "../locate/index.js";\nexport const page = 1;\nexport const again = () => locate;\n' }, ["interpreter-page-layer", "no-circular"]],
  ])("reports %s", async (_what, planted, rules) => {
    expect(await violations(planted)).toEqual(rules);
  });
});
