import { describe, expect, it } from "vitest";
import { z as z4 } from "zod";
import { z as z3 } from "zod/v3";
import { AnswerValidationError, SchemaTranslationError } from "../errors.js";
import { checkStrictResponseFormat } from "./strict-checker.test-helper.js";
import { decodeAnswer, isWrapped, toResponseFormat, toStrictJsonSchema, WRAPPER_KEY } from "./translate.js";
import type { AnySchema } from "./types.js";

// The two zod APIs agree on everything these cases use; `any` lets one case build both.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Z = any;
const versions: Array<[string, Z]> = [
  ["zod 4", z4],
  ["zod 3", z3],
];

/** Translates, checks the result with the documentation-based checker, returns the schema. */
function strict(schema: AnySchema): Record<string, unknown> {
  const format = toResponseFormat(schema, "answer");
  expect(checkStrictResponseFormat(format)).toEqual([]);
  return format.json_schema.schema;
}

function translationError(fn: () => unknown): SchemaTranslationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaTranslationError);
    expect((error as SchemaTranslationError).code).toBe("WF_SCHEMA_UNSUPPORTED");
    return error as SchemaTranslationError;
  }
  throw new Error("expected a SchemaTranslationError");
}

/** A construct that translates: its strict schema (under the wrapper when wrapped), an answer, and what decodes. */
interface Case {
  name: string;
  schema: (z: Z) => AnySchema;
  /** The strict schema of the root value (inside the wrapper when the root is not an object). */
  json?: unknown;
  /** An answer as the model writes it, unwrapped (the test wraps it when needed). */
  answer: unknown;
  /** What decodeAnswer returns for it. */
  decoded: unknown;
  only?: "zod 4" | "zod 3";
}

const nullable = (schema: unknown) => ({ anyOf: [schema, { type: "null" }] });

const cases: Case[] = [
  { name: "string", schema: (z) => z.string(), json: { type: "string" }, answer: "hi", decoded: "hi" },
  { name: "number", schema: (z) => z.number().min(1).max(5), json: { type: "number", minimum: 1, maximum: 5 }, answer: 2.5, decoded: 2.5 },
  { name: "int", schema: (z) => z.number().int(), json: { type: "integer" }, answer: 3, decoded: 3 },
  { name: "boolean", schema: (z) => z.boolean(), json: { type: "boolean" }, answer: false, decoded: false },
  { name: "null", schema: (z) => z.null(), json: { type: "null" }, answer: null, decoded: null },
  { name: "string literal", schema: (z) => z.literal("yes"), json: { type: "string", enum: ["yes"] }, answer: "yes", decoded: "yes" },
  { name: "number literal", schema: (z) => z.literal(7), answer: 7, decoded: 7 },
  { name: "boolean literal", schema: (z) => z.literal(true), json: { type: "boolean", enum: [true] }, answer: true, decoded: true },
  { name: "enum", schema: (z) => z.enum(["red", "green"]), json: { type: "string", enum: ["red", "green"] }, answer: "green", decoded: "green" },
  { name: "email format kept", schema: (z) => z.string().email(), json: { type: "string", format: "email" }, answer: "a@b.org", decoded: "a@b.org" },
  { name: "uuid format kept", schema: (z) => z.string().uuid(), json: { type: "string", format: "uuid" }, answer: "123e4567-e89b-12d3-a456-426614174000", decoded: "123e4567-e89b-12d3-a456-426614174000" },
  { name: "datetime format kept", schema: (z) => z.string().datetime(), json: { type: "string", format: "date-time" }, answer: "2024-05-06T07:08:09Z", decoded: "2024-05-06T07:08:09Z" },
  { name: "url: format dropped, checked at decoding", schema: (z) => z.string().url(), json: { type: "string" }, answer: "https://example.org/", decoded: "https://example.org/" },
  { name: "min/max length dropped, checked at decoding", schema: (z) => z.string().min(2).max(3), json: { type: "string" }, answer: "abc", decoded: "abc" },
  { name: "regex becomes pattern", schema: (z) => z.string().regex(/^[a-z]+$/), json: { type: "string", pattern: "^[a-z]+$" }, answer: "abc", decoded: "abc" },
  { name: "lookahead regex dropped", schema: (z) => z.string().regex(/^(?=a).+$/), json: { type: "string" }, answer: "ab", decoded: "ab" },
  { name: "describe → description", schema: (z) => z.string().describe("the title"), json: { type: "string", description: "the title" }, answer: "T", decoded: "T" },
  { name: "array", schema: (z) => z.array(z.number()).min(1).max(3), json: { type: "array", items: { type: "number" }, minItems: 1, maxItems: 3 }, answer: [1, 2], decoded: [1, 2] },
  {
    name: "tuple: array of the union of item types, length fixed",
    schema: (z) => z.tuple([z.string(), z.number()]),
    json: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] }, minItems: 2, maxItems: 2 },
    answer: ["a", 1],
    decoded: ["a", 1],
  },
  { name: "date: ISO string, decoded into a Date", schema: (z) => z.date(), json: { type: "string", format: "date-time" }, answer: "2024-01-02T03:04:05.000Z", decoded: new Date("2024-01-02T03:04:05.000Z") },
  {
    name: "union of primitives",
    schema: (z) => z.union([z.string(), z.number()]),
    json: { anyOf: [{ type: "string" }, { type: "number" }] },
    answer: 4,
    decoded: 4,
  },
  {
    name: "nullable",
    schema: (z) => z.string().nullable(),
    json: { anyOf: [{ type: "string" }, { type: "null" }] },
    answer: null,
    decoded: null,
  },
  {
    name: "object with optional, nullable, nullable+optional and default fields",
    schema: (z) => z.object({ a: z.string().optional(), b: z.string().nullable(), c: z.string().nullable().optional(), d: z.number().default(5) }),
    json: {
      type: "object",
      properties: { a: nullable({ type: "string" }), b: nullable({ type: "string" }), c: nullable({ type: "string" }), d: nullable({ type: "number" }) },
      required: ["a", "b", "c", "d"],
      additionalProperties: false,
    },
    answer: { a: null, b: null, c: null, d: null },
    decoded: { b: null, c: null, d: 5 },
  },
  {
    name: "nested objects and arrays of objects",
    schema: (z) => z.object({ rows: z.array(z.object({ name: z.string(), note: z.string().optional() })) }),
    answer: { rows: [{ name: "a", note: null }, { name: "b", note: "x" }] },
    decoded: { rows: [{ name: "a" }, { name: "b", note: "x" }] },
  },
  {
    name: "discriminated union",
    schema: (z) => z.discriminatedUnion("kind", [z.object({ kind: z.literal("a"), x: z.number().optional() }), z.object({ kind: z.literal("b"), y: z.string() })]),
    json: {
      anyOf: [
        { type: "object", properties: { kind: { type: "string", enum: ["a"] }, x: nullable({ type: "number" }) }, required: ["kind", "x"], additionalProperties: false },
        { type: "object", properties: { kind: { type: "string", enum: ["b"] }, y: { type: "string" } }, required: ["kind", "y"], additionalProperties: false },
      ],
    },
    answer: { kind: "a", x: null },
    decoded: { kind: "a" },
  },
  {
    name: "intersection of objects merges into one object",
    schema: (z) => z.intersection(z.object({ a: z.string() }), z.object({ b: z.number().optional() })),
    json: { type: "object", properties: { a: { type: "string" }, b: nullable({ type: "number" }) }, required: ["a", "b"], additionalProperties: false },
    answer: { a: "x", b: null },
    decoded: { a: "x" },
  },
  {
    name: "record with enum keys: one property per key",
    schema: (z) => z.record(z.enum(["low", "high"]), z.number()),
    answer: { low: 1, high: 2 },
    decoded: { low: 1, high: 2 },
  },
  {
    name: "passthrough / catchall objects are closed",
    schema: (z) => z.object({ a: z.string() }).passthrough(),
    json: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
    answer: { a: "x" },
    decoded: { a: "x" },
  },
  {
    name: "refinement: kept out of the schema, enforced at decoding",
    schema: (z) => z.object({ n: z.number() }).refine((v: { n: number }) => v.n > 0),
    json: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
    answer: { n: 1 },
    decoded: { n: 1 },
  },
  { name: "transform: the input travels, the output comes back", schema: (z) => z.string().transform((s: string) => s.length), json: { type: "string" }, answer: "abcd", decoded: 4 },
  { name: "pipe: the input side travels", schema: (z) => z.string().pipe(z.coerce.number()), json: { type: "string" }, answer: "12", decoded: 12 },
  { name: "preprocess: the target schema travels", schema: (z) => z.preprocess((v: unknown) => (typeof v === "string" ? v.trim() : v), z.string()), json: { type: "string" }, answer: " a ", decoded: "a" },
  {
    name: "preprocess of an object: optional fields still come back undefined",
    schema: (z) => z.preprocess((v: unknown) => v, z.object({ a: z.string().optional(), b: z.number() })),
    json: { type: "object", properties: { a: nullable({ type: "string" }), b: { type: "number" } }, required: ["a", "b"], additionalProperties: false },
    answer: { a: null, b: 1 },
    decoded: { b: 1 },
  },
  { name: "brand", schema: (z) => z.string().brand("Id"), json: { type: "string" }, answer: "x", decoded: "x" },
  { name: "readonly", schema: (z) => z.array(z.string()).readonly(), answer: ["x"], decoded: ["x"] },
  // zod 3 counts .catch() as optional (nullable in strict form), zod 4 does not; both decode.
  { name: "catch", schema: (z) => z.number().catch(0), answer: 3, decoded: 3 },
  { name: "optional root: null comes back undefined", schema: (z) => z.number().optional(), json: nullable({ type: "number" }), answer: null, decoded: undefined },
  { name: "default at root", schema: (z) => z.number().default(9), answer: null, decoded: 9 },
  { name: "zod 4 template literal", schema: (z) => z.templateLiteral(["v", z.number()]), answer: "v2", decoded: "v2", only: "zod 4" },
  {
    name: "zod 4 exhaustive record",
    schema: (z) => z.record(z.enum(["a", "b"]), z.string()),
    json: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a", "b"], additionalProperties: false },
    answer: { a: "1", b: "2" },
    decoded: { a: "1", b: "2" },
    only: "zod 4",
  },
  {
    name: "zod 4 partial record: missing keys travel as null",
    schema: (z) => z.partialRecord(z.enum(["a", "b"]), z.string()),
    json: { type: "object", properties: { a: nullable({ type: "string" }), b: nullable({ type: "string" }) }, required: ["a", "b"], additionalProperties: false },
    answer: { a: "1", b: null },
    decoded: { a: "1" },
    only: "zod 4",
  },
  {
    name: "zod 3 record with enum keys is partial",
    schema: (z) => z.record(z.enum(["a", "b"]), z.string()),
    json: { type: "object", properties: { a: nullable({ type: "string" }), b: nullable({ type: "string" }) }, required: ["a", "b"], additionalProperties: false },
    answer: { a: null, b: "2" },
    decoded: { b: "2" },
    only: "zod 3",
  },
];

describe.each(versions)("%s: constructs that translate", (version, z) => {
  for (const c of cases) {
    if (c.only && c.only !== version) continue;
    it(c.name, () => {
      const schema = c.schema(z);
      const json = strict(schema);
      const wrapped = isWrapped(schema);
      if (c.json !== undefined) {
        if (wrapped) {
          expect(json).toEqual({ type: "object", properties: { [WRAPPER_KEY]: c.json }, required: [WRAPPER_KEY], additionalProperties: false });
        } else {
          expect(json).toEqual(c.json);
        }
      }
      const answer = wrapped ? { [WRAPPER_KEY]: c.answer } : c.answer;
      expect(decodeAnswer(schema, answer)).toEqual(c.decoded);
    });
  }

  it("native enums keep their values (string and numeric)", () => {
    enum Color {
      Red = "red",
      Green = "green",
    }
    enum Level {
      Low = 1,
      High = 2,
    }
    const colors = version === "zod 4" ? z.enum(Color) : z.nativeEnum(Color);
    const levels = version === "zod 4" ? z.enum(Level) : z.nativeEnum(Level);
    expect(strict(colors)).toMatchObject({ properties: { value: { enum: ["red", "green"] } } });
    const levelSchema = (strict(levels).properties as Record<string, { enum: unknown[] }>).value;
    expect(levelSchema?.enum).toEqual([1, 2]);
    expect(decodeAnswer(levels, { value: 2 })).toBe(Level.High);
  });

  it("recursion travels through $ref", () => {
    type Tree = { name: string; children: Tree[] };
    const Tree: Z =
      version === "zod 4"
        ? z.object({
            name: z.string(),
            get children() {
              return z.array(Tree);
            },
          })
        : z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    const json = strict(Tree);
    expect(json).toEqual({
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["name", "children"],
      additionalProperties: false,
    });
    const tree: Tree = { name: "a", children: [{ name: "b", children: [] }] };
    expect(decodeAnswer(Tree, tree)).toEqual(tree);

    // Reused below the root and inside a wrapper: a definition in $defs.
    const nested = strict(z.object({ left: Tree, right: Tree.optional() }));
    expect(Object.keys(nested.$defs as object)).toHaveLength(1);
    const defRef = (nested.properties as Record<string, { $ref?: string }>).left!.$ref!;
    expect(defRef).toMatch(/^#\/\$defs\//);
    expect(decodeAnswer(z.object({ left: Tree, right: Tree.optional() }), { left: tree, right: null })).toEqual({ left: tree });

    const list = strict(z.array(Tree));
    expect((list.properties as Record<string, { items: { $ref: string } }>).value?.items.$ref).toMatch(/^#\/\$defs\//);
  });

  it("mutual recursion", () => {
    const A: Z =
      version === "zod 4"
        ? z.object({
            a: z.string(),
            get b() {
              return B.optional();
            },
          })
        : z.lazy(() => z.object({ a: z.string(), b: B.optional() }));
    const B: Z =
      version === "zod 4"
        ? z.object({
            get a() {
              return z.array(A);
            },
          })
        : z.lazy(() => z.object({ a: z.array(A) }));
    strict(A);
    expect(decodeAnswer(A, { a: "x", b: { a: [{ a: "y", b: null }] } })).toEqual({ a: "x", b: { a: [{ a: "y" }] } });
  });

  it("a refinement that fails at decoding throws AnswerValidationError with the issues and the raw answer", () => {
    const schema = z.object({ n: z.number().refine((n: number) => n > 0, "must be positive") });
    strict(schema);
    const raw = { n: -1 };
    let error: unknown;
    try {
      decodeAnswer(schema, raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AnswerValidationError);
    expect((error as AnswerValidationError).raw).toBe(raw);
    expect((error as AnswerValidationError).issues).toEqual([expect.objectContaining({ path: ["n"], message: "must be positive" })]);
    expect((error as AnswerValidationError).message).toMatch(/n: must be positive/);
  });

  it("string length limits dropped from the schema are still enforced at decoding", () => {
    expect(() => decodeAnswer(z.string().max(3), { value: "toolong" })).toThrow(AnswerValidationError);
  });
});

describe.each(versions)("%s: constructs that are rejected with their zod path", (version, z) => {
  const rejected: Array<[string, (z: Z) => AnySchema, RegExp]> = [
    ["z.any()", (z) => z.object({ x: z.any() }), /z\.any\(\)/],
    ["z.unknown()", (z) => z.object({ x: z.unknown() }), /z\.unknown\(\)/],
    ["a record with free keys", (z) => z.object({ x: z.record(z.string(), z.number()) }), /free keys/],
    ["a map", (z) => z.object({ x: z.map(z.string(), z.number()) }), /Map/],
    ["a set", (z) => z.object({ x: z.set(z.string()) }), /Set/],
    ["a bigint", (z) => z.object({ x: z.bigint() }), /bigint/],
    ["a symbol", (z) => z.object({ x: z.symbol() }), /symbol/],
    ["a function", (z) => z.object({ x: version === "zod 4" ? z.function() : z.function() }), /function/],
    ["a promise", (z) => z.object({ x: z.promise(z.string()) }), /promise/],
    ["undefined", (z) => z.object({ x: z.undefined() }), /undefined/],
    ["void", (z) => z.object({ x: z.void() }), /undefined/],
    ["never", (z) => z.object({ x: z.never() }), /never/],
    ["NaN", (z) => z.object({ x: z.nan() }), /NaN/],
    ["instanceof", (z) => z.object({ x: z.instanceof(Date) }), /.*/],
    ["an intersection of primitives", (z) => z.object({ x: z.intersection(z.string(), z.string().min(1)) }), /intersections of objects/],
  ];
  for (const [what, build, reason] of rejected) {
    it(what, () => {
      const error = translationError(() => toResponseFormat(build(z), "answer"));
      expect(error.path).toEqual(["x"]);
      expect(error.reason).toMatch(reason);
      expect(error.message).toMatch(/^Schema at x cannot be used as a structured output: /);
    });
  }

  it("names the full path of a deep construct", () => {
    const schema = z.object({ items: z.array(z.object({ tags: z.map(z.string(), z.string()) })) });
    const error = translationError(() => toResponseFormat(schema, "answer"));
    expect(error.path).toEqual(["items", 0, "tags"]);
    expect(error.message).toContain("items[0].tags");
  });

  it("a bare z.any() at the root", () => {
    expect(translationError(() => toResponseFormat(z.any(), "answer")).path).toEqual([]);
  });

  it("a bigint literal", () => {
    expect(translationError(() => toResponseFormat(z.object({ x: z.literal(BigInt(1)) }), "answer")).reason).toMatch(/not a JSON value/);
  });
});

describe("response format name (OpenAI: ^[a-zA-Z0-9_-]{1,64}$)", () => {
  it("accepts letters, digits, _ and - up to 64 characters", () => {
    expect(toResponseFormat(z4.object({ a: z4.string() }), "answer_v2-x").json_schema).toMatchObject({ name: "answer_v2-x", strict: true });
    expect(toResponseFormat(z4.string(), "a".repeat(64)).json_schema.name).toHaveLength(64);
  });
  it.each(["", "a b", "ünïcode", "a.b", "a".repeat(65)])("rejects %j", (name) => {
    expect(translationError(() => toResponseFormat(z4.string(), name)).reason).toMatch(/1 to 64 characters/);
  });
});

describe("limits from OpenAI's documentation, at and just over", () => {
  const objectWith = (count: number, nameOf = (i: number) => `p${i}`) => z4.object(Object.fromEntries(Array.from({ length: count }, (_, i) => [nameOf(i), z4.boolean()])));

  it("5000 object properties in all", () => {
    strict(objectWith(5000));
    expect(translationError(() => toStrictJsonSchema(objectWith(5001))).reason).toMatch(/object properties is 5,001; .* at most 5,000/);
  });

  it("10 levels of nesting (objects and arrays)", () => {
    const nest = (levels: number): z4.ZodType => {
      let schema: z4.ZodType = z4.string();
      for (let i = 0; i < levels; i++) schema = z4.object({ next: schema });
      return schema;
    };
    strict(nest(10));
    expect(translationError(() => toStrictJsonSchema(nest(11))).reason).toMatch(/nesting depth .* is 11/);
    // Arrays count as levels too; the wrapper of a non-object root is the first level.
    let array: z4.ZodType = z4.string();
    for (let i = 0; i < 9; i++) array = z4.array(array);
    strict(array);
    expect(() => toStrictJsonSchema(z4.array(array))).toThrow(SchemaTranslationError);
  });

  it("1000 enum values across all enums", () => {
    const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`) as [string, ...string[]];
    strict(z4.object({ a: z4.enum(values("a", 500)), b: z4.enum(values("b", 500)) }));
    expect(translationError(() => toStrictJsonSchema(z4.object({ a: z4.enum(values("a", 500)), b: z4.enum(values("b", 501)) }))).reason).toMatch(
      /enum values is 1,001/,
    );
  });

  it("15,000 characters for one string enum of more than 250 values", () => {
    const values = (length: number) => Array.from({ length: 251 }, (_, i) => String(i).padStart(length, "x")) as [string, ...string[]];
    strict(z4.enum(values(59))); // 251 × 59 = 14,809
    expect(translationError(() => toStrictJsonSchema(z4.enum(values(60)))).reason).toMatch(/more than 250 values is 15,060/);
    // At 250 values the rule does not apply.
    strict(z4.enum(Array.from({ length: 250 }, (_, i) => String(i).padStart(70, "x")) as [string, ...string[]]));
  });

  it("120,000 characters of property names, definition names, enum and const values", () => {
    const names = (last: number) => (i: number) => String(i).padStart(i === 99 ? last : 1200, "k");
    strict(objectWith(100, names(1200))); // 100 × 1,200 = 120,000
    expect(translationError(() => toStrictJsonSchema(objectWith(100, names(1201)))).reason).toMatch(/is 120,001/);
  });
});

describe("decodeAnswer", () => {
  it("takes the value out of the wrapper and parses a JSON text", () => {
    expect(decodeAnswer(z4.array(z4.number()), { value: [1, 2] })).toEqual([1, 2]);
    expect(decodeAnswer(z4.array(z4.number()), '{"value":[3]}')).toEqual([3]);
    expect(decodeAnswer(z4.object({ a: z4.number() }), '{"a":1}')).toEqual({ a: 1 });
  });

  it("refuses a non-object root answer that is not wrapped", () => {
    const error = (() => {
      try {
        decodeAnswer(z4.array(z4.number()), [1, 2]);
      } catch (e) {
        return e as AnswerValidationError;
      }
    })();
    expect(error).toBeInstanceOf(AnswerValidationError);
    expect(error?.raw).toEqual([1, 2]);
    expect(error?.message).toMatch(/wrapper/);
  });

  it("keeps null where the field accepts null, drops it where it was only optional", () => {
    const schema = z4.object({ opt: z4.number().optional(), both: z4.number().nullable().optional(), nul: z4.number().nullable() });
    expect(decodeAnswer(schema, { opt: null, both: null, nul: null })).toEqual({ both: null, nul: null });
    expect(decodeAnswer(schema, { opt: 1, both: 2, nul: 3 })).toEqual({ opt: 1, both: 2, nul: 3 });
  });

  it("restores optional fields inside union options, tuples and intersections", () => {
    const schema = z4.object({
      u: z4.union([z4.object({ a: z4.string(), x: z4.number().optional() }), z4.object({ b: z4.string() })]),
      t: z4.tuple([z4.object({ o: z4.string().optional() }), z4.number()]),
      i: z4.intersection(z4.object({ p: z4.string().optional() }), z4.object({ q: z4.number().optional() })),
    });
    strict(schema);
    expect(decodeAnswer(schema, { u: { a: "s", x: null }, t: [{ o: null }, 1], i: { p: null, q: null } })).toEqual({ u: { a: "s" }, t: [{}, 1], i: {} });
  });

  it("throws AnswerValidationError on a type mismatch", () => {
    expect(() => decodeAnswer(z4.object({ a: z4.number() }), { a: "1" })).toThrow(AnswerValidationError);
    expect(() => decodeAnswer(z3.object({ a: z3.number() }), { a: "1" })).toThrow(/a: Expected number, received string/);
  });
});

describe("toStrictJsonSchema", () => {
  it("returns a fresh copy each time", () => {
    const schema = z4.object({ a: z4.string() });
    const first = toStrictJsonSchema(schema);
    (first.properties as Record<string, unknown>).a = "changed";
    expect(toStrictJsonSchema(schema)).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false });
  });

  it("keeps property names as written and in order", () => {
    const json = toStrictJsonSchema(z4.object({ "Zeta key": z4.string(), alpha: z4.number(), "with-dash": z4.boolean() }));
    expect(Object.keys(json.properties as object)).toEqual(["Zeta key", "alpha", "with-dash"]);
    expect(json.required).toEqual(["Zeta key", "alpha", "with-dash"]);
  });

  it("throws a TypeError-caused SchemaTranslationError for something that is not a zod schema", () => {
    expect(() => toStrictJsonSchema({} as AnySchema)).toThrow();
  });
});
