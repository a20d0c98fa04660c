/**
 * The stored-workflow routes (issue 5): list the workflows of the workflows folder, run one by id
 * (both paths of the spec, identical), and cancel a running session. Status and long-poll are the
 * session status route (`sessions.ts`); the preview page is the session view. The runs themselves
 * are `stored/runs.ts`.
 */
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ROUTES, RunWorkflowRequest, RunWorkflowResponse, SessionStatus, WorkflowList } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { loadStoredWorkflows, toWorkflowList, type ImportModule } from "../stored/load.js";
import { StoredRuns } from "../stored/runs.js";
import { jsonAnswer, problemAnswers, SECURITY } from "./openapi.js";
import { fastifyPath } from "./paths.js";

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

  const routes = app.withTypeProvider<ZodTypeProvider>();
  const onRequest = context.auth.requireApiKey;

  routes.get(
    ROUTES.workflowList,
    {
      onRequest,
      schema: {
        summary: "Stored workflows the service offers",
        description:
          "The workflows loaded from the server's workflows folder (`--workflows`), each with its params as JSON Schema (the `variables` a run takes), " +
          "and the files that failed to load.",
        tags: ["stored workflows"],
        security: SECURITY.apiKey,
        response: { 200: jsonAnswer(WorkflowList), ...problemAnswers({ 401: "Missing or wrong API key" }) },
      },
    },
    async () => toWorkflowList(catalog),
  );

  // Both paths of the spec: one operation, one handler.
  for (const path of [ROUTES.workflowRun, ROUTES.workflowRunAlias]) {
    routes.post(
      path,
      {
        onRequest,
        schema: {
          summary: path === ROUTES.workflowRun ? "Run a stored workflow" : "Run a stored workflow (the public samples' path; identical)",
          description:
            "Starts the stored workflow `workflowId` in a new session and answers at once with its `sessionId` and `previewUrl` (a live page of the run). " +
            "`variables` are strings, parsed against the workflow's params. Follow the run with the session status route (`?since=&waitMs=` long-polls); " +
            "it ends SUCCEEDED with `output`, FAILED with `error`, or CANCELLED.",
          tags: ["stored workflows"],
          security: SECURITY.apiKey,
          body: RunWorkflowRequest,
          response: {
            200: jsonAnswer(RunWorkflowResponse),
            ...problemAnswers({
              400: "Malformed JSON",
              401: "Missing or wrong API key",
              404: "Unknown workflowId (WF_WORKFLOW_NOT_FOUND)",
              413: "Body too large",
              415: "Not JSON",
              422: "Missing workflowId, variables that do not match the params (/variables/<name>), or proxy without a configured proxy (/proxy)",
              429: "Too many sessions (Retry-After)",
              503: "Browser unavailable (Retry-After)",
            }),
          },
        },
      },
      async (request) => {
        const session = await runs.start(request.body);
        return { sessionId: session.sessionId, previewUrl: context.sessions.viewUrl(session) } satisfies RunWorkflowResponse;
      },
    );
  }

  routes.post(
    fastifyPath(ROUTES.sessionCancel),
    {
      onRequest,
      schema: {
        summary: "Cancel a running session",
        description:
          "Aborts a stored run (the step in progress too) and ends its session CANCELLED with error WF_CANCELLED, freeing its browser context. " +
          "A running step session is ended the same way. No body needed.",
        tags: ["stored workflows"],
        security: SECURITY.apiKey,
        params: z.object({ id: z.string().min(1).describe("The session id (a stored run's sessionId, or a step session's workflowId).") }),
        response: { 200: jsonAnswer(SessionStatus), ...problemAnswers({ 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session already ended (WF_SESSION_FINISHED)" }) },
      },
    },
    async (request) => runs.cancel(request.params.id),
  );
}
