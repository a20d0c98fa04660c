/**
 * The OpenAPI 3.1 document, generated from the routes' own declarations: each route's zod schemas
 * (`schema.params`, `querystring`, `headers`, `body`, `response`) and its `summary`, `description`,
 * `tags` and `security`, collected by `@fastify/swagger` and converted by
 * `fastify-type-provider-zod` (zod 4's `z.toJSONSchema`). Nothing describes a route a second time.
 * Served at `GET ROUTES.openapi` with the API key, its `servers` the server's public URL.
 *
 * Generated on the first request, not at start: the app only notes each route's declaration as it
 * is added (a hook); the first request registers `@fastify/swagger` on a scratch Fastify instance,
 * adds those declarations to it (a handler that is never called) and keeps the document it makes.
 * `@fastify/swagger` loads its reference resolver and a YAML library when registered, and
 * collects routes only through a hook registered before them: at start that cost ~50–100 ms of
 * every server's start, `wf run`'s embedded one too, for a document few clients read.
 *
 * The helpers {@link jsonAnswer}, {@link mediaAnswer}, {@link problemAnswers} and {@link SECURITY}
 * are what route files write in their `schema.response` and `schema.security`.
 */
import type { FastifyInstance, RouteOptions } from "fastify";
import { z } from "zod";
import { PROBLEM_CONTENT_TYPE, ProblemDetails, ROUTES } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { noCompilers, UNCHECKED_ANSWER } from "./validation.js";

/**
 * Problem details as a component of the document (`#/components/schemas/ProblemDetails`), named
 * once instead of repeated in every error answer: a copy of the schema with an `id` in zod's
 * global registry, where the converter also finds every schema's `.describe()` text.
 */
const ProblemDetailsComponent = ProblemDetails.meta({ id: "ProblemDetails" });

/** Operation extension: the request body may be left out (`requestBody.required: false`). */
export const BODY_OPTIONAL = "x-wf-body-optional";

/** `schema.security` of each kind of route: the API key (header or bearer), none, or a session's `?token=` (or the key). */
export const SECURITY = {
  apiKey: [{ apiKey: [] }, { bearer: [] }],
  none: [],
  sessionToken: [{ sessionToken: [] }, { apiKey: [] }],
} as const satisfies Record<string, Array<Record<string, string[]>>>;

/** A JSON answer with its zod schema (the `200` of most routes). */
export function jsonAnswer<S extends z.ZodType>(schema: S, description = "OK") {
  return { description, content: { "application/json": { schema } } };
}

/** An answer that is not JSON (a page, a zip, an image, an event stream), described in words (never checked: `UNCHECKED_ANSWER`). */
export function mediaAnswer(contentType: string, description: string) {
  return { description, content: { [contentType]: { schema: UNCHECKED_ANSWER } } };
}

/** The error answers of a route, status → description, each `application/problem+json` {@link ProblemDetails}. */
export function problemAnswers(errors: Record<number, string>) {
  return Object.fromEntries(
    Object.entries(errors).map(([status, description]) => [status, { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemDetailsComponent } } }]),
  );
}

type OpenApiDocument = { paths?: Record<string, Record<string, Record<string, unknown>>>; components?: { schemas?: Record<string, unknown> } };

/**
 * Notes every route added after it (call it before any route) and registers `GET ROUTES.openapi`,
 * whose document is generated from them on its first request and kept ({@link generateDocument}).
 */
export function registerOpenApi(app: FastifyInstance, context: ServerContext): void {
  const routes: RouteOptions[] = [];
  // HEAD routes are Fastify's own copies of the GET ones; @fastify/swagger leaves them out too.
  app.addHook("onRoute", (route) => {
    if (route.method !== "HEAD") routes.push(route);
  });
  let document: Promise<OpenApiDocument> | undefined;

  app.get(
    ROUTES.openapi,
    {
      onRequest: context.auth.requireApiKey,
      schema: {
        summary: "This OpenAPI 3.1 document",
        tags: ["service"],
        security: SECURITY.apiKey,
        response: { 200: mediaAnswer("application/json", "The OpenAPI 3.1 document."), ...problemAnswers({ 401: "Missing or wrong API key" }) },
      },
    },
    async () => {
      document ??= generateDocument(routes, context.version).catch((error: unknown) => {
        document = undefined; // the next request tries again
        throw error;
      });
      return { ...(await document), servers: [{ url: context.publicUrl() }] };
    },
  );
}

/**
 * The OpenAPI document of `routes` (as Fastify's `onRoute` hook saw them): `@fastify/swagger` on a
 * scratch Fastify instance that is given the same declarations (method, URL, schema, config) with
 * a handler never called, made ready (swagger's work happens then) and closed.
 */
async function generateDocument(routes: readonly RouteOptions[], version: string): Promise<OpenApiDocument> {
  const [{ default: Fastify }, { default: swagger }, { jsonSchemaTransform, jsonSchemaTransformObject }] = await Promise.all([
    import("fastify"),
    import("@fastify/swagger"),
    import("fastify-type-provider-zod"),
  ]);
  // No request reaches it: its routes' schemas need no real validator or serializer (nor Ajv loaded).
  const scratch = Fastify({ schemaController: { compilersFactory: noCompilers } });
  try {
    await scratch.register(swagger, {
      openapi: {
        openapi: "3.1.0",
        info: {
          title: "wf browser-automation service",
          version,
          description: "Step mode and stored workflows over a real Chromium. Contract: docs/protocol.md.",
        },
        security: [{ bearer: [] }, { apiKey: [] }],
        components: {
          securitySchemes: {
            apiKey: { type: "apiKey", in: "header", name: "api-key" },
            bearer: { type: "http", scheme: "bearer" },
            sessionToken: { type: "apiKey", in: "query", name: "token", description: "The sessionToken of the session (debugger page routes only)." },
          },
        },
      },
      // zod's `const` stays `const` (JSON Schema 2020-12), as the schemas say it.
      convertConstToEnum: false,
      transform: jsonSchemaTransform,
      transformObject: (input) => finish(jsonSchemaTransformObject(input) as OpenApiDocument),
    });
    const unused = () => undefined;
    for (const route of routes) {
      scratch.route({ method: route.method, url: route.url, ...(route.schema ? { schema: route.schema } : {}), ...(route.config ? { config: route.config } : {}), handler: unused });
    }
    await scratch.ready();
    return scratch.swagger() as OpenApiDocument;
  } finally {
    await scratch.close();
  }
}

/**
 * The last touches: a component's input form (the converter makes one of each) is left out when no
 * request refers to it (problem details are only answered), and `requestBody.required: false` where
 * a route says {@link BODY_OPTIONAL}.
 */
function finish(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  const used = JSON.stringify(document.paths ?? {});
  for (const id of Object.keys(schemas)) {
    const input = `${id}Input`;
    if (input in schemas && !used.includes(`"#/components/schemas/${input}"`)) delete schemas[input];
  }
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!(BODY_OPTIONAL in operation)) continue;
      delete operation[BODY_OPTIONAL];
      const body = operation.requestBody as { required?: boolean } | undefined;
      if (body) body.required = false;
    }
  }
  return document;
}
