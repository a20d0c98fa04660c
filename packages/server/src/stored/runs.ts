/**
 * Stored runs: validating a run request against the stored workflow, starting its session, running
 * the workflow in the background through the session's in-process executor, ending the session
 * with the outcome, and cancelling.
 */
import { relative } from "node:path";
import { WfError, executeWorkflow, isWfError, parseParamsFromStrings, redactValue, secretParamNames, secretValues, type Workflow } from "@wf/core";
import { lockPathFor, ModelBudget, openLock, type LockState } from "@wf/runtime/lock";
import { toFieldErrors, type FieldError, type RunWorkflowRequest, type SessionStatus, type WireError } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";
import type { SessionRecord } from "../sessions/index.js";
import { createStoredRunExecutor } from "./executor.js";
import type { StoredWorkflowCatalog } from "./load.js";

/** Error of a session cancelled through the cancel route. */
export const CANCELLED_ERROR: WireError = {
  code: "WF_CANCELLED",
  message: "The run was cancelled through the cancel route before it finished.",
};

/** Error code of a run whose handler threw something that is not a wf error. */
export const WORKFLOW_ERROR_CODE = "WF_WORKFLOW_ERROR";

/** What {@link StoredRuns.start} needs: a validated request. */
export interface StartRunOptions {
  workflowId: string;
  variables?: Record<string, string> | undefined;
  proxy?: boolean | undefined;
}

/**
 * Runs stored workflows in sessions of the server. One instance per server, made by
 * `registerStoredWorkflowRoutes`.
 */
export class StoredRuns {
  private readonly running = new Map<string, { controller: AbortController }>();
  private stopping = false;

  constructor(
    private readonly context: ServerContext,
    private readonly catalog: StoredWorkflowCatalog,
  ) {}

  /**
   * Validates a run request and starts the run: a new `STORED` session (behind the configured
   * proxy when `proxy` is true) whose workflow runs in the background.
   *
   * @returns the session's record at once (the run goes on).
   * @throws {@link HttpProblem} `WF_WORKFLOW_NOT_FOUND` (404) for an unknown id;
   *   `WF_VALIDATION_FAILED` (422) listing each bad variable (`/variables/<name>`) and a `proxy`
   *   asked for when the server has no `proxyUrl` (`/proxy`); the session manager's 429/503.
   */
  async start(request: StartRunOptions): Promise<SessionRecord> {
    const entry = this.catalog.workflows.get(request.workflowId);
    if (!entry) {
      const known = [...this.catalog.workflows.keys()].sort();
      throw new HttpProblem(
        "WF_WORKFLOW_NOT_FOUND",
        `No stored workflow has the id "${request.workflowId}". ` +
          (known.length > 0 ? `This server offers: ${known.join(", ")}.` : "This server offers none; start it with --workflows <dir>."),
        { extra: { workflowId: request.workflowId } },
      );
    }
    const errors: FieldError[] = [];
    let params: unknown;
    try {
      params = this.parseVariables(entry.workflow, request.variables ?? {});
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      errors.push(...(error.errors ?? []));
    }
    const proxyUrl = this.context.options.proxyUrl;
    if (request.proxy && !proxyUrl) {
      errors.push({ path: "/proxy", message: "this server has no proxy configured (WF_PROXY_URL); run without proxy, or configure one on the server" });
    }
    if (errors.length > 0) {
      throw new HttpProblem("WF_VALIDATION_FAILED", `The run request is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`, { errors });
    }
    const session = await this.context.sessions.createSession({
      kind: "STORED",
      workflowId: entry.workflowId,
      ...(request.proxy && proxyUrl ? { proxy: proxyUrl } : {}),
    });
    await this.launch(session, entry.workflow, params, entry.path);
    return session;
  }

  /**
   * Cancels a running session: aborts its workflow (the step in progress is aborted too), then
   * ends the session `CANCELLED` with error `WF_CANCELLED` and frees its browser context. A
   * running step session is ended the same way.
   *
   * @returns the session's status after the change.
   * @throws {@link HttpProblem} `WF_SESSION_NOT_FOUND` (404); `WF_SESSION_FINISHED` (409) when it already ended.
   */
  async cancel(sessionId: string): Promise<SessionStatus> {
    const session = await this.context.sessions.getSession(sessionId);
    if (!session) throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${sessionId}. Use the sessionId that running the workflow returned.`);
    if (session.status !== "RUNNING") {
      throw new HttpProblem("WF_SESSION_FINISHED", `Session ${sessionId} already ended (${session.status}); there is nothing to cancel.`, {
        extra: { sessionStatus: session.status },
      });
    }
    this.running.get(sessionId)?.controller.abort(new Error("cancelled through the cancel route"));
    return this.context.sessions.finishSession(sessionId, { status: "CANCELLED", error: CANCELLED_ERROR });
  }

  /**
   * Stops every run without ending its session, for server shutdown: the store keeps them
   * `RUNNING`, so the next start marks them `FAILED` (`WF_SERVER_RESTARTED`) like any open session.
   */
  stop(): void {
    this.stopping = true;
    for (const run of this.running.values()) run.controller.abort(new Error("the server is stopping"));
  }

  /** Ids of the sessions whose workflow is still running here. */
  get runningSessionIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * The action lock beside the workflow file, read like `wf run` reads it: `read` mode (replay;
   * a stale entry fails the step), `frozen` with `frozenLocks` (and an ACT with no entry that needs
   * the model fails), or `heal` when the server may write locks (`writeLocks`). A
   * lock file that is not valid is logged and the run goes on without it.
   */
  private async openLock(wf: Workflow, params: unknown, path: string, log: (message: string) => Promise<unknown>): Promise<LockState | undefined> {
    const { options } = this.context;
    const lockPath = lockPathFor(path);
    try {
      return await openLock(
        {
          path: lockPath,
          mode: options.writeLocks ? "heal" : options.frozenLocks ? "frozen" : "read",
          model: options.model !== undefined,
          refreshCommand: `wf run ${relative(process.cwd(), path) || path} --lock write`,
        },
        (params ?? {}) as Record<string, unknown>,
        secretParamNames(wf),
      );
    } catch (error) {
      await log(`The action lock was not used: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Variables → typed params, or the 422 with a `/variables/<name>` error per bad or unknown field. */
  private parseVariables(wf: Workflow, variables: Record<string, string>): unknown {
    const known = wf.params ? Object.keys(wf.params.shape) : [];
    const unknown: FieldError[] = Object.keys(variables)
      .filter((name) => !known.includes(name))
      .map((name) => ({
        path: toFieldErrors([{ path: [name], message: "" }], "/variables")[0]!.path,
        message: `unknown variable; workflow "${wf.name}" takes ${known.length > 0 ? known.join(", ") : "no variables"}`,
      }));
    let errors: FieldError[] = [];
    let params: unknown;
    try {
      params = parseParamsFromStrings(wf, variables);
    } catch (error) {
      const issues = (error as { issues?: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }).issues;
      if (!isWfError(error) || error.code !== "WF_PARAMS_INVALID" || !issues) throw error;
      errors = toFieldErrors(issues, "/variables");
    }
    const all = [...unknown, ...errors];
    if (all.length > 0) throw new HttpProblem("WF_VALIDATION_FAILED", all.map((e) => `${e.path}: ${e.message}`).join("; "), { errors: all });
    return params;
  }

  private async launch(session: SessionRecord, wf: Workflow, params: unknown, path: string): Promise<void> {
    const controller = new AbortController();
    const { sessionId } = session;
    const secrets = secretValues(wf, params);
    // Shown in the session's status (`logs`), so `wf trigger --wait` and the debugger see them.
    const log = (message: string, data?: Record<string, unknown>) =>
      this.context.sessions.appendLog(sessionId, redactValue({ message, ...(data ? { data: toJsonValue(data) as Record<string, unknown> } : {}) }, secrets)).catch(() => undefined);
    const lock = await this.openLock(wf, params, path, log);
    const executor = createStoredRunExecutor((id, step, options) => this.context.sessions.runStep(id, step, options), sessionId, secrets, {
      ...(lock ? { lock } : {}),
      ...(this.context.options.maxModelCalls !== undefined ? { budget: new ModelBudget(this.context.options.maxModelCalls) } : {}),
      log: (message) => void log(message),
    });
    void (async () => {
      let end: { status: "SUCCEEDED"; output: unknown } | { status: "FAILED"; error: WireError };
      try {
        // The params are already parsed from the variables; a params-less copy of the workflow
        // keeps executeWorkflow from parsing them a second time (transforms would run twice).
        const output = await executeWorkflow({ ...wf, params: undefined }, { params, executor, signal: controller.signal, log });
        end = { status: "SUCCEEDED", output: redactValue(toJsonValue(output), secrets) };
      } catch (error) {
        end = { status: "FAILED", error: redactValue(toWireError(error), secrets) };
      }
      // Cancelled: the cancel route ended the session. Stopping: the restart marks it failed.
      if (controller.signal.aborted || this.stopping) return;
      try {
        await this.context.sessions.finishSession(sessionId, end);
      } catch (error) {
        // Already ended (cancelled at the same moment): its end stands. A full disk: the session
        // manager writes the end as soon as the database takes it.
        if (!(isWfError(error) && (error.code === "WF_SESSION_FINISHED" || error.code === "WF_STORAGE_UNAVAILABLE"))) throw error;
      }
    })()
      .catch((error: unknown) => {
        process.stderr.write(`wf server: stored run ${sessionId} could not be recorded as finished: ${(error as Error).message}\n`);
      })
      .finally(() => this.running.delete(sessionId));
    this.running.set(sessionId, { controller });
  }
}

/** The wire error of a failed run: the wf error's code and message, or `WF_WORKFLOW_ERROR` for anything else. */
export function toWireError(error: unknown): WireError {
  if (isWfError(error)) {
    const e = error as unknown as Record<string, unknown>;
    const details: Record<string, unknown> = {};
    for (const key of ["index", "type", "instruction", "stepId", "serviceCode", "callSite", "issues"] as const) {
      if (e[key] !== undefined) details[key === "index" ? "stepIndex" : key] = e[key];
    }
    return { code: error.code, message: error.message, ...(Object.keys(details).length > 0 ? { details } : {}) };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: WORKFLOW_ERROR_CODE, message: `The workflow threw ${message}` };
}

/**
 * The output as the wire and the store carry it: a JSON round trip (dates become strings,
 * `undefined` becomes `null`), so a restart reads back exactly what the status route showed.
 *
 * @throws {@link WfError} `WF_OUTPUT_INVALID` when the output cannot be JSON (a BigInt, a cycle).
 */
export function toJsonValue(output: unknown): unknown {
  if (output === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(output)) as unknown;
  } catch (error) {
    throw new WfError("WF_OUTPUT_INVALID", `The workflow returned an output that is not JSON (${(error as Error).message}). Return plain data: objects, arrays, strings, numbers, booleans, null.`);
  }
}
