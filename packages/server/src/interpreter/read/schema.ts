/**
 * ASK, shaping the answer: the JSON Schema the answer must fit (`$ref`s aside, which the caller
 * resolves), and the found text turned into the schema's type, or `undefined` when it does not fit
 * (never a guess). {@link Missing} carries the paths of required fields that were not found.
 */
import { normalizeText, parseBoolean, parseNumber, similarity, words } from "../_text.js";

/** A JSON Schema object (the strict structured-output subset). */
export type JsonSchema = Record<string, unknown>;

/** What `fill` returns instead of a value when required fields are not on the page: their paths. */
export class Missing {
  constructor(readonly paths: string[]) {}
}

/** A value found on the page: text (or texts), how much its label is trusted, a checkbox state. */
export type Found = { value: string; weight: number; checked?: boolean } | { value: string[]; weight: number };

/** Splits a nullable schema into its non-null part. */
export function unwrapNullable(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.anyOf)) {
    const variants = schema.anyOf as JsonSchema[];
    const nonNull = variants.filter((v) => v.type !== "null");
    const nullable = nonNull.length < variants.length;
    if (nonNull.length === 1) {
      const inner = unwrapNullable(nonNull[0]!);
      return { schema: inner.schema, nullable: nullable || inner.nullable };
    }
    return { schema: nonNull.length ? { anyOf: nonNull } : { type: "null" }, nullable };
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== "null");
    const nullable = types.length < (schema.type as string[]).length;
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable };
  }
  return { schema, nullable: schema.type === "null" };
}

/** The type a schema asks for: its `type`, else what its keywords imply (`properties`: object, `enum`, `const`…), else string. */
export function schemaType(schema: JsonSchema): string {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return (schema.type as string[])[0] ?? "string";
  if (schema.properties) return "object";
  if (schema.items) return "array";
  if (Array.isArray(schema.enum)) return "enum";
  if ("const" in schema) return "const";
  return "string";
}

/** Turns found text into the schema's type; undefined when it does not fit (never a guess). */
export function coerce(schema: JsonSchema, found: Found): unknown {
  const type = schemaType(schema);
  const raw = found.value;
  if (Array.isArray(raw)) return type === "string" ? raw[0] : undefined;
  const text = raw.trim();
  if (Array.isArray(schema.enum)) return matchEnum(schema.enum as unknown[], text);
  switch (type) {
    case "string":
      return normalizeText(text);
    case "number": {
      const n = parseNumber(text);
      return n;
    }
    case "integer": {
      const n = parseNumber(text);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case "boolean":
      if ("checked" in found && found.checked !== undefined) return found.checked;
      return parseBoolean(text);
    case "null":
      return null;
    case "enum":
      return matchEnum(schema.enum as unknown[], text);
    case "const":
      return schema.const;
    default:
      if (Array.isArray(schema.enum)) return matchEnum(schema.enum as unknown[], text);
      return undefined;
  }
}

/** The enum option `text` names: exactly, by its words, by containment, else by a clear similarity (0.8 or more). */
function matchEnum(options: unknown[], text: string): unknown {
  const exact = options.find((o) => String(o) === text);
  if (exact !== undefined) return exact;
  const norm = (s: string) => words(s).join("");
  const t = norm(text);
  const loose = options.filter((o) => norm(String(o)) === t);
  if (loose.length === 1) return loose[0];
  const contained = options.filter((o) => {
    const n = norm(String(o));
    return n.length > 0 && (t.includes(n) || n.includes(t));
  });
  if (contained.length === 1) return contained[0];
  const scored = options.map((o) => ({ o, s: similarity(String(o), text) })).sort((a, b) => b.s - a.s);
  if (scored[0] && scored[0].s >= 0.8 && (!scored[1] || scored[1].s < scored[0].s)) return scored[0].o;
  return undefined;
}
