/**
 * `GET /workflow/view/{id}/trace`: a session's Playwright trace (the zip `browser/tracing.ts` saved when
 * the session ended), for the session's token or the API key.
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ROUTES } from "@wf/core/protocol";
import { requestApiKey } from "./auth.js";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";
import type { SessionRecord } from "../sessions/index.js";
import { tracePath } from "../browser/tracing.js";
import { mediaAnswer, problemAnswers, SECURITY } from "./openapi.js";
import { fastifyPath } from "./paths.js";

/** Stands for a session that doesn't exist when checking a token: no token matches its random one. */
const UNKNOWN_SESSION = { token: randomBytes(24).toString("base64url") } as SessionRecord;

/** Registers `GET /workflow/view/{id}/trace` (the session token or the API key). */
export function registerTraceRoute(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Params: { id: string } }>(
    fastifyPath(ROUTES.sessionTrace),
    {
      // The schemas document the route; the token is checked by the handler (a bad query is a 401 as on the page, not a 422).
      attachValidation: true,
      schema: {
        summary: "Playwright trace of a session (zip)",
        description: "For a session created with `trace: true`, once it ended. Open it with `npx playwright-core show-trace trace.zip` (or `wf show-trace`).",
        tags: ["sessions"],
        security: SECURITY.sessionToken,
        params: z.object({ id: z.string().describe("The session id.") }),
        querystring: z.object({ token: z.string().optional() }),
        response: {
          200: mediaAnswer("application/zip", "The trace."),
          ...problemAnswers({ 401: "Missing or wrong token or API key", 404: "Unknown session, or no trace (not traced, still running, or the browser closed first)" }),
        },
      },
    },
    async (request, reply) => {
      const session = await context.sessions.getSession(request.params.id);
      // The token (or key) is checked before saying whether the session exists, as on the debugger page.
      if (!session) {
        if (!context.auth.isValidApiKey(requestApiKey(request))) context.auth.checkSessionToken(request, UNKNOWN_SESSION);
        throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${request.params.id}.`);
      }
      context.auth.checkSessionToken(request, session);
      if (session.status === "RUNNING") {
        throw new HttpProblem("WF_TRACE_NOT_FOUND", `Session ${session.sessionId} is still running: its trace is saved when it ends (close it first).`);
      }
      const path = tracePath(context.options.dataDir, session.sessionId);
      const info = await stat(path).catch(() => undefined);
      if (!info) {
        throw new HttpProblem(
          "WF_TRACE_NOT_FOUND",
          `Session ${session.sessionId} has no trace: it was created without \`trace: true\`, closed with \`discardTrace: true\`, or its browser closed before the trace was saved.`,
        );
      }
      return reply
        .type("application/zip")
        .header("content-disposition", 'attachment; filename="trace.zip"')
        .header("cache-control", "private, max-age=3600")
        .header("content-length", info.size)
        .send(createReadStream(path));
    },
  );
}
