/**
 * The Fastify app: its limits and timeouts, security headers, the JSON body parser, zod validation
 * of every route's declared schemas, problem details for every failure, the OpenAPI document
 * generated from the routes (on its first request), and the route groups: health, step mode,
 * sessions, the session view (debugger page, events, screenshots, trace) and the stored workflows.
 */
import type { Socket } from "node:net";
import helmet from "@fastify/helmet";
import Fastify, { type FastifyInstance } from "fastify";
import { ROUTES } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { registerDebuggerRoutes } from "./view.js";
import { HttpProblem } from "../errors.js";
import { registerForwarding } from "../cluster/instances.js";
import { registerJsonBodyParser } from "./body.js";
import { errorHandler, pathOf, sendProblem, writeClientError } from "./error-handler.js";
import { registerHealthRoute } from "./health.js";
import { registerOpenApi } from "./openapi.js";
import { registerSessionRoutes } from "./sessions.js";
import { registerStepRoutes } from "./steps.js";
import { registerStoredWorkflowRoutes } from "./stored.js";
import { registerTraceRoute } from "./trace.js";
import { registerDownloadRoute } from "./downloads.js";
import { registerMetricsRoute } from "./metrics.js";
import { checkedSerializerCompiler, serializerCompiler, validatorCompiler, zodCompilers } from "./validation.js";

/**
 * Builds the Fastify app on a server context: error handling, every route, the stored-workflow
 * routes. Does not listen.
 * @throws {@link WfError} `WF_WORKFLOWS_DIR_UNREADABLE` when the configured workflows folder cannot be read.
 */
export async function buildApp(context: ServerContext): Promise<FastifyInstance> {
  const { options } = context;
  const app = Fastify({
    logger: options.logger,
    bodyLimit: options.bodyLimitBytes,
    // The routes' zod compilers from the start: Fastify then never loads its default ones (Ajv,
    // fast-json-stringify: ~25 ms of every start, no route uses them).
    schemaController: { compilersFactory: zodCompilers },
    forceCloseConnections: true,
    return503OnClosing: true,
    // Slow clients are cut off: the whole request within requestTimeoutMs (408), no silent
    // connection past connectionTimeoutMs. Node checks the request timeout every
    // connectionsCheckingInterval, so that follows the timeout (default 30 s would let a short
    // timeout run long).
    requestTimeout: options.requestTimeoutMs,
    connectionTimeout: options.connectionTimeoutMs,
    // An idle keep-alive connection is silent too; 72 s (Fastify's default, above common load
    // balancers' 60 s) unless the connection timeout is shorter.
    keepAliveTimeout: options.connectionTimeoutMs > 0 ? Math.min(72_000, options.connectionTimeoutMs) : 72_000,
    http: {
      ...(options.requestTimeoutMs > 0
        ? { connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(options.requestTimeoutMs / 4))), headersTimeout: Math.min(60_000, options.requestTimeoutMs) }
        : {}),
    },
    // Errors Node's HTTP parser raises before Fastify sees a request get problem details too.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => writeClientError(error, socket, options.requestTimeoutMs),
    // Errors raised before routing (a URL that doesn't decode) get problem details too.
    frameworkErrors: (error, request, reply) => {
      void sendProblem(reply, new HttpProblem("WF_ROUTE_NOT_FOUND", `The URL is not valid (${error.message}). Percent-encode the path.`), pathOf(request));
    },
  });

  // Security headers on every answer: no MIME sniffing, no framing (the debugger page is the only
  // HTML and sets its own CSP, with `frame-ancestors 'none'`), nothing else loads for the JSON API.
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: "deny" },
  });

  registerJsonBodyParser(app);
  // Each route's zod schemas validate its request (a failure is the 422 problem); answers are sent
  // as they are, or checked against their declared schema first with checkResponses (tests).
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(options.checkResponses ? checkedSerializerCompiler : serializerCompiler);

  // 5xx answers are logged with their stack (pino's `err` serializer), under the request id the answer names.
  const logsErrors = Boolean(options.logger) && (app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.("error") === true;
  app.setErrorHandler(errorHandler(logsErrors));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new HttpProblem("WF_ROUTE_NOT_FOUND", `No route ${request.method} ${pathOf(request)}. See ${ROUTES.openapi} for the routes.`), pathOf(request)),
  );

  // With several instances on one PostgreSQL, requests about a session go to the instance holding it.
  if (context.store.driver === "postgres") await registerForwarding(app, context);

  // Before any route: the document is generated from the routes registered after it.
  registerOpenApi(app, context);
  registerHealthRoute(app, context);
  registerStepRoutes(app, context);
  registerSessionRoutes(app, context);
  await registerDebuggerRoutes(app, context);
  registerTraceRoute(app, context);
  registerDownloadRoute(app, context);
  registerMetricsRoute(app, context);
  await registerStoredWorkflowRoutes(app, context);
  return app;
}
