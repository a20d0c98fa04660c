/**
 * `@wf/core`: the workflow DSL, zod → OpenAI strict structured outputs and back, and the errors
 * every package shares. The wire protocol is a separate export: `@wf/core/protocol`.
 */
export { act, ask, check, step, runWithExecutor, currentRun, currentStepGroup } from "./dsl.js";
export type { RunContext, CheckFunction, ActOutcome, ActDownload } from "./dsl.js";
export { workflow, isWorkflow, parseParams, executeWorkflow, WORKFLOW_NAME_PATTERN } from "./workflow.js";
export type { Workflow, WorkflowOptions, WorkflowContext, ExecuteWorkflowOptions } from "./workflow.js";
export type { Executor, StepRequest, StepOutcome, StepOptions, CheckOptions, Logger, StepGroup } from "./executor.js";
export { untilAborted } from "./abort.js";
export { createRedactor, secretEncodings } from "./redact.js";
export type { Redactor } from "./redact.js";
export { secret, isSecret, secretParamNames, secretValues, redactParams, redactText, redactValue, REDACTED } from "./secret.js";
export { toResponseFormat, toStrictJsonSchema, decodeAnswer, isWrapped, WRAPPER_KEY } from "./schema/translate.js";
export { RESPONSE_FORMAT_NAME_PATTERN, MAX_NESTING_DEPTH } from "./schema/limits.js";
export { parseParamsFromStrings, paramsJsonSchema } from "./params.js";
export type { AnySchema, InferSchema } from "./schema/types.js";
export {
  WfError,
  isWfError,
  WorkflowContextError,
  SchemaTranslationError,
  AnswerValidationError,
  ParamsValidationError,
  OutputValidationError,
  StepFailedError,
  RunAbortedError,
  SoftChecksFailedError,
  formatPath,
} from "./errors.js";
export type { StepFailure, ValidationIssue } from "./errors.js";
