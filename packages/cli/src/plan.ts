/**
 * `wf plan` and `wf check`: read workflow files with ts-morph without running them. `plan` lists
 * the `act`/`ask` calls in source order and lints them; `check` adds the TypeScript type-check.
 */
import { statSync } from "node:fs";
import { access } from "node:fs/promises";
import { dirname, extname, join, relative, resolve } from "node:path";
import type { CallExpression, Node as MorphNode, Project, SourceFile } from "ts-morph";
import { parseInstructions } from "@wf/server/grammar";
import { parseCheck } from "@wf/server/check-grammar";
import { CliUsageError } from "./errors.js";
import type { Finding, PlannedModule, PlannedStep, PlanResult } from "./plan-types.js";

export type { Finding, PlannedModule, PlannedStep, PlanResult } from "./plan-types.js";





/** Options of {@link planWorkflowFile} and {@link checkWorkflowFiles}. */
export interface PlanOptions {
  /** @default process.cwd() */
  cwd?: string;
  /**
   * Whether a model is configured for the run (env `WF_MODEL`, or `model` in the wf.config): an
   * ACT the grammar does not understand is then a note, not a finding. @default false
   */
  modelConfigured?: boolean;
}

/**
 * zod constructors whose schemas OpenAI strict structured outputs cannot express (see the
 * translator in `@wf/core`): open-ended keys, untyped values, and values JSON cannot carry.
 */
const UNSUPPORTED_ZOD: Record<string, string> = {
  record: "z.record() has open-ended keys; strict mode needs every property named. Use z.object({...}) or an array of { key, value }.",
  any: "z.any() has no type; strict mode needs one. Give the value a type (z.string(), z.object({...})).",
  unknown: "z.unknown() has no type; strict mode needs one. Give the value a type (z.string(), z.object({...})).",
  map: "z.map() is not JSON. Use an array of { key, value } objects.",
  set: "z.set() is not JSON. Use z.array().",
  function: "z.function() is not JSON.",
  promise: "z.promise() is not JSON.",
  custom: "z.custom() cannot be translated to JSON Schema.",
  instanceof: "z.instanceof() cannot be translated to JSON Schema.",
  symbol: "z.symbol() is not JSON.",
  bigint: "z.bigint() is not JSON. Use z.number() or z.string().",
  undefined: "z.undefined() is not JSON. Use .nullable() for a missing value.",
  void: "z.void() is not JSON.",
  never: "z.never() has no values.",
  date: "z.date() is not JSON. Use z.string() (an ISO date) and convert.",
};

/**
 * Reads a workflow file without running it: its `act`/`ask` calls in source order, those of the
 * helper modules it imports by relative path (see {@link PlanResult.modules}), and the lint
 * findings of all of them (empty instruction, ASK result used as an object without a schema,
 * schema constructs strict mode refuses, syntax errors).
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when the file does not exist.
 */
export async function planWorkflowFile(file: string, options: PlanOptions = {}): Promise<PlanResult> {
  const path = await existingFile(file, options.cwd);
  const { Project } = await import("ts-morph");
  const project = new Project({ skipFileDependencyResolution: true, skipLoadingLibFiles: true, compilerOptions: { allowJs: true, noEmit: true } });
  const sourceFile = project.addSourceFileAtPath(path);
  const lintOptions = { modelConfigured: options.modelConfigured ?? false };
  const result = await lintSourceFile(sourceFile, lintOptions);
  const syntax = project.getProgram().getSyntacticDiagnostics(sourceFile);
  for (const d of syntax) result.findings.unshift(toFinding(d.compilerObject, "WF_LINT_SYNTAX"));
  await planHelperModules(project, sourceFile, result, true, lintOptions);
  const params = await declaredParams(sourceFile);
  if (params) result.params = params;
  await annotateLock(result);
  return result;
}

/** See {@link PlanResult.params}: the keys of the `z.object({ … })` a `workflow()` call's `params` is (directly or through a `const`). */
async function declaredParams(sourceFile: SourceFile): Promise<string[] | undefined> {
  const { Node, SyntaxKind } = await import("ts-morph");
  const call = sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression).find((c) => /(^|\.)workflow$/.test(c.getExpression().getText()));
  const options = call?.getArguments()[0];
  if (!options || !Node.isObjectLiteralExpression(options)) return undefined;
  const property = options.getProperty("params");
  if (!property) return options.getProperties().some((p) => Node.isSpreadAssignment(p)) ? undefined : [];
  let schema: MorphNode | undefined = Node.isPropertyAssignment(property) ? property.getInitializer() : Node.isShorthandPropertyAssignment(property) ? property.getNameNode() : undefined;
  if (schema && Node.isIdentifier(schema)) {
    const declaration = sourceFile.getVariableDeclaration(schema.getText());
    schema = declaration?.getInitializer();
  }
  if (!schema || !Node.isCallExpression(schema)) return undefined;
  const callee = schema.getExpression();
  const shape = schema.getArguments()[0];
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== "object" || !shape || !Node.isObjectLiteralExpression(shape)) return undefined;
  const names: string[] = [];
  for (const p of shape.getProperties()) {
    if (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) names.push(p.getName().replace(/^["']|["']$/g, ""));
    else return undefined;
  }
  return names;
}

/** Marks each ACT with what the workflow's action lock replays for it, or that it needs the model. */
async function annotateLock(result: PlanResult): Promise<void> {
  const acts = [{ file: result.file, steps: result.steps }, ...result.modules].flatMap((m) => m.steps.filter((s) => s.type === "ACT").map((step) => ({ file: m.file, step })));
  if (acts.length === 0) return;
  const { lockPathFor, readLock } = await import("@wf/runtime");
  const lockPath = lockPathFor(result.file);
  const lock = await readLock(lockPath);
  const { parseInstructions } = await import("@wf/server");
  for (const { file, step } of acts) {
    const site = `${relative(dirname(lockPath), file).split("\\").join("/")}:${step.line}:`;
    const entries = lock.entries.filter((e) => e.callSite.startsWith(site));
    if (entries.length > 0) {
      step.locked = entries.map((e) => e.actions.map((a) => a.instruction).join("; "));
      continue;
    }
    if (!step.literal) continue;
    try {
      // Template parts stand for values: parse with a stand-in so `type "${…}" into "Name"` reads as the grammar would.
      parseInstructions(step.instruction.replace(/\$\{…\}/g, "x"));
    } catch {
      step.needsModel = true;
    }
  }
}

/**
 * Adds to `result` the helper modules `sourceFile` reaches through relative imports: each module's
 * calls (when it has any) and its findings, plus its syntax errors with `syntax`.
 */
async function planHelperModules(project: Project, sourceFile: SourceFile, result: PlanResult, syntax: boolean, lintOptions: LintOptions): Promise<void> {
  const seen = new Set<string>([sourceFile.getFilePath()]);
  const visit = async (from: SourceFile) => {
    for (const path of relativeImportsOf(from)) {
      if (seen.has(path)) continue;
      seen.add(path);
      const helper = project.getSourceFile(path) ?? project.addSourceFileAtPath(path);
      const lint = await lintSourceFile(helper, { ...lintOptions, defaultStepNames: false });
      const findings = syntax ? project.getProgram().getSyntacticDiagnostics(helper).map((d) => toFinding(d.compilerObject, "WF_LINT_SYNTAX")) : [];
      findings.push(...lint.findings);
      if (lint.steps.length > 0) result.modules.push({ file: helper.getFilePath(), importedBy: from.getFilePath(), steps: lint.steps });
      result.findings.push(...findings);
      result.notes.push(...lint.notes);
      await visit(helper);
    }
  };
  await visit(sourceFile);
}

/**
 * The files `file` depends on through relative imports, transitively (itself first; type-only
 * imports and packages left out): what `wf run --watch` re-runs a workflow for when one of them
 * is saved. Reads the files statically, as {@link planWorkflowFile} does; a file that does not
 * parse still yields the imports it can read.
 *
 * @param file - absolute path of a workflow file.
 * @returns absolute paths, the file first.
 */
export async function workflowDependencies(file: string): Promise<string[]> {
  const { Project } = await import("ts-morph");
  const project = new Project({ skipFileDependencyResolution: true, skipLoadingLibFiles: true, compilerOptions: { allowJs: true, noEmit: true } });
  const root = resolve(file);
  const seen = [root];
  if (!isFile(root)) return seen;
  const visit = (from: SourceFile) => {
    for (const path of relativeImportsOf(from)) {
      if (seen.includes(path)) continue;
      seen.push(path);
      visit(project.getSourceFile(path) ?? project.addSourceFileAtPath(path));
    }
  };
  visit(project.addSourceFileAtPath(root));
  return seen;
}

/** Extensions of the modules a relative import may name; `.js` in an import names a `.ts` file (NodeNext). */
const SOURCE_EXTENSIONS: Record<string, string[]> = {
  ".ts": [".ts"],
  ".tsx": [".tsx"],
  ".mts": [".mts"],
  ".cts": [".cts"],
  ".js": [".ts", ".tsx", ".js"],
  ".jsx": [".tsx", ".jsx"],
  ".mjs": [".mts", ".mjs"],
  ".cjs": [".cts", ".cjs"],
};

/**
 * Absolute paths of the source files `sourceFile` imports or re-exports by relative path, in
 * source order; type-only imports and paths that name no source file (JSON, missing) are left out.
 */
function relativeImportsOf(sourceFile: SourceFile): string[] {
  const specifiers: string[] = [];
  for (const decl of sourceFile.getImportDeclarations()) if (!decl.isTypeOnly()) specifiers.push(decl.getModuleSpecifierValue());
  for (const decl of sourceFile.getExportDeclarations()) {
    const specifier = decl.getModuleSpecifierValue();
    if (specifier !== undefined && !decl.isTypeOnly()) specifiers.push(specifier);
  }
  const out: string[] = [];
  for (const specifier of specifiers) {
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
    const base = resolve(dirname(sourceFile.getFilePath()), specifier);
    const ext = extname(base);
    const candidates = SOURCE_EXTENSIONS[ext]
      ? SOURCE_EXTENSIONS[ext]!.map((e) => base.slice(0, -ext.length) + e)
      : [".ts", ".tsx", ".mts", ".js", "/index.ts", "/index.js"].map((e) => (e.startsWith("/") ? join(base, e) : base + e));
    const found = candidates.find(isFile);
    if (found && !out.includes(found)) out.push(found);
  }
  return out;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What {@link checkWorkflowFiles} returns. */
export interface CheckResult {
  /** One entry per file, in the order given; `findings` holds lint findings and type errors. */
  files: PlanResult[];
  /** Total findings over all files. */
  findingCount: number;
  /** The tsconfig used, if one was found above the first file. */
  tsconfig: string | undefined;
}

/**
 * Type-checks workflow files (with the nearest `tsconfig.json` above the first file, else strict
 * NodeNext defaults) and runs the {@link planWorkflowFile} lint on each.
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when a file does not exist, `WF_CLI_USAGE` when none is given.
 */
export async function checkWorkflowFiles(files: ReadonlyArray<string>, options: PlanOptions = {}): Promise<CheckResult> {
  if (files.length === 0) throw new CliUsageError("WF_CLI_USAGE", "wf check needs at least one workflow file, like `wf check workflows/*.ts`.");
  const paths: string[] = [];
  for (const file of files) paths.push(await existingFile(file, options.cwd));
  const morph = await import("ts-morph");
  const tsconfig = morph.ts.findConfigFile(dirname(paths[0]!), morph.ts.sys.fileExists);
  const project: Project = tsconfig
    ? new morph.Project({ tsConfigFilePath: tsconfig, skipAddingFilesFromTsConfig: true, compilerOptions: { noEmit: true } })
    : new morph.Project({
        compilerOptions: {
          target: morph.ts.ScriptTarget.ES2022,
          module: morph.ts.ModuleKind.NodeNext,
          moduleResolution: morph.ts.ModuleResolutionKind.NodeNext,
          strict: true,
          skipLibCheck: true,
          noEmit: true,
          allowImportingTsExtensions: true,
        },
      });
  const sourceFiles = paths.map((p) => project.addSourceFileAtPath(p));
  project.resolveSourceFileDependencies();
  const program = typeCheckingProgram(morph, project, sourceFiles.map((sf) => sf.getFilePath()));
  const results: PlanResult[] = [];
  for (const sourceFile of sourceFiles) {
    const lintOptions = { modelConfigured: options.modelConfigured ?? false };
    const result = await lintSourceFile(sourceFile, lintOptions);
    const checked = program.getSourceFile(sourceFile.getFilePath());
    const diagnostics = checked ? [...program.getSyntacticDiagnostics(checked), ...program.getSemanticDiagnostics(checked)] : [];
    result.findings.unshift(...diagnostics.map((d) => toFinding(d)));
    // Helper modules are linted like the file; their type errors show in the file's diagnostics
    // only where the file uses them, so they are not type-checked on their own here.
    await planHelperModules(project, sourceFile, result, false, lintOptions);
    // Entries of the action lock that no act() call uses any more.
    const { lockFindings } = await import("./lock-lint.js");
    result.findings.push(...(await lockFindings(result)));
    results.push(result);
  }
  return { files: results, findingCount: results.reduce((n, r) => n + r.findings.length, 0), tsconfig };
}

/**
 * Formats a plan for people: the steps, then the findings as `file:line:col code message`.
 *
 * @param cwd - paths are shown relative to it. @default process.cwd()
 */
export function formatPlan(result: PlanResult, cwd: string = process.cwd()): string {
  const show = (file: string) => relative(cwd, file) || file;
  const rel = show(result.file);
  const count = (n: number) => `${n} step${n === 1 ? "" : "s"}`;
  const stepLines = (steps: ReadonlyArray<PlannedStep>, file: string) =>
    steps.map((step) => {
      const extra = step.type === "ASK" ? (step.hasSchema ? "  (schema)" : "  (text)") : step.interpreter ? `  (${step.soft ? "soft, " : ""}${step.interpreter})` : step.soft ? "  (soft)" : "";
      const head = `  ${String(step.index).padStart(2)}. ${step.type} ${JSON.stringify(step.instruction)}${extra}  ${show(file)}:${step.line}:${step.column}`;
      const lock = step.locked ? step.locked.map((l) => `\n      ↳ locked: ${l}`).join("") : step.needsModel ? "\n      ↳ needs the model (no lock entry)" : "";
      return head + lock;
    });
  const lines = [`${rel}: ${count(result.steps.length)}`, ...stepLines(result.steps, result.file)];
  for (const module of result.modules ?? []) {
    lines.push(`${show(module.file)} (imported by ${show(module.importedBy)}): ${count(module.steps.length)}`, ...stepLines(module.steps, module.file));
  }
  lines.push(...formatFindings(result.findings, cwd));
  lines.push(...formatFindings(result.notes ?? [], cwd));
  return lines.join("\n");
}

/** Formats findings, one per line: `file:line:col  CODE  message`. */
export function formatFindings(findings: ReadonlyArray<Finding>, cwd: string = process.cwd()): string[] {
  return findings.map((f) => `  ${relative(cwd, f.file) || f.file}:${f.line}:${f.column}  ${f.code}  ${f.message.replace(/\n\s*/g, " ")}`);
}

async function existingFile(file: string, cwd: string = process.cwd()): Promise<string> {
  const path = resolve(cwd, file);
  try {
    await access(path);
  } catch {
    throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `Workflow file not found: ${path}. Check the path (it is relative to ${cwd}).`, { path });
  }
  return path;
}

/** Where ts-morph keeps TypeScript's own declaration files (in memory, not on disk). */
const TS_LIB_FOLDER = "/node_modules/typescript/lib";

/**
 * The program `wf check` type-checks with: TypeScript's own compiler host for the user's files and
 * packages, ts-morph's in-memory copies of TypeScript's lib files. ts-morph's host ignores the
 * module format TypeScript asks a file to be parsed in, so under `module: NodeNext` every file of a
 * `"type": "module"` project read as CommonJS and `import.meta` was a false TS1470 (ts-morph issue
 * #1446); TypeScript's host parses each file in the format its package.json implies, as `tsc` does.
 */
function typeCheckingProgram(morph: typeof import("ts-morph"), project: Project, rootNames: string[]): import("ts-morph").ts.Program {
  const ts = morph.ts;
  const options = project.getCompilerOptions();
  const host = ts.createCompilerHost(options, true);
  const inLib = (file: string) => file.startsWith(`${TS_LIB_FOLDER}/`);
  const libFile = (file: string) => project.getSourceFile(file) ?? project.addSourceFileAtPathIfExists(file);
  const { fileExists, readFile, getSourceFile } = host;
  host.getDefaultLibLocation = () => TS_LIB_FOLDER;
  host.getDefaultLibFileName = (o) => `${TS_LIB_FOLDER}/${ts.getDefaultLibFileName(o)}`;
  host.fileExists = (file) => (inLib(file) ? libFile(file) !== undefined : fileExists.call(host, file));
  host.readFile = (file) => (inLib(file) ? libFile(file)?.getFullText() : readFile.call(host, file));
  host.getSourceFile = (file, languageVersionOrOptions, onError, shouldCreate) =>
    inLib(file) ? libFile(file)?.compilerNode : getSourceFile.call(host, file, languageVersionOrOptions, onError, shouldCreate);
  return ts.createProgram({ rootNames, options, host });
}

/**
 * A TypeScript diagnostic as a finding: line and column 1-based, the message's first line (of a
 * chain, its head). ts-morph's diagnostics pass their `compilerObject`.
 */
function toFinding(d: import("ts-morph").ts.Diagnostic, code?: string): Finding {
  const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  return {
    code: code ?? `TS${d.code}`,
    message: typeof d.messageText === "string" ? d.messageText : d.messageText.messageText,
    file: d.file?.fileName ?? "",
    line: pos ? pos.line + 1 : 0,
    column: pos ? pos.character + 1 : 0,
  };
}

/**
 * The calls and lint findings of one file. `defaultStepNames`: when the file imports neither
 * `act`/`ask` nor a namespace of `@wf/core`, treat bare `act(…)`/`ask(…)` calls as steps (true for
 * the workflow file; a helper module that imports neither has no steps).
 */
interface LintOptions {
  defaultStepNames?: boolean;
  modelConfigured?: boolean;
}

async function lintSourceFile(sourceFile: SourceFile, options: LintOptions = {}): Promise<PlanResult> {
  const { Node, SyntaxKind } = await import("ts-morph");
  const notes: Finding[] = [];
  const file = sourceFile.getFilePath();
  const findings: Finding[] = [];
  const at = (node: MorphNode) => sourceFile.getLineAndColumnAtPos(node.getStart());
  const finding = (node: MorphNode, code: string, message: string) => {
    const pos = at(node);
    findings.push({ code, message, file, line: pos.line, column: pos.column });
  };

  // Which local names are act/ask (imports may rename them) and which are zod.
  const stepNames = new Map<string, "ACT" | "ASK" | "CHECK">();
  const namespaces = new Set<string>();
  const zodNames = new Set<string>();
  for (const decl of sourceFile.getImportDeclarations()) {
    const from = decl.getModuleSpecifierValue();
    if (from === "zod" || from.startsWith("zod/")) {
      for (const named of decl.getNamedImports()) if (named.getName() === "z") zodNames.add(named.getAliasNode()?.getText() ?? "z");
      const ns = decl.getNamespaceImport() ?? decl.getDefaultImport();
      if (ns) zodNames.add(ns.getText());
      continue;
    }
    for (const named of decl.getNamedImports()) {
      const name = named.getName();
      if (name === "act" || name === "ask" || name === "check") stepNames.set(named.getAliasNode()?.getText() ?? name, STEP_TYPES[name]);
    }
    if (/(^|\/)wf\/core$|^@wf\/core/.test(from)) {
      const ns = decl.getNamespaceImport();
      if (ns) namespaces.add(ns.getText());
    }
  }
  if (stepNames.size === 0 && namespaces.size === 0 && options.defaultStepNames === false) return { file, steps: [], modules: [], findings: [], notes: [] };
  if (stepNames.size === 0 && namespaces.size === 0) {
    stepNames.set("act", "ACT");
    stepNames.set("ask", "ASK");
    stepNames.set("check", "CHECK");
  }
  if (zodNames.size === 0) zodNames.add("z");

  /** The step a callee names: `act`, `ask`, `check`, `wf.act`…; `check.soft` (and `wf.check.soft`) is a soft CHECK. */
  const calleeType = (callee: MorphNode): "ACT" | "ASK" | "CHECK" | undefined => {
    if (Node.isIdentifier(callee)) return stepNames.get(callee.getText());
    if (Node.isPropertyAccessExpression(callee) && namespaces.has(callee.getExpression().getText())) {
      const name = callee.getName();
      return name === "act" || name === "ask" || name === "check" ? STEP_TYPES[name] : undefined;
    }
    return undefined;
  };
  const stepTypeOf = (call: CallExpression): { type: "ACT" | "ASK" | "CHECK"; soft: boolean } | undefined => {
    const callee = call.getExpression();
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === "soft" && calleeType(callee.getExpression()) === "CHECK") return { type: "CHECK", soft: true };
    const type = calleeType(callee);
    return type ? { type, soft: false } : undefined;
  };

  const calls = sourceFile
    .getDescendantsOfKind(SyntaxKind.CallExpression)
    .map((call) => ({ call, kind: stepTypeOf(call) }))
    .filter((c): c is { call: CallExpression; kind: { type: "ACT" | "ASK" | "CHECK"; soft: boolean } } => c.kind !== undefined)
    .sort((a, b) => a.call.getStart() - b.call.getStart());

  const steps: PlannedStep[] = [];
  for (const { call, kind } of calls) {
    const { type } = kind;
    const [first, second] = call.getArguments();
    let instruction = "";
    let literal = true;
    if (first === undefined) {
      literal = true;
    } else if (Node.isStringLiteral(first) || Node.isNoSubstitutionTemplateLiteral(first)) {
      instruction = first.getLiteralText();
    } else if (Node.isTemplateExpression(first)) {
      instruction = first.getHead().getLiteralText() + first.getTemplateSpans().map((span) => "${…}" + span.getLiteral().getLiteralText()).join("");
    } else {
      literal = false;
      instruction = "${…}";
    }
    const hasSchema = type === "ASK" && second !== undefined && !Node.isObjectLiteralExpression(second);
    const pos = at(call);
    const step: PlannedStep = { index: steps.length + 1, type, ...(kind.soft ? { soft: true } : {}), instruction, literal, hasSchema, line: pos.line, column: pos.column };
    steps.push(step);
    if (type === "CHECK" && literal && instruction.trim() !== "" && first) {
      // A template part reads as a quoted value: `the page shows "${…}"`.
      const understood = parseCheck(instruction.replace(/\$\{…\}/g, "x")) !== undefined;
      step.interpreter = understood ? "grammar" : "model";
      const p = at(first);
      const call = `check${kind.soft ? ".soft" : ""}(${JSON.stringify(truncate(instruction, 60))})`;
      if (!understood && options.modelConfigured) {
        notes.push({ code: "WF_NOTE_NEEDS_MODEL", message: `${call}: this check will need the model (it is in none of the check grammar's forms).`, file, line: p.line, column: p.column });
      } else if (!understood) {
        finding(first, "WF_LINT_CHECK_NOT_UNDERSTOOD", `${call} is in none of the check grammar's forms and no model is configured (WF_MODEL). Write it like \`the page shows "…"\`, \`"…" is visible\`, \`the URL contains "…"\` (see the README, "Checks").`);
      }
    }
    if (type === "ACT" && literal && instruction.trim() !== "" && first) {
      const problem = grammarProblem(instruction, parseInstructions);
      step.interpreter = problem ? "model" : "grammar";
      if (problem && options.modelConfigured) {
        const p = at(first);
        notes.push({ code: "WF_NOTE_NEEDS_MODEL", message: `act(${JSON.stringify(truncate(instruction, 60))}): this step will need the model (the grammar does not understand it).`, file, line: p.line, column: p.column });
      } else if (problem) {
        finding(first, "WF_LINT_ACT_NOT_UNDERSTOOD", `act(${JSON.stringify(truncate(instruction, 60))}) is not understood by the grammar and no model is configured (WF_MODEL): ${problem}`);
      }
    }

    const fn = type === "ACT" ? "act" : type === "ASK" ? "ask" : "check";
    // A template of placeholders only (`${x}`) is dynamic, not empty.
    if (literal && instruction.trim() === "") {
      finding(first ?? call, "WF_LINT_EMPTY_INSTRUCTION", `${fn}() has an empty instruction; the step would fail at run time. Write what to do, like ${type === "ACT" ? '`click "Sign in"`' : type === "CHECK" ? '`the page shows "Saved"`' : '"the title of the page"'}.`);
    }
    if (type === "ASK" && !hasSchema) {
      const use = objectUseOf(call, Node, SyntaxKind);
      if (use) {
        finding(
          use,
          "WF_LINT_ASK_NEEDS_SCHEMA",
          `The answer of ask(${JSON.stringify(truncate(instruction, 60))}) is used as an object (${use.getText().length > 40 ? "here" : use.getText()}), but ask() without a schema returns text. Pass a zod schema: ask("…", z.object({ … })).`,
        );
      }
    }
    if (type === "ASK" && hasSchema && second) {
      for (const bad of unsupportedSchemaParts(second, zodNames, Node, SyntaxKind)) {
        finding(bad.node, "WF_LINT_SCHEMA_UNSUPPORTED", `The schema of ask(${JSON.stringify(truncate(instruction, 60))}) uses ${bad.text}: ${UNSUPPORTED_ZOD[bad.kind]}`);
      }
    }
  }
  return { file, steps, modules: [], findings, notes };
}

/** The step type each DSL function makes. */
const STEP_TYPES = { act: "ACT", ask: "ASK", check: "CHECK" } as const;

/** A template part as `plan` shows it. */
const PLACEHOLDER = "${…}";

/**
 * Why the grammar does not understand an ACT instruction, or undefined when it does. Template parts
 * are placeholders: the instruction is understood when it parses with them read as a word
 * (`click "${…}"`) or as a URL (`go to ${…}`).
 */
export function grammarProblem(instruction: string, parse: (instruction: string) => unknown): string | undefined {
  const fills = instruction.includes(PLACEHOLDER) ? ["x", "https://example.test/x", '"x"'] : [""];
  let message: string | undefined;
  for (const fill of fills) {
    try {
      parse(instruction.split(PLACEHOLDER).join(fill));
      return undefined;
    } catch (error) {
      message ??= (error instanceof Error ? error.message : String(error)).split(PLACEHOLDER).join("${…}");
    }
  }
  return message;
}

type NodeApi = typeof import("ts-morph").Node;
type Kinds = typeof import("ts-morph").SyntaxKind;

/** Where the result of an ASK call is used as an object, if it is: property access, element access, destructuring. */
function objectUseOf(call: CallExpression, Node: NodeApi, SyntaxKind: Kinds): MorphNode | undefined {
  let expr: MorphNode = call;
  let parent = expr.getParent();
  while (parent && (Node.isAwaitExpression(parent) || Node.isParenthesizedExpression(parent) || Node.isNonNullExpression(parent))) {
    expr = parent;
    parent = parent.getParent();
  }
  if (!parent) return undefined;
  if ((Node.isPropertyAccessExpression(parent) || Node.isElementAccessExpression(parent)) && parent.getExpression() === expr) return parent;
  if (Node.isVariableDeclaration(parent) && parent.getInitializer() === expr) {
    const name = parent.getNameNode();
    if (Node.isObjectBindingPattern(name) || Node.isArrayBindingPattern(name)) return name;
    if (Node.isIdentifier(name)) {
      for (const ref of name.findReferencesAsNodes()) {
        if (ref.getSourceFile() !== call.getSourceFile()) continue;
        const refParent = ref.getParent();
        if (!refParent) continue;
        if ((Node.isPropertyAccessExpression(refParent) || Node.isElementAccessExpression(refParent)) && refParent.getExpression() === ref) {
          // `answer.length` and string methods are fine on text.
          const prop = Node.isPropertyAccessExpression(refParent) ? refParent.getName() : undefined;
          if (prop !== undefined && prop in String.prototype) continue;
          return refParent;
        }
        if (Node.isVariableDeclaration(refParent) && refParent.getInitializer() === ref) {
          const n = refParent.getNameNode();
          if (Node.isObjectBindingPattern(n) || Node.isArrayBindingPattern(n)) return n;
        }
      }
    }
  }
  if (Node.isBinaryExpression(parent) && parent.getOperatorToken().getKind() === SyntaxKind.EqualsToken && parent.getRight() === expr) {
    const left = parent.getLeft();
    if (Node.isObjectLiteralExpression(left) || Node.isArrayLiteralExpression(left)) return left;
  }
  return undefined;
}

/** zod calls in a schema expression (and in the `const`s it references in the same file) that strict mode refuses. */
function unsupportedSchemaParts(
  root: MorphNode,
  zodNames: ReadonlySet<string>,
  Node: NodeApi,
  SyntaxKind: Kinds,
): Array<{ node: MorphNode; kind: string; text: string }> {
  const out: Array<{ node: MorphNode; kind: string; text: string }> = [];
  const seen = new Set<MorphNode>();
  const visit = (node: MorphNode) => {
    if (seen.has(node)) return;
    seen.add(node);
    const nodes = [node, ...node.getDescendants()];
    for (const n of nodes) {
      if (Node.isCallExpression(n)) {
        const callee = n.getExpression();
        if (Node.isPropertyAccessExpression(callee) && zodNames.has(callee.getExpression().getText()) && Object.hasOwn(UNSUPPORTED_ZOD, callee.getName())) {
          out.push({ node: n, kind: callee.getName(), text: `${callee.getText()}()` });
        }
      }
      if (Node.isIdentifier(n) && !zodNames.has(n.getText())) {
        const parent = n.getParent();
        // Only value references, not property names (`.object`, `{ name: ... }`).
        if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === n) continue;
        if (parent && Node.isPropertyAssignment(parent) && parent.getNameNode() === n) continue;
        for (const decl of n.getSymbol()?.getDeclarations() ?? []) {
          if (!Node.isVariableDeclaration(decl) || decl.getSourceFile() !== root.getSourceFile()) continue;
          const list = decl.getParentIfKind(SyntaxKind.VariableDeclarationList);
          const init = decl.getInitializer();
          if (init && list && list.getFlags() & 2 /* ts.NodeFlags.Const */) visit(init);
        }
      }
    }
  };
  visit(root);
  return out;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
