import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWorkflowFiles, formatPlan, planWorkflowFile } from "../src/index.js";
import { FIXTURES, brokenFixture, scratchDir } from "./_helpers.js";
import { briefProblem, grammarProblem } from "../src/plan-lint.js";
import { parseInstructions } from "@wf/server/grammar";
import { mkdir, writeFile } from "node:fs/promises";

describe("planWorkflowFile", () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => ({ dir, remove } = await scratchDir()));
  afterAll(() => remove());

  it("lists act/ask calls in source order with template parts as ${…}, without running the file", async () => {
    const plan = await planWorkflowFile(join(FIXTURES, "clean.ts"));
    expect(plan.steps.map((s) => [s.index, s.type, s.instruction, s.hasSchema, s.line])).toEqual([
      [1, "ACT", "go to ${…}", false, 6],
      [2, "ASK", "the table of prices", true, 7],
    ]);
    expect(plan.findings).toEqual([]);
    expect(formatPlan(plan, FIXTURES)).toContain('2. ASK "the table of prices"  (schema)  clean.ts:7:22');
  });

  it("lists check and check.soft calls with who evaluates them, and flags one in no grammar form when no model is configured", async () => {
    const file = join(dir, "checks.ts");
    await writeFile(
      file,
      [
        'import { act, check, workflow } from "@wf/core";',
        'export default workflow({ name: "checks" }, async () => {',
        '  await act("go to https://example.com");',
        '  await check(\'the page shows "Example Domain"\');',
        '  await check.soft(`the URL contains "${"/x"}"`);',
        '  await check("the page looks friendly");',
        "});",
      ].join("\n"),
    );
    const plan = await planWorkflowFile(file);
    expect(plan.steps.map((s) => [s.index, s.type, s.instruction, s.interpreter, s.soft ?? false])).toEqual([
      [1, "ACT", "go to https://example.com", "grammar", false],
      [2, "CHECK", 'the page shows "Example Domain"', "grammar", false],
      [3, "CHECK", 'the URL contains "${…}"', "grammar", true],
      [4, "CHECK", "the page looks friendly", "model", false],
    ]);
    expect(plan.findings.map((f) => `${f.line} ${f.code}`)).toEqual(["6 WF_LINT_CHECK_NOT_UNDERSTOOD"]);
    expect(formatPlan(plan, dir)).toContain('3. CHECK "the URL contains \\"${…}\\""  (soft, grammar)  checks.ts:5:9');
    const withModel = await planWorkflowFile(file, { modelConfigured: true });
    expect(withModel.findings).toEqual([]);
    expect(withModel.notes?.map((n) => n.code)).toEqual(["WF_NOTE_NEEDS_MODEL"]);
  });

  it("flags an empty instruction, an ask used as an object without a schema, and schemas strict mode refuses", async () => {
    const file = await brokenFixture(dir, "lint");
    const plan = await planWorkflowFile(file);
    expect(plan.steps.map((s) => `${s.type} ${s.instruction}`)).toEqual([
      "ACT go to https://example.com/search?q=${…}",
      "ACT ",
      "ASK the product's name and price",
      "ASK the page title",
      "ASK the tags",
      "ASK the rows",
      "ASK the summary",
    ]);
    const findings = plan.findings.map((f) => `${f.line} ${f.code}`);
    expect(findings).toEqual([
      "9 WF_LINT_EMPTY_INSTRUCTION",
      // `info.price` on a text answer, then `const { title } = await ask(...)`.
      "11 WF_LINT_ASK_NEEDS_SCHEMA",
      "12 WF_LINT_ASK_NEEDS_SCHEMA",
      // z.record() inline, and z.any() inside the `const Row` the schema references.
      "13 WF_LINT_SCHEMA_UNSUPPORTED",
      "5 WF_LINT_SCHEMA_UNSUPPORTED",
    ]);
    expect(plan.findings[3]!.message).toContain("z.record()");
    expect(plan.findings[4]!.message).toContain("z.any()");
    // `text.toUpperCase()` is a string method: text answers may be used as strings.
    expect(plan.findings.some((f) => f.line === 16)).toBe(false);
  });

  it("lists the calls of helper modules the file imports (transitively, once each) in a group per module, and lints them", async () => {
    const plan = await planWorkflowFile(join(FIXTURES, "with-helpers.ts"));
    expect(plan.steps.map((s) => `${s.type} ${s.instruction}`)).toEqual(["ACT go to ${…}"]);
    expect(plan.modules.map((m) => [m.file, m.importedBy])).toEqual([
      [join(FIXTURES, "helpers/sign-in.ts"), join(FIXTURES, "with-helpers.ts")],
      [join(FIXTURES, "helpers/menu.ts"), join(FIXTURES, "helpers/sign-in.ts")],
    ]);
    expect(plan.modules[0]!.steps.map((s) => [s.index, s.type, s.instruction, s.hasSchema, s.line])).toEqual([
      [1, "ACT", 'type "${…}" into "User"', false, 9],
      [2, "ACT", 'click "Sign in"', false, 10],
      [3, "ASK", "the greeting", true, 11],
    ]);
    expect(plan.modules[1]!.steps.map((s) => `${s.type} ${s.instruction} ${s.line}`)).toEqual(['ACT click "Menu" 7', "ACT  8"]);
    expect(plan.findings).toEqual([expect.objectContaining({ code: "WF_LINT_EMPTY_INSTRUCTION", file: join(FIXTURES, "helpers/menu.ts"), line: 8 })]);
    const text = formatPlan(plan, FIXTURES);
    expect(text).toContain("helpers/sign-in.ts (imported by with-helpers.ts): 3 steps\n   1. ACT \"type \\\"${…}\\\" into \\\"User\\\"\"  (grammar)  helpers/sign-in.ts:9:9");
    expect(text).toContain("helpers/menu.ts (imported by helpers/sign-in.ts): 2 steps");
    expect(text).toContain("helpers/menu.ts:8:16  WF_LINT_EMPTY_INSTRUCTION");
  });

  it("shows each ACT's locked instructions from the action lock, or that it needs the model", async () => {
    const { copyFile, writeFile } = await import("node:fs/promises");
    const flow = join(dir, "locked.ts");
    await copyFile(join(FIXTURES, "lock-flow.ts"), flow);
    const before = await planWorkflowFile(flow);
    expect(before.steps.map((s) => [s.index, s.locked, s.needsModel])).toEqual([
      [1, undefined, undefined],
      [2, undefined, true],
      [3, undefined, undefined],
    ]);
    const entry = { callSite: "locked.ts:9:11", instruction: "sign in as {{user}} with password {{password}}", actions: [{ instruction: 'type "{{user}}" into the "Email" field' }, { instruction: 'click the "Sign in" button' }], recordedAt: "2026-11-23T16:00:00.000Z" };
    await writeFile(join(dir, "locked.wf.lock.json"), JSON.stringify({ version: 1, entries: [entry] }));
    const after = await planWorkflowFile(flow);
    expect(after.steps[1]).toMatchObject({ locked: ['type "{{user}}" into the "Email" field; click the "Sign in" button'] });
    expect(after.steps[1]!.needsModel).toBeUndefined();
    expect(formatPlan(after, dir)).toContain('↳ locked: type "{{user}}" into the "Email" field; click the "Sign in" button');
    expect(formatPlan(before, dir)).toContain("↳ needs the model (no lock entry)");
  });

  it("wf lock --prune removes the entries no act() call uses, and wf check's lock findings name them", async () => {
    const { copyFile, readFile, writeFile } = await import("node:fs/promises");
    const { pruneLock, lockFindings } = await import("../src/index.js");
    const flow = join(dir, "pruned.ts");
    await copyFile(join(FIXTURES, "lock-flow.ts"), flow);
    const entry = (callSite: string, instruction: string) => ({ callSite, instruction, actions: [{ instruction: 'click the "Go" button' }], recordedAt: "2026-11-23T16:00:00.000Z" });
    const lockPath = join(dir, "pruned.wf.lock.json");
    await writeFile(
      lockPath,
      JSON.stringify({
        version: 1,
        entries: [entry("pruned.ts:9:11", "sign in as {{user}} with password {{password}}"), entry("pruned.ts:10:11", 'click "Continue"'), entry("pruned.ts:30:5", "gone")],
      }),
    );
    const findings = await lockFindings(await planWorkflowFile(flow));
    expect(findings.map((f) => [f.code, f.file])).toEqual([
      ["WF_LOCK_STALE_ENTRY", lockPath],
      ["WF_LOCK_STALE_ENTRY", lockPath],
    ]);
    expect(findings[0]!.message).toContain('the call at pruned.ts:10 now says "click the \\"Continue\\" link"');
    expect(findings[1]!.message).toContain("no act() call at pruned.ts:30 any more");

    const dry = await pruneLock(flow, { cwd: dir, dryRun: true });
    expect(dry.removed).toHaveLength(2);
    expect(JSON.parse(await readFile(lockPath, "utf8")).entries).toHaveLength(3);
    const pruned = await pruneLock(flow, { cwd: dir });
    expect(pruned).toMatchObject({ lockPath, kept: 1 });
    expect(JSON.parse(await readFile(lockPath, "utf8")).entries.map((e: { callSite: string }) => e.callSite)).toEqual(["pruned.ts:9:11"]);
  });

  it("reads the workflow's declared params, and wf check flags an entry whose placeholder names a param the workflow no longer has", async () => {
    const { copyFile, readFile, writeFile } = await import("node:fs/promises");
    const { lockFindings, pruneLock } = await import("../src/index.js");
    const flow = join(dir, "renamed.ts");
    await copyFile(join(FIXTURES, "lock-flow.ts"), flow);
    const plan = await planWorkflowFile(flow);
    expect(plan.params).toEqual(["url", "user", "password"]);
    const lockPath = join(dir, "renamed.wf.lock.json");
    const actions = (name: string) => [{ instruction: `type "{{${name}}}" into the "Email" field`, element: { role: "textbox", name: "Email" } }];
    await writeFile(
      lockPath,
      JSON.stringify({
        version: 1,
        entries: [
          { callSite: "renamed.ts:9:11", instruction: "sign in as {{user}} with password {{password}}", actions: actions("user"), recordedAt: "2026-11-23T16:00:00.000Z" },
          { callSite: "renamed.ts:9:11", ordinal: 2, instruction: "sign in as {{login}} with password {{password}}", actions: actions("login"), recordedAt: "2026-11-23T16:00:00.000Z" },
        ],
      }),
    );
    const findings = await lockFindings(plan);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: "WF_LOCK_STALE_ENTRY", file: lockPath });
    expect(findings[0]!.message).toContain('"sign in as {{login}} with password {{password}}"');
    expect(findings[0]!.message).toContain("its placeholder {{login}} names no param of the workflow any more (its params are url, user, password)");
    const pruned = await pruneLock(flow, { cwd: dir });
    expect(pruned.kept).toBe(1);
    expect(JSON.parse(await readFile(lockPath, "utf8")).entries[0].instruction).toBe("sign in as {{user}} with password {{password}}");
  });

  it("knows a workflow without params has none, and leaves params it cannot read unknown", async () => {
    const { writeFile } = await import("node:fs/promises");
    const none = join(dir, "no-params.ts");
    await writeFile(none, 'import { act, workflow } from "@wf/core";\nexport default workflow({ name: "no-params" }, async () => { await act("reload"); });\n');
    expect((await planWorkflowFile(none)).params).toEqual([]);
    const built = join(dir, "built-params.ts");
    await writeFile(built, 'import { act, workflow } from "@wf/core";\nimport { shared } from "./shared.js";\nexport default workflow({ name: "built-params", params: shared.extend({}) }, async () => { await act("reload"); });\n');
    expect((await planWorkflowFile(built)).params).toBeUndefined();
    const viaConst = join(dir, "const-params.ts");
    await writeFile(viaConst, 'import { act, workflow } from "@wf/core";\nimport { z } from "zod";\nconst Params = z.object({ q: z.string(), "page-size": z.number() });\nexport default workflow({ name: "const-params", params: Params }, async () => { await act("reload"); });\n');
    expect((await planWorkflowFile(viaConst)).params).toEqual(["q", "page-size"]);
  });

  it("reports a syntax error as a finding", async () => {
    const plan = await planWorkflowFile(await brokenFixture(dir, "syntax-error"));
    expect(plan.findings[0]).toMatchObject({ code: "WF_LINT_SYNTAX", line: 4 });
  });

  it("says so when the file does not exist", async () => {
    await expect(planWorkflowFile(join(dir, "missing.ts"))).rejects.toMatchObject({ code: "WF_CLI_FILE_NOT_FOUND", exitCode: 2 });
  });
});

describe("checkWorkflowFiles", () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => ({ dir, remove } = await scratchDir()));
  afterAll(() => remove());

  it("type-checks with the project's tsconfig and adds the lint findings", async () => {
    const typeError = await brokenFixture(dir, "type-error");
    const lint = await brokenFixture(dir, "lint");
    const result = await checkWorkflowFiles([join(FIXTURES, "clean.ts"), typeError, lint, join(FIXTURES, "with-helpers.ts")]);
    expect(result.tsconfig).toMatch(/tsconfig\.json$/);
    expect(result.files[0]!.findings).toEqual([]);
    // `scroll ${n} times` is no wording the grammar knows, and no model is configured.
    expect(result.files[1]!.findings.map((f) => `${f.line} ${f.code}`)).toEqual(["6 TS2322", "7 WF_LINT_ACT_NOT_UNDERSTOOD"]);
    const lintCodes = result.files[2]!.findings.map((f) => f.code);
    expect(lintCodes.filter((c) => c.startsWith("TS")).length).toBeGreaterThan(0);
    expect(lintCodes).toContain("WF_LINT_EMPTY_INSTRUCTION");
    // Helper modules are linted too: the empty step in helpers/menu.ts, and no type error.
    expect(result.files[3]!.findings.map((f) => `${f.file.slice(FIXTURES.length + 1)}:${f.line} ${f.code}`)).toEqual(["helpers/menu.ts:8 WF_LINT_EMPTY_INSTRUCTION"]);
    expect(result.findingCount).toBe(result.files.reduce((n, f) => n + f.findings.length, 0));
  }, 180_000);

  it("reads each file in the module format its package.json implies: import.meta is fine in a \"type\": \"module\" project, TS1470 in a CommonJS one", async () => {
    const workflowSource = [
      'import { workflow, act } from "@wf/core";',
      "export default workflow({ name: \"meta\" }, async () => {",
      '  await act(`go to "${new URL("./page.html", import.meta.url).href}"`);',
      "  const n: number = \"one\";",
      "  return n;",
      "});",
      "",
    ].join("\n");
    // wf init's compiler options.
    const tsconfig = { compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, allowImportingTsExtensions: true } };
    const findings: Record<string, string[]> = {};
    for (const [name, pkg] of Object.entries({ esm: { name: "esm", private: true, type: "module" }, cjs: { name: "cjs", private: true } })) {
      await mkdir(join(dir, name), { recursive: true });
      await writeFile(join(dir, name, "package.json"), JSON.stringify(pkg));
      await writeFile(join(dir, name, "tsconfig.json"), JSON.stringify(tsconfig));
      await writeFile(join(dir, name, "flow.ts"), workflowSource);
      const result = await checkWorkflowFiles([join(dir, name, "flow.ts")]);
      findings[name] = result.files[0]!.findings.map((f) => `${f.line}:${f.column} ${f.code}`);
    }
    expect(findings).toEqual({ esm: ["4:9 TS2322"], cjs: ["3:46 TS1470", "4:9 TS2322"] });
  }, 180_000);
});

describe("act wording read with the grammar", () => {
  const file = join(FIXTURES, "wording.ts");

  it("flags an act the grammar does not understand when no model is configured, with the grammar's hint", async () => {
    const plan = await planWorkflowFile(file);
    expect(plan.steps.map((s) => `${s.instruction} → ${s.interpreter}`)).toEqual([
      "go to ${…} → grammar",
      'click "${…}" in the "Billing" section → grammar',
      "search for dataclass → grammar",
      "make the page pop → model",
      'click "Menu" and frobnicate → model',
    ]);
    expect(plan.findings.map((f) => `${f.line} ${f.code}`)).toEqual(["9 WF_LINT_ACT_NOT_UNDERSTOOD", "10 WF_LINT_ACT_NOT_UNDERSTOOD"]);
    expect(plan.findings[0]!.message).toContain("no model is configured");
    // The part that matters first, then the verbs the grammar starts with: not the whole grammar with examples (~1.3 KB) per finding.
    expect(plan.findings[0]!.message).toMatch(/^act\("make the page pop"\) is not understood by the grammar and no model is configured \(WF_MODEL\): Instruction not understood: "make the page pop"\. The grammar's steps start with: go, open, /);
    expect(plan.findings[0]!.message).not.toContain("The deterministic interpreter understands");
    expect(plan.findings.every((f) => f.message.length < 700)).toBe(true);
    expect(plan.findings[1]!.message).toContain('did not understand "and frobnicate"');
    // A verb with its target unquoted, or misspelt, gets that verb's forms.
    expect(briefProblem(grammarProblem("selct France", parseInstructions)!, "selct France")).toContain('Closest forms: `select "France" in "Country"`');
    expect(briefProblem(grammarProblem('tpye "x" into "Email"', parseInstructions)!, 'tpye "x" into "Email"')).toContain('`type "ada@example.com" into "Email"`');
    expect(plan.notes).toEqual([]);
    expect(formatPlan(plan, FIXTURES)).toContain('4. ACT "make the page pop"  (model)');
    expect(formatPlan(plan, FIXTURES)).toContain('1. ACT "go to ${…}"  (grammar)');
  });

  it("reads the forms of issue 24 as grammar, with no finding", async () => {
    const plan = await planWorkflowFile(join(FIXTURES, "wording-shapes.ts"));
    expect(plan.steps.map((s) => s.interpreter)).toEqual(["grammar", "grammar", "grammar", "grammar"]);
    expect(plan.findings).toEqual([]);
  });

  it("agrees with the server on what the grammar refuses rather than guesses at: a compound value, a URL ending in `!`", async () => {
    const plan = await planWorkflowFile(join(FIXTURES, "wording-guesses.ts"));
    expect(plan.steps.map((s) => s.interpreter)).toEqual(["model", "model", "grammar", "grammar"]);
    expect(plan.findings.map((f) => `${f.line} ${f.code}`)).toEqual(["6 WF_LINT_ACT_NOT_UNDERSTOOD", "7 WF_LINT_ACT_NOT_UNDERSTOOD"]);
    expect(plan.findings[0]!.message).toContain('the part "submit the form"');
    expect(plan.findings[1]!.message).toContain("Quote the URL");
  });

  it("notes instead that the step will need the model when one is configured", async () => {
    const plan = await planWorkflowFile(file, { modelConfigured: true });
    expect(plan.findings).toEqual([]);
    expect(plan.notes.map((n) => `${n.line} ${n.code}`)).toEqual(["9 WF_NOTE_NEEDS_MODEL", "10 WF_NOTE_NEEDS_MODEL"]);
    expect(plan.notes[0]!.message).toContain("this step will need the model");
  });
});
