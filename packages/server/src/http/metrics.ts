/**
 * `GET /metrics`: the service's metrics in the Prometheus text format (`observability/metrics.ts`),
 * for the API key or, when one is set, the metrics token (`WF_METRICS_TOKEN`: a scraper's
 * credential that opens this route only). Registered only when metrics are on (`WF_METRICS`).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ROUTES } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";
import { requestApiKey } from "./auth.js";
import { mediaAnswer, problemAnswers, SECURITY } from "./openapi.js";

/** Registers `GET /metrics` when the server counts metrics. */
export function registerMetricsRoute(app: FastifyInstance, context: ServerContext): void {
  const metrics = context.telemetry.metrics;
  if (!metrics) return;
  const token = context.options.metricsToken;
  const tokenDigest = token ? digest(token) : undefined;
  const allowed = (request: FastifyRequest) => {
    const key = requestApiKey(request);
    if (context.auth.isValidApiKey(key)) return true;
    return tokenDigest !== undefined && key !== undefined && timingSafeEqual(digest(key), tokenDigest);
  };
  app.get(
    ROUTES.metrics,
    {
      onRequest: async (request) => {
        if (!allowed(request)) {
          throw new HttpProblem(
            "WF_UNAUTHORIZED",
            `The metrics need an API key${token ? " or the metrics token (WF_METRICS_TOKEN)" : ""}: send it in the \`api-key\` header or as \`Authorization: Bearer <key>\`.`,
          );
        }
      },
      schema: {
        summary: "The service's metrics (Prometheus text format)",
        description:
          "Sessions open, steps by type, interpreter and outcome, step durations, browser launches and crashes, pages crashed or unresponsive, model calls, tokens and failures, store write retries, downloads, and the process's default metrics. For the API key or the metrics token (WF_METRICS_TOKEN).",
        tags: ["service"],
        security: SECURITY.apiKey,
        response: { 200: mediaAnswer("text/plain", "The metrics, in the Prometheus text exposition format 0.0.4."), ...problemAnswers({ 401: "Missing or wrong API key or metrics token" }) },
      },
    },
    async (_request, reply) => {
      const { contentType, text } = await metrics.render();
      return reply.type(contentType).header("cache-control", "no-store").send(text);
    },
  );
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
