/**
 * How requests are validated and answers serialised, for every route: the zod schemas a route
 * declares (`schema.params`, `body`, `querystring`, `headers`, from `@wf/core/protocol`) are run
 * by {@link validatorCompiler}, and a failure is the `WF_VALIDATION_FAILED` (422) problem with
 * JSON Pointer field errors, the same answer {@link createParse} gives inside a handler. With
 * `checkResponses`, answers are checked against their route's declared schema too
 * ({@link checkedSerializerCompiler}).
 */
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from "fastify";
import { z } from "zod";
import { toFieldErrors } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";

/**
 * The 422 problem of a failed zod parse: one field error per issue, its path a JSON Pointer
 * (`prefix` + the issue's path, `~` and `/` escaped), an enum's issue naming the allowed values.
 */
export function validationProblem(error: z.ZodError, prefix = ""): HttpProblem {
  const errors = toFieldErrors(
    error.issues.map((issue) =>
      issue.code === "invalid_value" && issue.values.length > 0
        ? { path: issue.path, message: `${issue.message}; allowed values: ${issue.values.map((v) => String(v)).join(", ")}` }
        : issue,
    ),
    prefix,
  );
  return new HttpProblem("WF_VALIDATION_FAILED", `The request is invalid: ${errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ")}`, { errors });
}

/** Builds the `parse` of a server context: zod parse or the 422 problem with JSON Pointer paths. */
export function createParse(): ServerContext["parse"] {
  return (schema, value, prefix = "") => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw validationProblem(parsed.error, prefix);
  };
}

/**
 * Fastify's validator for the zod schemas of a route. A body that is absent (or JSON `null`) is
 * read as `{}`, so a route whose fields are all optional needs no body. The parsed value (defaults
 * and coercions applied) replaces the request's part, except the headers, which are only checked.
 * A failure is returned (not thrown) as the 422 {@link HttpProblem}, which the error handler answers.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const parsed = schema.safeParse(httpPart === "body" && data == null ? {} : data);
    if (!parsed.success) return { error: validationProblem(parsed.error) };
    return httpPart === "headers" ? true : { value: parsed.data };
  };

/**
 * Answers are serialised as they are, with `JSON.stringify`: the response schemas a route declares
 * describe it in the OpenAPI document and type its handler, but are not run over each answer (no
 * field stripped, no cost per answer).
 */
export function serializerCompiler(): (data: unknown) => string {
  return (data) => JSON.stringify(data);
}

/**
 * The schema of an answer that is not JSON, or not one the protocol describes (a page, a zip, an
 * image, an event stream, the OpenAPI document itself): described in words in the OpenAPI
 * document (`mediaAnswer`), never checked.
 */
export const UNCHECKED_ANSWER = z.string();

/**
 * The serializer of a server with `checkResponses` (tests and development): each JSON answer is
 * parsed with the `@wf/core/protocol` schema its route declares for that status before it is sent,
 * as `JSON.stringify` of the answer itself (nothing stripped). An answer that does not fit is
 * never sent: the request fails 500 `WF_INTERNAL` naming the route and each field, so any test
 * that gets such an answer fails.
 */
export const checkedSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url, httpStatus }) => {
  if (schema === UNCHECKED_ANSWER || typeof (schema as { safeParse?: unknown } | undefined)?.safeParse !== "function") return (data) => JSON.stringify(data);
  return (data) => {
    const parsed = schema.safeParse(data);
    if (parsed.success) return JSON.stringify(data);
    const errors = toFieldErrors(parsed.error.issues);
    throw new HttpProblem(
      "WF_INTERNAL",
      `The server's ${httpStatus} answer to ${method} ${url} breaks its own protocol (@wf/core/protocol): ${errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ")}. It was not sent; this is a bug of the server.`,
    );
  };
};

/** Fastify's `schemaController.compilersFactory`: what builds each route's validator and serializer compilers. */
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>;

/**
 * {@link validatorCompiler} and {@link serializerCompiler} as Fastify's compiler factories
 * (`Fastify({ schemaController: { compilersFactory } })`): given at construction, Fastify never
 * loads its defaults (Ajv and fast-json-stringify, ~25 ms of a start), which no route uses.
 * (Fastify types the factories as Ajv's; it calls them with no argument a zod compiler needs.)
 */
export const zodCompilers = { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as CompilersFactory;

/** Compiler factories for a Fastify instance no request reaches (the OpenAPI document's scratch one): nothing is checked. */
export const noCompilers = { buildValidator: () => () => () => true, buildSerializer: () => () => (data: unknown) => JSON.stringify(data) } as unknown as CompilersFactory;
