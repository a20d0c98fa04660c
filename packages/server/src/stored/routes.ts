/**
 * The stored-workflow routes (issue 5): list the workflows of the workflows folder, run one by id
 * (both paths of the spec, identical), and cancel a running session. Status and long-poll are the
 * server's session status route; the preview page is the server's session view.
 */
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ROUTES, RunWorkflowRequest, RunWorkflowResponse, SessionStatus, WorkflowList } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { loadStoredWorkflows, toWorkflowList, type ImportModule } from "./load.js";
import { StoredRuns } from "./runs.js";

const IdParams = z.object({ id: z.string().min(1) });

/**
 * Loads the stored workflows of `context.options.workflowsDir` (each file that fails is written to
 * stderr with its path and error, and listed in the workflow list's `errors`) and registers:
 * - `GET ROUTES.workflowList`: the workflows with their params as JSON Schema, and the load errors;
 * - `POST ROUTES.workflowRun` and `POST ROUTES.workflowRunAlias`: run a stored workflow
 *   (see {@link StoredRuns.start}); answers `{ sessionId, previewUrl }` at once;
 * - `POST ROUTES.sessionCancel`: cancel a running session (see {@link StoredRuns.cancel}).
 *
 * Runs still going when the app closes are stopped without being recorded as ended, so the next
 * start marks them `FAILED` (`WF_SERVER_RESTARTED`).
 *
 * @throws {@link WfError} `WF_WORKFLOWS_DIR_UNREADABLE` when the configured folder cannot be read.
 */
export async function registerStoredWorkflowRoutes(app: FastifyInstance, context: ServerContext): Promise<void> {
  const dir = context.options.workflowsDir;
  const catalog = await loadStoredWorkflows(dir, context.options.importModule as ImportModule | undefined);
  if (catalog.dir) {
    for (const error of catalog.errors) process.stderr.write(`wf server: not serving ${join(catalog.dir, error.file)}: ${error.reason}\n`);
    app.log.info({ dir: catalog.dir, workflows: [...catalog.workflows.keys()], failed: catalog.errors.length }, "stored workflows loaded");
  }
  const runs = new StoredRuns(context, catalog);
  app.addHook("onClose", async () => runs.stop());

  const auth = { onRequest: context.auth.requireApiKey };
  const fastifyPath = (route: string) => route.replace(/\{(\w+)\}/g, ":$1");

  context.openapi.add({
    method: "get",
    path: ROUTES.workflowList,
    summary: "Stored workflows the service offers",
    description:
      "The workflows loaded from the server's workflows folder (`--workflows`), each with its params as JSON Schema (the `variables` a run takes), " +
      "and the files that failed to load.",
    response: WorkflowList,
    errors: { 401: "Missing or wrong API key" },
    tags: ["stored workflows"],
  });
  app.get(ROUTES.workflowList, auth, async () => toWorkflowList(catalog));

  // Both paths of the spec share one handler.
  const run = async (body: unknown): Promise<RunWorkflowResponse> => {
    const request = context.parse(RunWorkflowRequest, body ?? {});
    const session = await runs.start(request);
    return { sessionId: session.sessionId, previewUrl: context.sessions.viewUrl(session) };
  };
  for (const path of [ROUTES.workflowRun, ROUTES.workflowRunAlias]) {
    context.openapi.add({
      method: "post",
      path,
      summary: path === ROUTES.workflowRun ? "Run a stored workflow" : "Run a stored workflow (the public samples' path; identical)",
      description:
        "Starts the stored workflow `workflowId` in a new session and answers at once with its `sessionId` and `previewUrl` (a live page of the run). " +
        "`variables` are strings, parsed against the workflow's params. Follow the run with the session status route (`?since=&waitMs=` long-polls); " +
        "it ends SUCCEEDED with `output`, FAILED with `error`, or CANCELLED.",
      body: RunWorkflowRequest,
      response: RunWorkflowResponse,
      errors: {
        400: "Malformed JSON",
        401: "Missing or wrong API key",
        404: "Unknown workflowId (WF_WORKFLOW_NOT_FOUND)",
        413: "Body too large",
        415: "Not JSON",
        422: "Missing workflowId, variables that do not match the params (/variables/<name>), or proxy without a configured proxy (/proxy)",
        429: "Too many sessions (Retry-After)",
        503: "Browser unavailable (Retry-After)",
      },
      tags: ["stored workflows"],
    });
    app.post(path, auth, async (request) => run(request.body));
  }

  context.openapi.add({
    method: "post",
    path: ROUTES.sessionCancel,
    summary: "Cancel a running session",
    description:
      "Aborts a stored run (the step in progress too) and ends its session CANCELLED with error WF_CANCELLED, freeing its browser context. " +
      "A running step session is ended the same way. No body needed.",
    pathParams: { id: "The session id (a stored run's sessionId, or a step session's workflowId)." },
    response: SessionStatus,
    errors: { 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session already ended (WF_SESSION_FINISHED)" },
    tags: ["stored workflows"],
  });
  app.post(fastifyPath(ROUTES.sessionCancel), auth, async (request) => {
    const { id } = context.parse(IdParams, request.params);
    return runs.cancel(id);
  });
}
