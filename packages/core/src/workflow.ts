/**
 * `workflow()`: the value a workflow file default-exports, and `executeWorkflow()`, which runs its
 * handler with `act`/`ask` bound to an executor. Pure: the executor does the I/O.
 */
import type { z } from "zod";
import { runWithExecutor } from "./dsl.js";
import { OutputValidationError, ParamsValidationError, WfError } from "./errors.js";
import type { Executor, Logger } from "./executor.js";

/** Workflow names are kebab-case ids: they are how a stored workflow is run (`workflowId`). */
export const WORKFLOW_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** What a workflow handler receives. */
export interface WorkflowContext<Params> {
  /** The validated params (defaults applied). */
  params: Params;
  /** Aborts when the run is cancelled (Ctrl-C, cancel route, timeout). */
  signal: AbortSignal;
  /** Logs a line to the run's reporter. */
  log: Logger;
}

/** Options of {@link workflow}. */
export interface WorkflowOptions<P extends z.ZodObject | undefined, O extends z.ZodType | undefined> {
  /** Kebab-case id, e.g. `"pg-numeric-types"`; the `workflowId` of a stored workflow. */
  name: string;
  /** One line on what the workflow does. */
  description?: string;
  /** The typed, validated inputs, as a zod object. Mark secrets with `secret()`. */
  params?: P;
  /** Schema the handler's return value is checked against. */
  output?: O;
}

type ParamsOf<P> = P extends z.ZodObject ? z.output<P> : Record<string, never>;
type OutputOf<O, R> = O extends z.ZodType ? z.output<O> : R;

/** A workflow value: what `workflow()` returns and a workflow file default-exports. */
export interface Workflow<Params = unknown, Output = unknown> {
  readonly kind: "wf.workflow";
  readonly name: string;
  readonly description: string | undefined;
  readonly params: z.ZodObject | undefined;
  readonly output: z.ZodType | undefined;
  readonly handler: (context: WorkflowContext<Params>) => Promise<Output> | Output;
}

/**
 * Defines a workflow.
 *
 * @param options.name - kebab-case id (`/^[a-z0-9]+(-[a-z0-9]+)*$/`).
 * @param handler - receives `{ params, signal, log }`; calls `act`/`ask`; returns the output.
 * @throws {@link WfError} `WF_WORKFLOW_INVALID` if the name is not kebab-case or params is not a zod object.
 * @example
 * export default workflow({ name: "search", params: z.object({ q: z.string() }) }, async ({ params }) => {
 *   await act(`type "${params.q}" into "Search"`);
 * });
 */
export function workflow<P extends z.ZodObject | undefined = undefined, O extends z.ZodType | undefined = undefined, R = unknown>(
  options: WorkflowOptions<P, O>,
  handler: (context: WorkflowContext<ParamsOf<P>>) => Promise<O extends z.ZodType ? z.input<O> : R> | (O extends z.ZodType ? z.input<O> : R),
): Workflow<ParamsOf<P>, OutputOf<O, R>> {
  if (typeof options?.name !== "string" || !WORKFLOW_NAME_PATTERN.test(options.name)) {
    throw new WfError("WF_WORKFLOW_INVALID", `Workflow name ${JSON.stringify(options?.name)} is not a kebab-case id (like "pg-numeric-types").`);
  }
  if (options.params !== undefined && !isZodObject(options.params)) {
    throw new WfError("WF_WORKFLOW_INVALID", `Workflow "${options.name}": params must be a zod object (z.object({...})).`);
  }
  if (typeof handler !== "function") {
    throw new WfError("WF_WORKFLOW_INVALID", `Workflow "${options.name}": the second argument must be the handler function.`);
  }
  return Object.freeze({
    kind: "wf.workflow" as const,
    name: options.name,
    description: options.description,
    params: options.params,
    output: options.output,
    handler: handler as Workflow<ParamsOf<P>, OutputOf<O, R>>["handler"],
  });
}

/** True when `value` is a workflow value (also one made by another copy of `@wf/core`). */
export function isWorkflow(value: unknown): value is Workflow {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "wf.workflow";
}

function isZodObject(value: unknown): value is z.ZodObject {
  return typeof value === "object" && value !== null && "_zod" in value && (value as z.ZodObject)._zod.def.type === "object";
}

/**
 * Validates raw params against the workflow's `params` schema (defaults applied).
 *
 * @param input - the params object; `undefined` means `{}`.
 * @returns the parsed params.
 * @throws {@link ParamsValidationError} listing each bad field.
 */
export function parseParams<P>(wf: Workflow<P>, input: unknown): P {
  if (!wf.params) return (input ?? {}) as P;
  const result = wf.params.safeParse(input ?? {});
  if (!result.success) throw new ParamsValidationError(wf.name, result.error.issues);
  return result.data as P;
}

/** Options of {@link executeWorkflow}. */
export interface ExecuteWorkflowOptions {
  /** Raw params; validated with {@link parseParams}. */
  params?: unknown;
  executor: Executor;
  signal?: AbortSignal;
  log?: Logger;
  /** How long a check retries when its call sets no `timeoutMs`, in ms. @default 5_000 */
  checkTimeoutMs?: number;
}

/**
 * Runs a workflow's handler with `act`/`ask` bound to `executor`: validates params, calls the
 * handler, checks its return value against `output`.
 *
 * @returns the handler's output (parsed through `output` when there is one).
 * @throws {@link ParamsValidationError}, {@link OutputValidationError}, and whatever the handler throws
 *   (e.g. `StepFailedError`).
 */
export async function executeWorkflow<P, O>(wf: Workflow<P, O>, options: ExecuteWorkflowOptions): Promise<O> {
  const params = parseParams(wf, options.params);
  const signal = options.signal ?? new AbortController().signal;
  const log = options.log ?? (() => {});
  const output = await runWithExecutor({ executor: options.executor, signal, log, ...(options.checkTimeoutMs !== undefined ? { checkTimeoutMs: options.checkTimeoutMs } : {}) }, () =>
    Promise.resolve(wf.handler({ params, signal, log })),
  );
  if (!wf.output) return output;
  const checked = wf.output.safeParse(output);
  if (!checked.success) throw new OutputValidationError(wf.name, checked.error.issues);
  return checked.data as O;
}
