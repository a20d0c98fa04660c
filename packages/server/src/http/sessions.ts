/**
 * `GET ROUTES.sessionStatus`: the status of any session (step mode or stored run), long-polled with
 * `?since=&waitMs=`. Cancelling a session is a stored-workflow route (`stored.ts`).
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { LongPollQuery, MAX_LONG_POLL_MS, ROUTES, SessionStatus } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { jsonAnswer, problemAnswers, SECURITY } from "./openapi.js";
import { fastifyPath } from "./paths.js";
import { clientGone, longPoll } from "./long-poll.js";

/** Registers the session status route. */
export function registerSessionRoutes(app: FastifyInstance, context: ServerContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    fastifyPath(ROUTES.sessionStatus),
    {
      onRequest: context.auth.requireApiKey,
      schema: {
        summary: "Status of a session (step mode or stored run)",
        description:
          `With \`?since=<version>\` and \`?waitMs=\` the answer waits until the session changed (its version exceeds since); with \`waitMs\` alone, until it ended. ` +
          `waitMs is capped at ${MAX_LONG_POLL_MS} ms.`,
        tags: ["sessions"],
        security: SECURITY.apiKey,
        params: z.object({ id: z.string().min(1).describe("The session id (a step session's workflowId, or a stored run's sessionId).") }),
        querystring: LongPollQuery,
        response: { 200: jsonAnswer(SessionStatus), ...problemAnswers({ 401: "Missing or wrong API key", 404: "Unknown session", 422: "Invalid query" }) },
      },
    },
    async (request, reply) => context.sessions.waitForSession(request.params.id, longPoll(request.query), clientGone(reply)),
  );
}
