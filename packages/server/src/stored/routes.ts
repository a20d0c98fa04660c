/**
 * The stored-workflow routes of issue 5 (run a committed workflow by id, list, cancel). A
 * placeholder: the server's app already calls it; the issue-5 developer fills it in on top of
 * `ServerContext` (see `../context.ts`).
 */
import type { FastifyInstance } from "fastify";
import type { ServerContext } from "../context.js";

/** Registers the stored-workflow routes on `app`. Does nothing yet. */
export async function registerStoredWorkflowRoutes(app: FastifyInstance, context: ServerContext): Promise<void> {
  void app;
  void context;
}
