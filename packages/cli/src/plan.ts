/**
 * `wf plan` and `wf check`: read workflow files with ts-morph without running them. `plan` lists
 * the `act`/`ask` calls in source order and lints them; `check` adds the TypeScript type-check.
 *
 * The parts: the lint of one file (`plan-lint.ts`) and the import graph (`plan-imports.ts`); this
 * module plans and checks whole workflows (helper modules, params, the action lock, the type-check)
 * and formats the results.
 */
import { access } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import type { Node as MorphNode, Project, SourceFile } from "ts-morph";
import { CliUsageError } from "./errors.js";
import { relativeImportsOf } from "./plan-imports.js";
import { lintSourceFile, type LintOptions } from "./plan-lint.js";
import type { Finding, PlannedStep, PlanResult } from "./plan-types.js";

export type { Finding, PlannedModule, PlannedStep, PlanResult } from "./plan-types.js";
export { workflowDependencies } from "./plan-imports.js";
export { grammarProblem } from "./plan-lint.js";

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
    const entries = lock.entries.filter((e) => e.callSite.startsWith(site) && !e.read);
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

/**
 * `file` resolved against `cwd`.
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when it does not exist.
 */
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
