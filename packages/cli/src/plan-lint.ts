/**
 * The lint of `wf plan` and `wf check` for one file, read with ts-morph and never run: its
 * `act`/`ask`/`check` calls in source order and the findings on them (an empty instruction, an ACT
 * or CHECK neither grammar understands without a model, an ASK answer used as an object without a
 * schema, schema constructs strict structured output refuses).
 */
import type { CallExpression, Node as MorphNode, SourceFile } from "ts-morph";
import { ACT_GRAMMAR, parseInstructions } from "@wf/server/grammar";
import { parseCheck } from "@wf/server/check-grammar";
import type { Finding, PlannedStep, PlanResult } from "./plan-types.js";

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
 * The calls and lint findings of one file. `defaultStepNames`: when the file imports neither
 * `act`/`ask` nor a namespace of `@wf/core`, treat bare `act(…)`/`ask(…)` calls as steps (true for
 * the workflow file; a helper module that imports neither has no steps).
 */
export interface LintOptions {
  defaultStepNames?: boolean;
  modelConfigured?: boolean;
}

/** Lints one file: its steps in source order, findings and notes (`modules` is left empty). */
export async function lintSourceFile(sourceFile: SourceFile, options: LintOptions = {}): Promise<PlanResult> {
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
        finding(first, "WF_LINT_ACT_NOT_UNDERSTOOD", `act(${JSON.stringify(truncate(instruction, 60))}) is not understood by the grammar and no model is configured (WF_MODEL): ${briefProblem(problem, instruction)}`);
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

/**
 * A grammar refusal as a finding says it: what was not understood, the forms of the verbs closest
 * to the instruction's first word (a typo, or a verb without its quotes), and the verbs the grammar
 * starts with, in place of the parser's list of every form with examples (~1.3 KB per finding).
 */
export function briefProblem(problem: string, instruction: string): string {
  const cut = problem.indexOf(" The deterministic interpreter understands:");
  const head = cut >= 0 ? problem.slice(0, cut) : problem;
  const forms = new Map<string, string[]>();
  for (const rule of ACT_GRAMMAR) forms.set(rule.verb, [...(forms.get(rule.verb) ?? []), ...rule.examples]);
  const firstWord = (text: string) => /^[a-z-]+/i.exec(text.trim())?.[0]?.toLowerCase() ?? "";
  const word = firstWord(instruction);
  const distance = (verb: string) => Math.min(...(forms.get(verb) ?? []).map((example) => editDistance(word, firstWord(example))));
  const closest = word ? [...forms.keys()].filter((verb) => distance(verb) <= (word.length <= 4 ? 1 : 2)).sort((a, b) => distance(a) - distance(b)).slice(0, 2) : [];
  const starts = [...new Set([...forms.values()].flatMap((examples) => examples.map(firstWord)))].filter(Boolean);
  const near = closest.map((verb) => forms.get(verb)!.slice(0, 3).map((e) => `\`${e}\``).join(", "));
  return `${head}${near.length ? ` Closest form${near.length > 1 || near[0]!.includes(", ") ? "s" : ""}: ${near.join("; ")}.` : ""} The grammar's steps start with: ${starts.join(", ")}; quote targets and values ("…").`;
}

/** Edits to turn `a` into `b`: insertions, deletions, substitutions and swaps of two neighbours (`tpye` → `type` is 1). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
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

/** `text` cut to `max` characters, an ellipsis last. */
function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
