/**
 * Authentication: API keys in the `api-key` header (any case) or `Authorization: Bearer <key>`,
 * compared in constant time (`crypto.timingSafeEqual` over SHA-256 digests, so neither the key's
 * content nor its length leaks through timing); session tokens for the debugger page.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { ServerAuth } from "../context.js";
import { HttpProblem } from "../errors.js";
import type { SessionRecord } from "../sessions/index.js";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** True when `candidate` equals one of `digests` (each compared; constant time per comparison). */
function matchesAny(candidate: string, digests: readonly Buffer[]): boolean {
  const d = digest(candidate);
  let found = false;
  for (const expected of digests) if (timingSafeEqual(d, expected)) found = true;
  return found;
}

/** The API key a request carries: the `api-key` header, else a `Bearer` authorization. */
export function requestApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers["api-key"];
  const value = Array.isArray(header) ? header[0] : header;
  if (value) return value.trim();
  const authorization = request.headers.authorization;
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}

/** Builds the {@link ServerAuth} of a server with these keys. */
export function createAuth(apiKeys: readonly string[]): ServerAuth {
  const digests = apiKeys.map(digest);
  const isValidApiKey = (key: string | undefined) => key !== undefined && key.length > 0 && matchesAny(key, digests);
  return {
    isValidApiKey,
    async requireApiKey(request) {
      const key = requestApiKey(request);
      if (!isValidApiKey(key)) {
        throw new HttpProblem(
          "WF_UNAUTHORIZED",
          key === undefined
            ? "This route needs an API key: send it in the `api-key` header or as `Authorization: Bearer <key>`."
            : "The API key is not valid. Use one of the keys the server was started with (WF_API_KEYS).",
        );
      }
    },
    checkSessionToken(request, session: SessionRecord) {
      const query = request.query as Record<string, unknown> | undefined;
      const token = typeof query?.token === "string" ? query.token : undefined;
      if (token !== undefined && timingSafeEqual(digest(token), digest(session.token))) return;
      if (isValidApiKey(requestApiKey(request))) return;
      throw new HttpProblem("WF_UNAUTHORIZED", "This page needs the session's token: open the debuggerUrl (or previewUrl) exactly as the server returned it.");
    },
  };
}
