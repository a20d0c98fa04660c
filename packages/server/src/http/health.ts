/** `GET ROUTES.health`: the only route without a key; says the service is up and its version. */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { HealthResponse, ROUTES } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { jsonAnswer, SECURITY } from "./openapi.js";

/** Registers the health route. */
export function registerHealthRoute(app: FastifyInstance, context: ServerContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    ROUTES.health,
    { schema: { summary: "Health check", tags: ["service"], security: SECURITY.none, response: { 200: jsonAnswer(HealthResponse) } } },
    async () => ({ status: "ok" as const, version: context.version }),
  );
}
