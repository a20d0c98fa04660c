/**
 * The zod-level pass of the translator: walks the user's schema (zod 4 or zod 3) and rejects, with
 * the zod path, every construct OpenAI's strict structured outputs cannot express. What passes is
 * handed to the converters (`z.toJSONSchema`, `zod-to-json-schema`). Internal to `@wf/core`.
 */
import { SchemaTranslationError } from "../errors.js";
import {
  element,
  finiteKeys,
  inner,
  isObjectLike,
  literalValues,
  node,
  options,
  pipeParts,
  recordParts,
  shape,
  sides,
  tupleParts,
  enumValues,
  type ZodKind,
} from "./_zod-node.js";

type Path = ReadonlyArray<string | number>;

/** Why each construct strict mode cannot express is refused, and what to write instead. */
const REJECTED: Partial<Record<ZodKind, string>> = {
  any: "z.any() accepts any value, but strict mode needs a type for every value. Give it a concrete schema (z.string(), z.number(), a union, …).",
  unknown: "z.unknown() accepts any value, but strict mode needs a type for every value. Give it a concrete schema (z.string(), z.number(), a union, …).",
  never: "z.never() accepts no value and has no strict-mode schema. Remove the field.",
  undefined: "undefined is not a JSON value. Mark the field .optional() instead (it travels as null and comes back as undefined).",
  void: "undefined is not a JSON value. Mark the field .optional() instead (it travels as null and comes back as undefined).",
  bigint: "a bigint has no JSON form. Use z.number().int() or z.string().",
  symbol: "a symbol has no JSON form.",
  nan: "NaN is not a JSON value. Use z.number().",
  map: "a Map has no JSON form. Use z.array(z.object({ key: …, value: … })), or an object with known keys.",
  set: "a Set has no JSON form. Use z.array(…).",
  function: "a function has no JSON form.",
  promise: "a promise has no JSON form. Use the schema of the value it resolves to.",
  file: "a File has no JSON form.",
  custom: "z.custom() / z.instanceof() has no JSON Schema, and strict mode needs a type for every value. Use a concrete schema and .refine() it.",
  transform: "a bare transform has no input type. Write schema.transform(fn) so the input is described by the schema.",
  success: "z.success() has no JSON Schema.",
};

/**
 * Checks that every construct of `schema` can be expressed in strict mode.
 *
 * @throws {@link SchemaTranslationError} naming the zod path of the first construct that cannot.
 */
export function checkSchema(schema: unknown): void {
  walk(schema, [], new Set());
}

function walk(schema: unknown, path: Path, seen: Set<unknown>): void {
  // A schema already checked (or being checked, for recursion) needs no second visit.
  if (seen.has(schema)) return;
  seen.add(schema);
  let n;
  try {
    n = node(schema);
  } catch (error) {
    throw new SchemaTranslationError(path, (error as Error).message, { cause: error });
  }
  const rejected = REJECTED[n.kind];
  if (rejected) throw new SchemaTranslationError(path, rejected);
  switch (n.kind) {
    case "string":
    case "number":
    case "boolean":
    case "date":
    case "null":
    case "template_literal":
      return;
    case "literal":
      for (const value of literalValues(n)) {
        if (value !== null && !["string", "number", "boolean"].includes(typeof value)) {
          throw new SchemaTranslationError(path, `the literal ${String(value)} (${typeof value}) is not a JSON value. Use a string, number, boolean or null literal.`);
        }
      }
      return;
    case "enum":
      for (const value of enumValues(n)) {
        if (typeof value !== "string" && typeof value !== "number") {
          throw new SchemaTranslationError(path, `the enum value ${String(value)} is not a string or a number.`);
        }
      }
      return;
    case "object":
      for (const [key, child] of shape(n)) walk(child, [...path, key], seen);
      return;
    case "array":
      walk(element(n), [...path, 0], seen);
      return;
    case "tuple": {
      const { items, rest } = tupleParts(n);
      items.forEach((item, i) => walk(item, [...path, i], seen));
      if (rest) walk(rest, [...path, items.length], seen);
      return;
    }
    case "union":
      for (const option of options(n)) walk(option, path, seen);
      return;
    case "intersection": {
      const [left, right] = sides(n);
      if (!isObjectLike(left) || !isObjectLike(right)) {
        throw new SchemaTranslationError(
          path,
          "only intersections of objects can be expressed (they merge into one object); strict mode has no allOf. Merge the schemas with .extend() or write a union.",
        );
      }
      walk(left, path, seen);
      walk(right, path, seen);
      return;
    }
    case "record": {
      const { key, value } = recordParts(n);
      const keys = finiteKeys(key);
      if (!keys) {
        throw new SchemaTranslationError(
          path,
          "a record with free keys needs additionalProperties, which strict mode forbids (every object lists its properties). " +
            "Use z.record(z.enum([...]), …) with known keys, or z.array(z.object({ key: z.string(), value: … })).",
        );
      }
      walk(value, path, seen);
      return;
    }
    case "pipe": {
      const { in: input, out } = pipeParts(n);
      // z.preprocess(fn, schema) is a pipe from a transform: the model writes what `schema` takes.
      walk(node(input).kind === "transform" ? out : input, path, seen);
      return;
    }
    case "optional":
    case "nullable":
    case "default":
    case "catch":
    case "readonly":
    case "brand":
    case "nonoptional":
    case "lazy":
    case "effects":
      walk(inner(n), path, seen);
      return;
    default:
      throw new SchemaTranslationError(path, `the zod construct "${n.rawType}" has no strict-mode translation.`);
  }
}
