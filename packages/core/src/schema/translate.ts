/**
 * zod → OpenAI strict structured outputs, and back.
 *
 * `toResponseFormat` turns a zod 4 or zod 3 schema into the `response_format` strict mode accepts
 * (rules and limits: `limits.ts`, from https://platform.openai.com/docs/guides/structured-outputs#supported-schemas);
 * `decodeAnswer` parses the answer back through the same schema. The construct-by-construct table
 * is in the package README.
 *
 * The translation runs in three passes: `_check.ts` rejects, with the zod path, what strict mode
 * cannot express; the well-kept converters (zod 4's `z.toJSONSchema`, `zod-to-json-schema` for zod 3)
 * write JSON Schema of the schema's *input* (the model writes JSON that zod then parses); and
 * `_strictify.ts` rewrites that into the strict subset, which `limits.ts` then measures.
 */
import { createRequire } from "node:module";
import { z } from "zod";
import type { z as z3 } from "zod/v3";
import type { zodToJsonSchema } from "zod-to-json-schema";
import type { ResponseFormat } from "../protocol/index.js";
import { AnswerValidationError, SchemaTranslationError, type ValidationIssue } from "../errors.js";
import { checkSchema } from "./_check.js";
import { strictify } from "./_strictify.js";
import {
  acceptsNull,
  acceptsUndefined,
  element,
  inner,
  isObjectLike,
  isZod4,
  node,
  options,
  pipeParts,
  recordParts,
  shape,
  sides,
  tupleParts,
} from "./_zod-node.js";
import { checkLimits, checkResponseFormatName } from "./limits.js";
import type { AnySchema, InferSchema } from "./types.js";

/**
 * The property a non-object root travels in. Strict mode wants an object at the root, so
 * `z.array(X)` travels as `{ type: "object", properties: { value: <array> }, required: ["value"],
 * additionalProperties: false }` and `decodeAnswer` takes the answer's `value` back out.
 */
export const WRAPPER_KEY = "value";

type Json = Record<string, unknown>;

/**
 * True when `schema`'s root is not an object, so its strict form is wrapped in
 * `{ value: … }` (see {@link WRAPPER_KEY}). Objects — also refined, transformed, branded,
 * read-only ones and intersections of objects — travel as they are; anything else (arrays,
 * primitives, unions, records, optional or nullable objects) is wrapped.
 *
 * @throws TypeError if `schema` is not a zod schema.
 */
export function isWrapped(schema: AnySchema): boolean {
  return !isObjectLike(schema);
}

const cache = new WeakMap<object, Json>();

/** zod 3's builder and `zod-to-json-schema`, loaded on the first zod 3 schema (see {@link zod3}). */
let zod3Support: { z3: typeof z3; zodToJsonSchema: typeof zodToJsonSchema } | undefined;

/**
 * zod 3's builder and its JSON Schema converter, loaded when a zod 3 schema first needs them:
 * ~50 modules a zod 4 user never runs, off every `wf run`'s start-up. `require` keeps the
 * translation synchronous; the converter reads each schema's `_def` (no `instanceof`), so a zod 3
 * schema from zod's ES module build converts the same through these CommonJS builds.
 */
function zod3(): NonNullable<typeof zod3Support> {
  if (!zod3Support) {
    const require = createRequire(import.meta.url);
    zod3Support = { z3: (require("zod/v3") as typeof import("zod/v3")).z, zodToJsonSchema: (require("zod-to-json-schema") as typeof import("zod-to-json-schema")).zodToJsonSchema };
  }
  return zod3Support;
}

/**
 * The strict-mode JSON Schema of `schema` (the `schema` field of {@link toResponseFormat}'s
 * result): an object at the root, every object closed (`additionalProperties: false`) with every
 * property required, optional fields as unions with `null`, recursion through `$defs`/`$ref`.
 *
 * @returns a fresh copy on each call.
 * @throws {@link SchemaTranslationError} naming the zod path and the reason when a construct
 *   cannot be expressed, or when the schema exceeds one of OpenAI's documented limits.
 */
export function toStrictJsonSchema(schema: AnySchema): Json {
  let strict = cache.get(schema);
  if (!strict) {
    checkSchema(schema);
    const wrapped = isWrapped(schema);
    try {
      strict = strictify(convert(wrapped ? wrap(schema) : schema));
    } catch (error) {
      // Report paths in the user's schema, not in the wrapper.
      if (wrapped && error instanceof SchemaTranslationError && error.path[0] === WRAPPER_KEY) {
        throw new SchemaTranslationError(error.path.slice(1), error.reason, { cause: error });
      }
      throw error;
    }
    checkLimits(strict);
    cache.set(schema, strict);
  }
  return structuredClone(strict);
}

/**
 * Turns a zod schema into an OpenAI strict structured output:
 * `{ type: "json_schema", json_schema: { name, strict: true, schema } }`, where `schema` is
 * {@link toStrictJsonSchema}'s result. Follows OpenAI's "Structured model outputs" guide,
 * section "Supported schemas" (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
 *
 * @param schema - a zod 4 schema, or a zod 3 schema (`import { z } from "zod/v3"`).
 * @param name - the response format's name: 1 to 64 of `a-z A-Z 0-9 _ -`.
 * @throws {@link SchemaTranslationError} when the name is invalid, a construct cannot be
 *   expressed (the error names its zod path), or the schema exceeds a documented limit.
 * @example toResponseFormat(z.object({ title: z.string() }), "answer")
 */
export function toResponseFormat(schema: AnySchema, name: string): ResponseFormat {
  checkResponseFormatName(name);
  return { type: "json_schema", json_schema: { name, strict: true, schema: toStrictJsonSchema(schema) } };
}

/**
 * Turns an answer written against {@link toResponseFormat}'s schema back into the user's type:
 * takes the value out of the wrapper (for a non-object root), turns `null` back into `undefined`
 * where the field was optional (and does not accept `null` itself), turns ISO date-time strings
 * into `Date`s where the schema has `z.date()`, then parses through the original zod schema
 * (so refinements, transforms and defaults apply).
 *
 * @param json - the answer: parsed JSON, or a JSON text.
 * @returns the parsed value, typed as the schema's output.
 * @throws {@link AnswerValidationError} carrying the zod issues and the raw answer when it does not match.
 */
export function decodeAnswer<S extends AnySchema>(schema: S, json: unknown): InferSchema<S> {
  let value = json;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // Not JSON: let the parse below report the mismatch.
    }
  }
  if (isWrapped(schema)) {
    if (!value || typeof value !== "object" || Array.isArray(value) || !(WRAPPER_KEY in value)) {
      throw new AnswerValidationError(
        [{ path: [], message: `expected the wrapper object { "${WRAPPER_KEY}": … } of a non-object schema`, code: "invalid_type" }],
        json,
      );
    }
    value = (value as Json)[WRAPPER_KEY];
    if (value === null && !acceptsNull(schema) && acceptsUndefined(schema)) value = undefined;
  }
  const restored = restore(schema, value, 0);
  const result = (schema as { safeParse(input: unknown): { success: boolean; data?: unknown; error?: { issues: ValidationIssue[] } } }).safeParse(restored);
  if (!result.success) {
    const issues = (result.error?.issues ?? []).map((issue) => ({ path: issue.path, message: issue.message, ...(issue.code ? { code: String(issue.code) } : {}) }));
    throw new AnswerValidationError(issues, json);
  }
  return result.data as InferSchema<S>;
}

/** Wraps a non-object root in `{ value: root }`, with the zod version of the root. */
function wrap(schema: AnySchema): unknown {
  return isZod4(schema) ? z.object({ [WRAPPER_KEY]: schema as z.ZodType }) : zod3().z3.object({ [WRAPPER_KEY]: schema as z3.ZodTypeAny });
}

/** JSON Schema of the input of a checked schema, through the converter of its zod version. */
function convert(schema: unknown): Json {
  try {
    if (isZod4(schema)) {
      return z.toJSONSchema(schema as z.ZodType, {
        target: "draft-2020-12",
        // The model writes the JSON that the schema then parses: describe the input.
        io: "input",
        cycles: "ref",
        reused: "inline",
        unrepresentable: (ctx) =>
          // z.date() travels as an ISO date-time string; decodeAnswer turns it back into a Date.
          ctx.zodSchema._zod.def.type === "date" ? { type: "string", format: "date-time" } : "throw",
      }) as Json;
    }
    return zod3().zodToJsonSchema(schema as z3.ZodTypeAny, {
      target: "jsonSchema7",
      $refStrategy: "root",
      definitionPath: "$defs",
      effectStrategy: "input",
      pipeStrategy: "input",
      dateStrategy: "format:date-time",
      emailStrategy: "format:email",
      applyRegexFlags: true,
    }) as Json;
  } catch (error) {
    if (error instanceof SchemaTranslationError) throw error;
    throw new SchemaTranslationError([], `the JSON Schema converter failed: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Undoes what the strict form did to the answer, walking the zod schema beside the value:
 * `null` → `undefined` for optional fields, ISO strings → `Date` for `z.date()`. Leaves
 * anything it does not recognise as it is, for the zod parse to judge.
 */
function restore(schema: unknown, value: unknown, depth: number): unknown {
  if (depth > 500) return value;
  const n = node(schema);
  switch (n.kind) {
    case "optional":
    case "default":
      if (value === null && !acceptsNull(inner(n))) return undefined;
      return restore(inner(n), value, depth + 1);
    case "catch":
    case "nullable":
    case "readonly":
    case "brand":
    case "nonoptional":
    case "lazy":
      return value === null && n.kind === "nullable" ? null : restore(inner(n), value, depth + 1);
    case "effects":
      // Refinements, transforms and zod 3 preprocess: the answer was written against the inner schema.
      return restore(inner(n), value, depth + 1);
    case "pipe": {
      // The answer was written against the input side (for z.preprocess, the target schema).
      const { in: input, out } = pipeParts(n);
      return restore(node(input).kind === "transform" ? out : input, value, depth + 1);
    }
    case "date":
      if (typeof value === "string") {
        const date = new Date(value);
        return Number.isNaN(date.getTime()) ? value : date;
      }
      return value;
    case "object": {
      if (!isPlainObject(value)) return value;
      const out: Json = { ...value };
      for (const [key, child] of shape(n)) {
        if (!(key in out)) continue;
        const restored = restore(child, out[key], depth + 1);
        if (restored === undefined) delete out[key];
        else out[key] = restored;
      }
      return out;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      const child = recordParts(n).value;
      const out: Json = {};
      for (const [key, item] of Object.entries(value)) {
        // A key a partial record may leave out travels as null.
        if (item === null && !acceptsNull(child)) continue;
        out[key] = restore(child, item, depth + 1);
      }
      return out;
    }
    case "array":
      return Array.isArray(value) ? value.map((item) => restore(element(n), item, depth + 1)) : value;
    case "tuple": {
      if (!Array.isArray(value)) return value;
      const { items, rest } = tupleParts(n);
      return value.map((item, i) => {
        const itemSchema = i < items.length ? items[i] : rest;
        return itemSchema ? restore(itemSchema, item, depth + 1) : item;
      });
    }
    case "union":
      // The first option that parses the restored value wins.
      for (const option of options(n)) {
        const restored = restore(option, value, depth + 1);
        if ((option as { safeParse(v: unknown): { success: boolean } }).safeParse(restored).success) return restored;
      }
      return value;
    case "intersection": {
      const [left, right] = sides(n);
      return restore(right, restore(left, value, depth + 1), depth + 1);
    }
    default:
      return value;
  }
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
