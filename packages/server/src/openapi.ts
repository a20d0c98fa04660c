/**
 * The OpenAPI 3.1 document of the service, generated from the same zod schemas the routes
 * validate with (`@wf/core/protocol`), converted with zod 4's `z.toJSONSchema`. Routes register
 * themselves in an {@link OpenApiRegistry}; the document is built when it is asked for.
 */
import { z } from "zod";
import { PROBLEM_CONTENT_TYPE, ProblemDetails } from "@wf/core/protocol";

/** One operation of the document. */
export interface OpenApiOperation {
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI path with `{name}` placeholders, e.g. `ROUTES.stepRun`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** Request body schema (JSON). */
  body?: z.ZodType;
  /** Whether the body must be sent. @default true */
  bodyRequired?: boolean;
  /** Query parameters, as a zod object. */
  query?: z.ZodObject;
  /** Path parameters and their descriptions. */
  pathParams?: Record<string, string>;
  /** Extra request headers, name → description. */
  headers?: Record<string, string>;
  /** Schema of the 200 answer (JSON), or a media type and description for other content. */
  response: z.ZodType | { contentType: string; description: string };
  /** Error statuses the operation may answer, with a description each. */
  errors?: Record<number, string>;
  /** How the route authenticates. @default "apiKey" */
  auth?: "apiKey" | "none" | "sessionToken";
}

/** Collects operations and renders the OpenAPI 3.1 document. */
export class OpenApiRegistry {
  private readonly operations: OpenApiOperation[] = [];

  constructor(private readonly info: { title: string; version: string; description: string }) {}

  /** Adds an operation (later additions with the same method and path replace earlier ones). */
  add(operation: OpenApiOperation): void {
    const i = this.operations.findIndex((o) => o.method === operation.method && o.path === operation.path);
    if (i >= 0) this.operations[i] = operation;
    else this.operations.push(operation);
  }

  /** The OpenAPI 3.1 document. `serverUrl` is the base URL the service answers on. */
  document(serverUrl: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of this.operations) {
      const parameters: unknown[] = [];
      for (const [name, description] of Object.entries(op.pathParams ?? {})) {
        parameters.push({ name, in: "path", required: true, description, schema: { type: "string" } });
      }
      if (op.query) {
        const json = toJson(op.query, "input") as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
        for (const [name, schema] of Object.entries(json.properties ?? {})) {
          const { description, ...rest } = schema;
          parameters.push({ name, in: "query", required: json.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest });
        }
      }
      for (const [name, description] of Object.entries(op.headers ?? {})) {
        parameters.push({ name, in: "header", required: false, description, schema: { type: "string" } });
      }
      const responses: Record<string, unknown> = {
        "200":
          op.response instanceof z.ZodType
            ? { description: "OK", content: { "application/json": { schema: toJson(op.response, "output") } } }
            : { description: op.response.description, content: { [op.response.contentType]: { schema: { type: "string" } } } },
      };
      for (const [status, description] of Object.entries(op.errors ?? {})) {
        responses[status] = { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/ProblemDetails" } } } };
      }
      const auth = op.auth ?? "apiKey";
      paths[op.path] ??= {};
      paths[op.path]![op.method] = {
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        ...(op.tags ? { tags: op.tags } : {}),
        ...(parameters.length ? { parameters } : {}),
        ...(op.body ? { requestBody: { required: op.bodyRequired ?? true, content: { "application/json": { schema: toJson(op.body, "input") } } } } : {}),
        responses,
        security: auth === "apiKey" ? [{ apiKey: [] }, { bearer: [] }] : auth === "sessionToken" ? [{ sessionToken: [] }, { apiKey: [] }] : [],
      };
    }
    return {
      openapi: "3.1.0",
      info: this.info,
      servers: [{ url: serverUrl }],
      security: [{ bearer: [] }, { apiKey: [] }],
      paths,
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "api-key" },
          bearer: { type: "http", scheme: "bearer" },
          sessionToken: { type: "apiKey", in: "query", name: "token", description: "The sessionToken of the session (debugger page routes only)." },
        },
        schemas: { ProblemDetails: toJson(ProblemDetails, "output") },
      },
    };
  }
}

function toJson(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
