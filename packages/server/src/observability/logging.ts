/**
 * The server's logger settings (pino through Fastify): the level (`WF_LOG_LEVEL`), and request
 * serializers that keep secrets out of request logs: the session token of debugger URLs
 * (`?token=`) and API keys (`api-key`, `Authorization`) are replaced by `[redacted]`.
 */
import type { FastifyServerOptions } from "fastify";
import { parseWfEnv } from "../config/env.js";

/** pino levels, plus `silent` (off). */
export { LOG_LEVELS } from "../config/env.js";

/** Query parameters whose values never reach a log. */
const SECRET_QUERY_PARAMS = ["token", "api-key", "api_key", "apikey", "key", "access_token"];

/** A URL (path and query) with the values of secret query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return eq >= 0 && SECRET_QUERY_PARAMS.includes(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    })
    .join("&");
  return `${url.slice(0, q)}?${query}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The Fastify `logger` option for `logger` as the user gave it: `false` stays off; `true` or pino
 * options get the redacting request serializer and header redaction (kept when the caller set
 * their own). When `logger` is undefined, `WF_LOG_LEVEL` in `env` turns it on at that level.
 *
 * @throws {@link WfEnvError} when `WF_LOG_LEVEL` is not a pino level (see `config/env.ts`).
 */
export function resolveLogger(logger: FastifyServerOptions["logger"] | undefined, env: NodeJS.ProcessEnv): FastifyServerOptions["logger"] {
  let chosen = logger;
  if (chosen === undefined) {
    const level = parseWfEnv(env, ["WF_LOG_LEVEL"]).WF_LOG_LEVEL;
    if (level === undefined) return false;
    chosen = { level };
  }
  if (chosen === false) return false;
  const base = chosen === true ? {} : (chosen as Record<string, unknown>);
  const serializers = (base.serializers ?? {}) as Record<string, unknown>;
  const redact = base.redact ?? { paths: ["req.headers.authorization", 'req.headers["api-key"]', "req.headers.cookie"], censor: "[redacted]" };
  return {
    ...base,
    redact,
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url ?? ""),
        host: request.hostname,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      ...serializers,
    },
  } as unknown as FastifyServerOptions["logger"];
}
