/**
 * `GET /workflow/view/{id}/downloads/{downloadId}`: a file a step of the session downloaded
 * (`StepStatus.downloads`), kept with the session's records (`sessions/downloads.ts`); for the
 * session's token or the API key, as long as the session's records are kept.
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
import { mediaAnswer, problemAnswers, SECURITY } from "./openapi.js";
import { fastifyPath } from "./paths.js";

/** Stands for a session that doesn't exist when checking a token: no token matches its random one. */
const UNKNOWN_SESSION = { token: randomBytes(24).toString("base64url") } as SessionRecord;

/** Registers `GET /workflow/view/{id}/downloads/{downloadId}` (the session token or the API key). */
export function registerDownloadRoute(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Params: { id: string; downloadId: string } }>(
    fastifyPath(ROUTES.sessionDownload),
    {
      // The schemas document the route; the token is checked by the handler (a bad query is a 401, as on the debugger page).
      attachValidation: true,
      schema: {
        summary: "A file a step downloaded",
        description:
          "The bytes of a download a step of the session reported in its `downloads` (`downloadId`), with the media type and file name it reported. Kept with the session's records, up to the server's maxDownloadBytes.",
        tags: ["sessions"],
        security: SECURITY.sessionToken,
        params: z.object({ id: z.string().describe("The session id."), downloadId: z.string().describe("The downloadId of the step's `downloads` entry.") }),
        querystring: z.object({ token: z.string().optional() }),
        response: {
          200: mediaAnswer("application/octet-stream", "The file, with the Content-Type the step reported."),
          ...problemAnswers({ 401: "Missing or wrong token or API key", 404: "Unknown session or download (WF_DOWNLOAD_NOT_FOUND), or its file was deleted by the retention sweep" }),
        },
      },
    },
    async (request, reply) => {
      const { id, downloadId } = request.params;
      const session = await context.sessions.getSession(id);
      // The token (or key) is checked before saying whether the session exists, as on the debugger page.
      if (!session) {
        if (!context.auth.isValidApiKey(requestApiKey(request))) context.auth.checkSessionToken(request, UNKNOWN_SESSION);
        throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${id}.`);
      }
      context.auth.checkSessionToken(request, session);
      const found = await context.sessions.downloadOf(id, downloadId);
      const info = found ? await stat(found.path).catch(() => undefined) : undefined;
      if (!found || !info) {
        throw new HttpProblem("WF_DOWNLOAD_NOT_FOUND", `Session ${id} has no download ${downloadId}. Use a downloadId from a step's \`downloads\` (GET the step or session status).`);
      }
      return reply
        .type(found.entry.mimeType)
        .header("content-disposition", `attachment; filename*=UTF-8''${encodeURIComponent(found.entry.name)}`)
        .header("cache-control", "private, max-age=3600")
        .header("content-length", info.size)
        .send(createReadStream(found.path));
    },
  );
}
