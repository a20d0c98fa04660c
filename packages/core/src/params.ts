/**
 * Workflow params that arrive as strings (`wf run --param key=value`, a stored run's `variables`)
 * and the params' JSON Schema (the server's workflow list).
 */
import { z } from "zod";
import { enumValues, inner, literalValues, node, options, pipeParts, type ZodNode } from "./schema/_zod-node.js";
import { isSecret } from "./secret.js";
import { parseParams, type Workflow } from "./workflow.js";

/**
 * Turns string values into the workflow's typed params, then validates them with
 * {@link parseParams} (defaults applied).
 *
 * Each string is converted by its field's zod type (through `.optional()`, `.default()`,
 * `.nullable()`, `.readonly()`, pipes and refinements):
 * - `z.number()` / `z.int()`: `"42"`, `"-1.5"`, `"1e3"`; `z.bigint()`: `"12"`;
 * - `z.boolean()`: `true`, `false`, `1`, `0` (any case);
 * - enums and literals: the value as written, or as a number when the enum holds numbers;
 * - arrays, tuples, objects, records: JSON text (`'["a","b"]'`, `'{"x":1}'`);
 * - `z.date()`: any text `new Date()` reads (ISO 8601 preferred);
 * - nullable fields: `null` gives `null` unless the field is a string;
 * - unions: the first option whose conversion parses;
 * - strings, and anything else: as is.
 * A string that cannot be converted is passed on unchanged, so the validation error names the field.
 *
 * @param values - param name → raw string, e.g. `{ limit: "10", tags: '["a"]' }`.
 * @returns the validated params.
 * @throws {@link ParamsValidationError} listing each bad field.
 * @example parseParamsFromStrings(wf, { q: "postgres", limit: "5", exact: "true" })
 */
export function parseParamsFromStrings<P>(wf: Workflow<P>, values: Record<string, string>): P {
  if (!wf.params) return parseParams(wf, { ...values });
  const fields = wf.params.shape as Record<string, z.ZodType>;
  const converted: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(values)) {
    const field = fields[key];
    converted[key] = field ? convertString(field, raw) : raw;
  }
  return parseParams(wf, converted);
}

function convertString(schema: unknown, raw: string, depth = 0): unknown {
  if (depth > 50) return raw;
  const n = node(schema);
  switch (n.kind) {
    case "optional":
    case "default":
    case "catch":
    case "readonly":
    case "brand":
    case "nonoptional":
    case "lazy":
    case "effects":
      return convertString(inner(n), raw, depth + 1);
    case "nullable": {
      const innerKind = unwrappedKind(inner(n));
      if (raw.trim() === "null" && innerKind !== "string" && innerKind !== "template_literal") return null;
      return convertString(inner(n), raw, depth + 1);
    }
    case "pipe": {
      const { in: input, out } = pipeParts(n);
      return convertString(node(input).kind === "transform" ? out : input, raw, depth + 1);
    }
    case "number": {
      const text = raw.trim();
      const number = text === "" ? Number.NaN : Number(text);
      return Number.isNaN(number) ? raw : number;
    }
    case "bigint":
      try {
        return BigInt(raw.trim());
      } catch {
        return raw;
      }
    case "boolean": {
      const text = raw.trim().toLowerCase();
      if (text === "true" || text === "1") return true;
      if (text === "false" || text === "0") return false;
      return raw;
    }
    case "enum":
      return matchValue(enumValues(n), raw);
    case "literal":
      return matchValue(literalValues(n), raw);
    case "date": {
      const date = new Date(raw.trim());
      return Number.isNaN(date.getTime()) ? raw : date;
    }
    case "array":
    case "tuple":
    case "object":
    case "record":
    case "intersection":
    case "map":
    case "set":
      return parseJson(raw);
    case "union":
      for (const option of options(n)) {
        const value = convertString(option, raw, depth + 1);
        if ((option as z.ZodType).safeParse(value).success) return value;
      }
      return raw;
    case "null":
      return raw.trim() === "null" ? null : raw;
    default:
      return raw;
  }
}

function unwrappedKind(schema: unknown): ZodNode["kind"] {
  let n = node(schema);
  for (let i = 0; i < 20 && ["optional", "default", "nullable", "readonly", "brand", "catch", "lazy", "effects"].includes(n.kind); i++) n = node(inner(n));
  return n.kind;
}

function matchValue(allowed: unknown[], raw: string): unknown {
  if (allowed.includes(raw)) return raw;
  const text = raw.trim();
  if (allowed.includes(text)) return text;
  const number = Number(text);
  if (text !== "" && allowed.includes(number)) return number;
  if (text === "true" && allowed.includes(true)) return true;
  if (text === "false" && allowed.includes(false)) return false;
  if (text === "null" && allowed.includes(null)) return null;
  return raw;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * The workflow's params as a JSON Schema (draft 2020-12) of their *input*: what a caller may send,
 * defaults shown as `default`, optional fields left out of `required`. Secret params (see
 * `secret()`) are marked `writeOnly: true` and their defaults are left out. For the server's
 * workflow list and the CLI's help; this is not a strict structured output.
 *
 * @returns `{ type: "object", properties: {}, additionalProperties: false }` when the workflow has no params.
 */
export function paramsJsonSchema(wf: Pick<Workflow, "params">): Record<string, unknown> {
  if (!wf.params) return { type: "object", properties: {}, additionalProperties: false };
  const schema = z.toJSONSchema(wf.params, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: (ctx) => (ctx.zodSchema._zod.def.type === "date" ? { type: "string", format: "date-time" } : "any"),
    override: (ctx) => {
      if (isSecret(ctx.zodSchema)) {
        ctx.jsonSchema.writeOnly = true;
        delete ctx.jsonSchema.default;
      }
    },
  }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
