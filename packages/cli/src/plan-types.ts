/**
 * What `wf plan` and `wf check` say of a workflow file: its calls, the helper modules it reaches,
 * its findings and notes. Shared by the planner (`plan.ts`) and the lock's lint (`lock.ts`).
 */

/** One `act`/`ask`/`check` call found in a file. */
export interface PlannedStep {
  /** Position in source order, from 1. */
  index: number;
  /** `CHECK`: a `check()` or `check.soft()` call. */
  type: "ACT" | "ASK" | "CHECK";
  /** CHECK: true for `check.soft()`. */
  soft?: boolean;
  /** The instruction as written; template parts are shown as `${…}`, a non-literal argument as `${…}` too. */
  instruction: string;
  /** False when the instruction is not a literal or template (it is only known at run time). */
  literal: boolean;
  /** For an ASK: whether a schema is passed. */
  hasSchema: boolean;
  /** 1-based line and column of the call. */
  line: number;
  column: number;
  /**
   * For a literal ACT or CHECK: who will carry it out — `grammar` when the deterministic grammar
   * (the check grammar, for a CHECK) understands it (template parts read as placeholders), else
   * `model` (which needs a model configured; without one the step is a finding). Absent for ASK and
   * non-literal instructions.
   */
  interpreter?: "grammar" | "model";
  /**
   * ACT: the grammar instructions the action lock (`<workflow>.wf.lock.json`) replays for this
   * call, one string per entry (`; ` between actions); absent when no entry records it.
   */
  locked?: string[];
  /** ACT: true when no lock entry records it and the grammar does not understand it: a run needs the model. */
  needsModel?: boolean;
}

/**
 * A problem found without running the file. Codes: `WF_LINT_EMPTY_INSTRUCTION`,
 * `WF_LINT_ASK_NEEDS_SCHEMA` (an ASK without schema whose result is used as an object),
 * `WF_LINT_SCHEMA_UNSUPPORTED` (a schema construct strict structured outputs refuse),
 * `WF_LINT_ACT_NOT_UNDERSTOOD` (an ACT the grammar does not understand and no model is configured),
 * `WF_LINT_SYNTAX`, `TS<number>` for a TypeScript diagnostic (`wf check`), and
 * `WF_LOCK_STALE_ENTRY` for an entry of the action lock no `act` call uses (`wf check`; its `file`
 * is the lock file, line 0). The same shape carries notes (`WF_NOTE_NEEDS_MODEL`), which are not findings.
 */
export interface Finding {
  code: string;
  message: string;
  /** Absolute path. */
  file: string;
  /** 1-based; 0 when the diagnostic has no position. */
  line: number;
  column: number;
}

/** The `act`/`ask` calls of one helper module a workflow file imports. */
export interface PlannedModule {
  /** Absolute path. */
  file: string;
  /** Absolute path of the file whose relative import reached this module first. */
  importedBy: string;
  /** Its calls in source order, numbered from 1 within the module. */
  steps: PlannedStep[];
}

/** What {@link planWorkflowFile} returns. */
export interface PlanResult {
  /** Absolute path. */
  file: string;
  /** The calls written in the file itself. */
  steps: PlannedStep[];
  /**
   * Helper modules reached through the file's relative imports (`./…`, `../…`; transitively,
   * each module once, type-only imports skipped) that hold `act`/`ask` calls, in the order
   * first reached (depth-first, in import order).
   */
  modules: PlannedModule[];
  /** Findings of the file and of its helper modules (each names its `file`). */
  findings: Finding[];
  /**
   * Notes that are not problems: `WF_NOTE_NEEDS_MODEL` for an ACT the grammar does not
   * understand when a model is configured ("this step will need the model").
   */
  notes: Finding[];
  /**
   * The param names the file's `workflow({ params: z.object({ … }) })` declares (`[]` with no
   * `params`), read from the source; undefined when they cannot be read without running it (no
   * `workflow()` call, or params built some other way than an object literal of `z.object`).
   */
  params?: string[];
}
