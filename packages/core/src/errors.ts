/**
 * Errors of `@wf/core`. Every error of the project derives from {@link WfError}: a stable `code`,
 * readonly context fields and an optional `cause`. Messages say what happened and what to do.
 */

/** Base of every wf error. `code` is stable (`WF_STEP_FAILED`); match on it, not on the message. */
export class WfError extends Error {
  override name = "WfError";
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * True when `error` is a wf error, including one made by a second copy of `@wf/core` (a user's
 * workflow file may load its own): checks the `code` prefix rather than `instanceof` alone.
 */
export function isWfError(error: unknown): error is WfError {
  if (error instanceof WfError) return true;
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("WF_");
}

/** `act`/`ask` was called with no workflow run in progress. Code `WF_NO_RUN_CONTEXT`. */
export class WorkflowContextError extends WfError {
  override name = "WorkflowContextError";
  constructor(what: string) {
    super(
      "WF_NO_RUN_CONTEXT",
      `${what}() was called outside a workflow run. Call it from a workflow handler (or a helper it calls) ` +
        `and run the file with \`wf run <file>\`, or bind an executor with runWithExecutor().`,
    );
  }
}

/** A zod schema cannot be expressed in OpenAI's strict structured outputs. Code `WF_SCHEMA_UNSUPPORTED`. */
export class SchemaTranslationError extends WfError {
  override name = "SchemaTranslationError";
  /** Path of the offending construct inside the zod schema, e.g. `["items", 0, "tags"]`; `[]` is the root. */
  readonly path: ReadonlyArray<string | number>;
  /** Why strict mode cannot take it and what to write instead. */
  readonly reason: string;

  constructor(path: ReadonlyArray<string | number>, reason: string, options?: { cause?: unknown }) {
    super("WF_SCHEMA_UNSUPPORTED", `Schema at ${formatPath(path)} cannot be used as a structured output: ${reason}`, options);
    this.path = path;
    this.reason = reason;
  }
}

/** One zod issue, as carried by validation errors: a path and a message. */
export interface ValidationIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
}

/** An ASK answer did not match the user's schema. Code `WF_ANSWER_INVALID`. */
export class AnswerValidationError extends WfError {
  override name = "AnswerValidationError";
  /** The zod issues of the failed parse. */
  readonly issues: ReadonlyArray<ValidationIssue>;
  /** The answer exactly as the service sent it. */
  readonly raw: unknown;

  constructor(issues: ReadonlyArray<ValidationIssue>, raw: unknown) {
    super("WF_ANSWER_INVALID", `The answer does not match the schema: ${formatIssues(issues)}`);
    this.issues = issues;
    this.raw = raw;
  }
}

/** The params of a run do not match the workflow's `params` schema. Code `WF_PARAMS_INVALID`. */
export class ParamsValidationError extends WfError {
  override name = "ParamsValidationError";
  readonly issues: ReadonlyArray<ValidationIssue>;

  constructor(workflowName: string, issues: ReadonlyArray<ValidationIssue>) {
    super(
      "WF_PARAMS_INVALID",
      `Invalid params for workflow "${workflowName}":\n${issues.map((i) => `  - ${formatPath(i.path)}: ${i.message}`).join("\n")}\n` +
        `Pass them as --param key=value or in a --params-file.`,
    );
    this.issues = issues;
  }
}

/** The handler's return value does not match the workflow's `output` schema. Code `WF_OUTPUT_INVALID`. */
export class OutputValidationError extends WfError {
  override name = "OutputValidationError";
  readonly issues: ReadonlyArray<ValidationIssue>;

  constructor(workflowName: string, issues: ReadonlyArray<ValidationIssue>) {
    super("WF_OUTPUT_INVALID", `Workflow "${workflowName}" returned an output that does not match its output schema: ${formatIssues(issues)}`);
    this.issues = issues;
  }
}

/** What `StepFailedError` knows of the failed step. */
export interface StepFailure {
  /** Position of the step in the run, from 1 (as shown to people). */
  index: number;
  type: "ACT" | "ASK" | "CHECK";
  instruction: string;
  /** The service's step id, when it got one. */
  stepId?: string;
  /** The service's error code, e.g. `WF_ELEMENT_NOT_FOUND`. */
  serviceCode: string;
  /** The service's error message. */
  serviceMessage: string;
  /** Where in the workflow file the step was called: `path:line:column`. */
  callSite?: string;
}

/** A step failed in the service. Code `WF_STEP_FAILED`; the service's own code is `serviceCode`. */
export class StepFailedError extends WfError {
  override name = "StepFailedError";
  readonly index: number;
  readonly type: "ACT" | "ASK" | "CHECK";
  readonly instruction: string;
  readonly stepId: string | undefined;
  readonly serviceCode: string;
  readonly serviceMessage: string;
  readonly callSite: string | undefined;

  constructor(failure: StepFailure, options?: { cause?: unknown }) {
    super(
      "WF_STEP_FAILED",
      `Step ${failure.index} ${failure.type} ${JSON.stringify(failure.instruction)} failed: ${failure.serviceMessage} [${failure.serviceCode}]` +
        (failure.callSite ? `\n    at ${failure.callSite}` : ""),
      options,
    );
    this.index = failure.index;
    this.type = failure.type;
    this.instruction = failure.instruction;
    this.stepId = failure.stepId;
    this.serviceCode = failure.serviceCode;
    this.serviceMessage = failure.serviceMessage;
    this.callSite = failure.callSite;
  }
}

/**
 * Soft checks (`check.soft`) failed during a run that otherwise finished: thrown when the handler
 * returns, so the run fails at its end. Code `WF_CHECK_FAILED`; `failures` lists each one.
 */
export class SoftChecksFailedError extends WfError {
  override name = "SoftChecksFailedError";
  readonly failures: ReadonlyArray<StepFailedError>;

  constructor(failures: ReadonlyArray<StepFailedError>) {
    const list = failures.map(
      (f) => `  - step ${f.index} ${JSON.stringify(f.instruction)}: ${f.serviceMessage} [${f.serviceCode}]${f.callSite ? `\n      at ${f.callSite}` : ""}`,
    );
    super(
      "WF_CHECK_FAILED",
      `${failures.length} soft check${failures.length === 1 ? "" : "s"} failed (check.soft lets the workflow go on, then fails the run):\n${list.join("\n")}`,
    );
    this.failures = failures;
  }
}

/** The run was aborted (signal, Ctrl-C, cancel). Code `WF_ABORTED`. */
export class RunAbortedError extends WfError {
  override name = "RunAbortedError";
  constructor(reason?: unknown) {
    super("WF_ABORTED", `The run was aborted${reason instanceof Error ? `: ${reason.message}` : typeof reason === "string" ? `: ${reason}` : ""}.`, {
      cause: reason,
    });
  }
}

/** Formats a path for messages: `[]` → `(root)`, `["a", 0, "b"]` → `a[0].b`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function formatIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join("; ");
}
