/**
 * A version-agnostic view of a zod schema node: zod 4 (`schema._zod.def.type`) and zod 3
 * (`schema._def.typeName`) say the same things in different words. The translator's checks, the
 * root-wrapping decision and the answer decoder all walk schemas through this view.
 * Internal to `@wf/core`.
 */

/** The zod construct a node is, in one vocabulary for both zod versions. */
export type ZodKind =
  | "string"
  | "number"
  | "boolean"
  | "date"
  | "null"
  | "literal"
  | "enum"
  | "template_literal"
  | "object"
  | "array"
  | "tuple"
  | "union"
  | "intersection"
  | "record"
  | "optional"
  | "nullable"
  | "default"
  | "catch"
  | "readonly"
  | "brand"
  | "nonoptional"
  | "effects"
  | "pipe"
  | "lazy"
  // Constructs strict mode cannot take:
  | "any"
  | "unknown"
  | "never"
  | "undefined"
  | "void"
  | "bigint"
  | "symbol"
  | "nan"
  | "map"
  | "set"
  | "function"
  | "promise"
  | "file"
  | "custom"
  | "transform"
  | "success"
  | "other";

/** One schema node: its kind, its zod major version and the raw schema. */
export interface ZodNode {
  kind: ZodKind;
  version: 3 | 4;
  /** The zod type name as the library spells it (for messages). */
  rawType: string;
  schema: unknown;
}

type Def = Record<string, unknown>;

const V3_KINDS: Record<string, ZodKind> = {
  ZodString: "string",
  ZodNumber: "number",
  ZodBoolean: "boolean",
  ZodDate: "date",
  ZodNull: "null",
  ZodLiteral: "literal",
  ZodEnum: "enum",
  ZodNativeEnum: "enum",
  ZodObject: "object",
  ZodArray: "array",
  ZodTuple: "tuple",
  ZodUnion: "union",
  ZodDiscriminatedUnion: "union",
  ZodIntersection: "intersection",
  ZodRecord: "record",
  ZodOptional: "optional",
  ZodNullable: "nullable",
  ZodDefault: "default",
  ZodCatch: "catch",
  ZodReadonly: "readonly",
  ZodBranded: "brand",
  ZodEffects: "effects",
  ZodPipeline: "pipe",
  ZodLazy: "lazy",
  ZodAny: "any",
  ZodUnknown: "unknown",
  ZodNever: "never",
  ZodUndefined: "undefined",
  ZodVoid: "void",
  ZodBigInt: "bigint",
  ZodSymbol: "symbol",
  ZodNaN: "nan",
  ZodMap: "map",
  ZodSet: "set",
  ZodFunction: "function",
  ZodPromise: "promise",
};

const V4_KINDS: Record<string, ZodKind> = {
  string: "string",
  number: "number",
  int: "number",
  boolean: "boolean",
  date: "date",
  null: "null",
  literal: "literal",
  enum: "enum",
  template_literal: "template_literal",
  object: "object",
  array: "array",
  tuple: "tuple",
  union: "union",
  intersection: "intersection",
  record: "record",
  optional: "optional",
  nullable: "nullable",
  default: "default",
  prefault: "default",
  catch: "catch",
  readonly: "readonly",
  nonoptional: "nonoptional",
  pipe: "pipe",
  lazy: "lazy",
  any: "any",
  unknown: "unknown",
  never: "never",
  undefined: "undefined",
  void: "void",
  bigint: "bigint",
  symbol: "symbol",
  nan: "nan",
  map: "map",
  set: "set",
  function: "function",
  promise: "promise",
  file: "file",
  custom: "custom",
  transform: "transform",
  success: "success",
};

/** True when `value` is a zod 4 schema. */
export function isZod4(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as { _zod?: { def?: unknown } })._zod?.def === "object";
}

/** True when `value` is a zod 3 schema (`zod/v3`, or the zod 3 package). */
export function isZod3(value: unknown): boolean {
  return typeof value === "object" && value !== null && !("_zod" in value) && typeof (value as { _def?: { typeName?: unknown } })._def?.typeName === "string";
}

function def(schema: unknown): Def {
  return isZod4(schema) ? ((schema as { _zod: { def: Def } })._zod.def) : ((schema as { _def: Def })._def);
}

/** The node view of `schema`. Throws a TypeError when `schema` is not a zod schema at all. */
export function node(schema: unknown): ZodNode {
  if (isZod4(schema)) {
    const type = String(def(schema).type);
    return { kind: V4_KINDS[type] ?? "other", version: 4, rawType: type, schema };
  }
  if (isZod3(schema)) {
    const typeName = String(def(schema).typeName);
    return { kind: V3_KINDS[typeName] ?? "other", version: 3, rawType: typeName, schema };
  }
  throw new TypeError(`Expected a zod schema (zod 4, or zod 3 from "zod/v3"), got ${describeValue(schema)}.`);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 5))}`;
}

/** The schema a wrapper node (optional, nullable, default, catch, readonly, brand, nonoptional, lazy, effects) wraps. */
export function inner(n: ZodNode): unknown {
  const d = def(n.schema);
  switch (n.kind) {
    case "lazy":
      return (d.getter as () => unknown)();
    case "brand":
      return d.type;
    case "effects":
      return d.schema;
    default:
      return d.innerType;
  }
}

/** For a pipe: the schema that parses the input (`in`), and the one after (`out`). */
export function pipeParts(n: ZodNode): { in: unknown; out: unknown } {
  const d = def(n.schema);
  return { in: d.in, out: d.out };
}

/** The properties of an object node, in declaration order. */
export function shape(n: ZodNode): Array<[string, unknown]> {
  const d = def(n.schema);
  const s = (n.version === 4 ? d.shape : (d.shape as () => Record<string, unknown>)()) as Record<string, unknown>;
  return Object.keys(s).map((key) => [key, s[key]]);
}

/** The element schema of an array node. */
export function element(n: ZodNode): unknown {
  const d = def(n.schema);
  return n.version === 4 ? d.element : d.type;
}

/** The item schemas and the rest schema (or null) of a tuple node. */
export function tupleParts(n: ZodNode): { items: unknown[]; rest: unknown } {
  const d = def(n.schema);
  return { items: d.items as unknown[], rest: d.rest ?? null };
}

/** The options of a union (or discriminated union) node. */
export function options(n: ZodNode): unknown[] {
  const opts = def(n.schema).options;
  return Array.isArray(opts) ? opts : [...(opts as Map<unknown, unknown>).values()];
}

/** Both sides of an intersection node. */
export function sides(n: ZodNode): [unknown, unknown] {
  const d = def(n.schema);
  return [d.left, d.right];
}

/** Key and value schemas of a record node. */
export function recordParts(n: ZodNode): { key: unknown; value: unknown } {
  const d = def(n.schema);
  return { key: d.keyType, value: d.valueType };
}

/** The values a literal node accepts. */
export function literalValues(n: ZodNode): unknown[] {
  const d = def(n.schema);
  return n.version === 4 ? (d.values as unknown[]) : [d.value];
}

/** The values an enum (or native enum) node accepts. */
export function enumValues(n: ZodNode): unknown[] {
  const d = def(n.schema);
  if (n.version === 4) {
    const entries = d.entries as Record<string, unknown>;
    return nativeEnumValues(entries);
  }
  if (n.rawType === "ZodNativeEnum") return nativeEnumValues(d.values as Record<string, unknown>);
  return [...(d.values as unknown[])];
}

// A TypeScript numeric enum maps names to numbers and numbers back to names; keep only the values.
function nativeEnumValues(entries: Record<string, unknown>): unknown[] {
  const values = new Set<unknown>();
  for (const [key, value] of Object.entries(entries)) {
    if (typeof entries[value as string] === "number" && typeof value === "string" && /^\d+$/.test(key)) continue;
    values.add(value);
  }
  return [...values];
}

/** The keys a record node's key schema allows, or `undefined` when the keys are free. */
export function finiteKeys(keySchema: unknown): string[] | undefined {
  const k = node(keySchema);
  if (k.kind === "enum") return enumValues(k).map(String);
  if (k.kind === "literal") return literalValues(k).map(String);
  if (k.kind === "union") {
    const all: string[] = [];
    for (const option of options(k)) {
      const keys = finiteKeys(option);
      if (!keys) return undefined;
      all.push(...keys);
    }
    return all;
  }
  return undefined;
}

/**
 * True when a record's keys may be missing: `z.partialRecord` in zod 4, and every
 * zod 3 record (zod 3 types `z.record(z.enum(...), v)` as partial).
 */
export function isPartialRecord(n: ZodNode): boolean {
  if (n.version === 3) return true;
  const d = def(n.schema);
  return d.partial === true;
}

/** True when the schema accepts `undefined` as input (optional, default, catch, …). */
export function acceptsUndefined(schema: unknown): boolean {
  return accepts(schema, undefined, new Set());
}

/** True when the schema accepts `null` as input. */
export function acceptsNull(schema: unknown): boolean {
  return accepts(schema, null, new Set());
}

function accepts(schema: unknown, value: null | undefined, seen: Set<unknown>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const n = node(schema);
  switch (n.kind) {
    case "optional":
    case "default":
    case "catch":
      return value === undefined ? true : accepts(inner(n), value, seen);
    case "nullable":
      return value === null ? true : accepts(inner(n), value, seen);
    case "null":
      return value === null;
    case "undefined":
    case "void":
      return value === undefined;
    case "any":
    case "unknown":
      return true;
    case "literal":
      return literalValues(n).includes(value);
    case "nonoptional":
      return value === undefined ? false : accepts(inner(n), value, seen);
    case "readonly":
    case "brand":
    case "lazy":
    case "effects":
      return accepts(inner(n), value, seen);
    case "pipe":
      return accepts(pipeParts(n).in, value, seen);
    case "union":
      return options(n).some((o) => accepts(o, value, new Set(seen)));
    default:
      return false;
  }
}

/**
 * True when the schema's input is an object (possibly refined, transformed, branded, read-only or
 * an intersection of objects): such a root travels as is; any other root is wrapped.
 */
export function isObjectLike(schema: unknown, seen: Set<unknown> = new Set()): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const n = node(schema);
  switch (n.kind) {
    case "object":
      return true;
    case "intersection":
      return sides(n).every((side) => isObjectLike(side, seen));
    case "readonly":
    case "brand":
    case "lazy":
    case "effects":
      return isObjectLike(inner(n), seen);
    case "pipe": {
      const { in: input, out } = pipeParts(n);
      return node(input).kind === "transform" ? isObjectLike(out, seen) : isObjectLike(input, seen);
    }
    default:
      return false;
  }
}
