/**
 * The step-mode routes: create a session, run one step in it, a step's status (long-polled), and
 * close the session. Each handler takes the request its schema parsed, calls the session manager
 * and answers; what it throws is answered by the error handler.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  CloseSessionRequest,
  CreateSessionRequest,
  CreateSessionResponse,
  IDEMPOTENCY_KEY_HEADER,
  LongPollQuery,
  MAX_LONG_POLL_MS,
  MAX_STEP_UPLOAD_BYTES,
  ROUTES,
  RunStepQuery,
  RunStepRequest,
  RunStepResponse,
  SessionStatus,
  StepStatus,
} from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";
import { checkUploadSize } from "../sessions/uploads.js";
import { rawBodies } from "../cluster/instances.js";
import { clientGone, longPoll } from "./long-poll.js";
import { BODY_OPTIONAL, jsonAnswer, problemAnswers, SECURITY } from "./openapi.js";
import { fastifyPath } from "./paths.js";

/** Room a step run's body has beyond `bodyLimitBytes` for its files: 10 MiB in base64, and their JSON. */
const UPLOAD_ALLOWANCE_BYTES = Math.ceil(MAX_STEP_UPLOAD_BYTES / 3) * 4 + 64 * 1024;

const SessionIdParams = z.object({ id: z.string().min(1).describe("The session's workflowId (from create).") });

/** Registers the step-mode routes. */
export function registerStepRoutes(app: FastifyInstance, context: ServerContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { options, sessions } = context;
  const onRequest = context.auth.requireApiKey;

  routes.post(
    fastifyPath(ROUTES.stepCreate),
    {
      onRequest,
      schema: {
        summary: "Create a step-mode session",
        description: "Opens a browser context. Its `workflowId` is the `{id}` of the step-run, status and close routes.",
        tags: ["step mode"],
        security: SECURITY.apiKey,
        body: CreateSessionRequest,
        [BODY_OPTIONAL]: true,
        response: {
          200: jsonAnswer(CreateSessionResponse),
          ...problemAnswers({ 400: "Malformed JSON", 401: "Missing or wrong API key", 413: "Body too large", 415: "Not JSON", 422: "Invalid body (e.g. browserMode other than REMOTE)", 429: "Too many sessions (Retry-After)", 503: "Browser unavailable (Retry-After)" }),
        },
      },
    },
    async (request) => {
      const { trace, screenshot, dialogs, context } = request.body;
      const session = await sessions.createSession({ kind: "STEP", ...(trace ? { trace: true } : {}), ...(screenshot ? { screenshot } : {}), ...(dialogs ? { dialogs } : {}), ...(context ? { context } : {}) });
      return { workflowId: session.sessionId, sessionToken: session.token, debuggerUrl: sessions.viewUrl(session) } satisfies CreateSessionResponse;
    },
  );

  routes.post(
    fastifyPath(ROUTES.stepRun),
    {
      onRequest,
      // The body limit plus room for a step's files (base64); the rest of the body still gets bodyLimitBytes.
      bodyLimit: options.bodyLimitBytes + UPLOAD_ALLOWANCE_BYTES,
      // Before validation: a body over the limit is a 413 whatever else is wrong with it (a 2 MiB `step` is too large before it is too long).
      preValidation: async (request) => checkRawStepBodySize(request, options.bodyLimitBytes),
      schema: {
        summary: "Run one step in a session",
        description:
          "Queues an ACT or ASK in the session and answers at once with its ids; steps of one session run one at a time in arrival order. " +
          "Follow it with the step status route (`?waitMs=` long-polls). With `?waitMs=` here, the answer waits until the step ended (or waitMs passed) and carries its `stepStatus`: one request per step. " +
          "With an `Idempotency-Key` header, a retry with the same key and body returns the first step's ids and runs nothing.",
        tags: ["step mode"],
        security: SECURITY.apiKey,
        params: SessionIdParams,
        querystring: RunStepQuery,
        headers: z.object({ [IDEMPOTENCY_KEY_HEADER]: z.string().optional().describe("Makes the request safe to retry: the same key in the same session never runs twice.") }),
        body: RunStepRequest,
        response: {
          200: jsonAnswer(RunStepResponse),
          ...problemAnswers({ 400: "Malformed JSON", 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session closed", 413: "Body too large, or files over 10 MiB (WF_UPLOAD_TOO_LARGE)", 415: "Not JSON", 422: "Invalid body or query, ACT with a schema, or idempotency key reused with another body" }),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // After validation: the validation bounds the body's depth, which the size check's serialisation needs.
      checkStepBodySize(body, options.bodyLimitBytes);
      if (body.files) checkUploadSize(body.files.map((f) => ({ name: f.name, bytes: decodedLength(f.contentBase64) })));
      const header = request.headers[IDEMPOTENCY_KEY_HEADER];
      const idempotencyKey = Array.isArray(header) ? header[0] : header;
      const { waitMs } = longPoll(request.query);
      const submitted = await sessions.submitStep(request.params.id, body, { ...(idempotencyKey ? { idempotencyKey } : {}), waitMs });
      const ids = { stepId: submitted.stepId, jobTaskId: submitted.jobTaskId };
      if (waitMs === 0) return ids satisfies RunStepResponse;
      // The step is recorded and queued: waiting for it is the step status route's long-poll.
      return { ...ids, stepStatus: await sessions.waitForStep(submitted.stepId, waitMs, clientGone(reply)) } satisfies RunStepResponse;
    },
  );

  routes.get(
    fastifyPath(ROUTES.stepStatus),
    {
      onRequest,
      schema: {
        summary: "Status of a step",
        description: `With \`?waitMs=\` (capped at ${MAX_LONG_POLL_MS} ms) the answer waits until the step finished or the time ran out (long-poll).`,
        tags: ["step mode"],
        security: SECURITY.apiKey,
        params: z.object({ stepId: z.string().min(1).describe("The stepId a step run returned.") }),
        querystring: LongPollQuery,
        response: { 200: jsonAnswer(StepStatus), ...problemAnswers({ 401: "Missing or wrong API key", 404: "Unknown step", 422: "Invalid query" }) },
      },
    },
    async (request, reply) => sessions.waitForStep(request.params.stepId, longPoll(request.query).waitMs, clientGone(reply)),
  );

  routes.post(
    fastifyPath(ROUTES.stepClose),
    {
      onRequest,
      schema: {
        summary: "Close a step session",
        description:
          "Frees the session's browser context. The session ends SUCCEEDED; a queued or running step fails with WF_SESSION_CLOSED. " +
          "No body needed; `discardTrace: true` drops the session's trace instead of saving it.",
        tags: ["step mode"],
        security: SECURITY.apiKey,
        params: z.object({ id: z.string().min(1).describe("The session's workflowId.") }),
        body: CloseSessionRequest,
        [BODY_OPTIONAL]: true,
        response: { 200: jsonAnswer(SessionStatus), ...problemAnswers({ 401: "Missing or wrong API key", 404: "Unknown session", 409: "Session already closed", 422: "Invalid body" }) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const session = await sessions.getSession(id);
      if (!session) throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${id}. Use the workflowId that creating the session returned.`);
      if (session.status !== "RUNNING") {
        throw new HttpProblem("WF_SESSION_CLOSED", `Session ${id} is already ${session.status.toLowerCase()}.`, { extra: { sessionStatus: session.status } });
      }
      return sessions.finishSession(id, { status: session.kind === "STEP" ? "SUCCEEDED" : "CANCELLED", ...(request.body.discardTrace ? { discardTrace: true } : {}) });
    },
  );
}

/**
 * A step run's body without its files' bytes must fit `bodyLimitBytes` (its route takes more for
 * the files only).
 * @throws {@link HttpProblem} `WF_BODY_TOO_LARGE` (413)
 */
function checkStepBodySize(body: RunStepRequest, limit: number): void {
  const rest = body.files ? { ...body, files: body.files.map((f) => ({ ...f, contentBase64: "" })) } : body;
  if (Buffer.byteLength(JSON.stringify(rest)) > limit) {
    throw new HttpProblem("WF_BODY_TOO_LARGE", `The request body is larger than the server's limit (${limit} bytes, bodyLimitBytes) without its files. Send less, e.g. a smaller currentDom.`);
  }
}

/**
 * A step run's body as sent, less its files' base64, must fit `bodyLimitBytes`; checked before the
 * body is validated, so that an oversized body is a 413 and not a 422 about the field that made it so.
 * @throws {@link HttpProblem} `WF_BODY_TOO_LARGE` (413)
 */
function checkRawStepBodySize(request: FastifyRequest, limit: number): void {
  const raw = rawBodies.get(request);
  if (raw === undefined) return;
  let size = Buffer.byteLength(raw);
  if (size <= limit) return;
  const files = (request.body as { files?: unknown } | undefined)?.files;
  if (Array.isArray(files)) for (const file of files) if (typeof (file as { contentBase64?: unknown })?.contentBase64 === "string") size -= (file as { contentBase64: string }).contentBase64.length;
  if (size > limit) {
    throw new HttpProblem("WF_BODY_TOO_LARGE", `The request body is larger than the server's limit (${limit} bytes, bodyLimitBytes) without its files. Send less, e.g. a smaller currentDom.`);
  }
}

/** Bytes a base64 text decodes to. */
function decodedLength(base64: string): number {
  const clean = base64.replace(/[^A-Za-z0-9+/]/g, "");
  return Math.floor((clean.length * 3) / 4);
}
