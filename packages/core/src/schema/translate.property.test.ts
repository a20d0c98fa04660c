/**
 * Property tests: random nested schemas, built in zod 4 and in zod 3 from one random description,
 * must translate into schemas the documentation-based checker accepts (or be refused with a
 * SchemaTranslationError naming the right path), and answers a model could write against the
 * translated schema must decode back to the value the user expects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z as z4 } from "zod";
import { z as z3 } from "zod/v3";
import { SchemaTranslationError } from "../errors.js";
import { checkStrictResponseFormat, validateAgainstStrictSchema } from "./strict-checker.test-helper.js";
import { decodeAnswer, isWrapped, toResponseFormat, WRAPPER_KEY } from "./translate.js";
import type { AnySchema } from "./types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Z = any;

type Primitive = "string" | "number" | "int" | "boolean" | "null" | "date" | "email";
type Bad = "any" | "unknown" | "map" | "set" | "bigint" | "freeRecord" | "symbol";
interface Prop {
  key: string;
  spec: Spec;
  optional: boolean;
  withDefault: boolean;
  description: string | undefined;
}
type Spec =
  | { t: Primitive }
  | { t: "enum"; values: string[] }
  | { t: "literal"; value: string | number | boolean }
  | { t: "array"; item: Spec }
  | { t: "tuple"; items: Spec[] }
  | { t: "object"; props: Prop[] }
  | { t: "record"; keys: string[]; value: Spec }
  | { t: "union"; options: Array<"string" | "number" | "boolean"> }
  | { t: "dunion"; variants: Prop[][] }
  | { t: "nullable"; inner: Spec }
  | { t: "tree" }
  | { t: "shared" }
  | { t: "bad"; kind: Bad };

const key = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_ -]{0,7}$/).filter((k) => k !== "kind" && k !== "__proto__" && k !== "constructor");
const word = fc.stringMatching(/^[a-z]{1,6}$/);

function specArbitrary(withBad: boolean): fc.Arbitrary<Spec> {
  const { spec } = fc.letrec<{ spec: Spec; leaf: Spec; prop: Prop }>((tie) => ({
    leaf: fc.oneof(
      fc.constantFrom<Primitive>("string", "number", "int", "boolean", "null", "date", "email").map((t): Spec => ({ t })),
      fc.uniqueArray(word, { minLength: 1, maxLength: 4 }).map((values): Spec => ({ t: "enum", values })),
      fc.oneof(word, fc.integer({ min: -5, max: 5 }), fc.boolean()).map((value): Spec => ({ t: "literal", value })),
      fc.uniqueArray(fc.constantFrom<"string" | "number" | "boolean">("string", "number", "boolean"), { minLength: 2, maxLength: 3 }).map((options): Spec => ({ t: "union", options })),
      fc.constant<Spec>({ t: "tree" }),
      // One schema object used at several places: zod-to-json-schema refers to its first place by JSON pointer.
      fc.constant<Spec>({ t: "shared" }),
      ...(withBad ? [fc.constantFrom<Bad>("any", "unknown", "map", "set", "bigint", "freeRecord", "symbol").map((kind): Spec => ({ t: "bad", kind }))] : []),
    ),
    spec: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      tie("leaf"),
      tie("spec").map((item): Spec => ({ t: "array", item })),
      fc.array(tie("spec"), { minLength: 1, maxLength: 3 }).map((items): Spec => ({ t: "tuple", items })),
      fc.uniqueArray(tie("prop") as fc.Arbitrary<Prop>, { minLength: 0, maxLength: 4, selector: (p) => p.key }).map((props): Spec => ({ t: "object", props })),
      fc.record({ keys: fc.uniqueArray(word, { minLength: 1, maxLength: 3 }), value: tie("spec") }).map(({ keys, value }): Spec => ({ t: "record", keys, value })),
      fc
        .array(fc.uniqueArray(tie("prop") as fc.Arbitrary<Prop>, { maxLength: 2, selector: (p) => p.key }), { minLength: 2, maxLength: 3 })
        .map((variants): Spec => ({ t: "dunion", variants })),
      tie("spec").map((inner): Spec => ({ t: "nullable", inner })),
    ),
    prop: fc.record({
      key,
      spec: tie("spec"),
      optional: fc.boolean(),
      withDefault: fc.boolean(),
      description: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    }) as fc.Arbitrary<Prop>,
  }));
  return spec;
}

const trees = new Map<Z, AnySchema>();
function treeOf(z: Z): AnySchema {
  let tree = trees.get(z);
  if (!tree) {
    const Tree: Z =
      z === z4
        ? z4.object({
            name: z4.string(),
            get kids(): z4.ZodArray<typeof Tree> {
              return z4.array(Tree);
            },
          })
        : z3.lazy(() => z3.object({ name: z3.string(), kids: z3.array(Tree) }));
    tree = Tree as AnySchema;
    trees.set(z, tree);
  }
  return tree;
}

const shared = new Map<Z, AnySchema>();
function sharedOf(z: Z): AnySchema {
  let schema = shared.get(z);
  if (!schema) {
    schema = z.object({ id: z.number().int(), label: z.string().optional() }) as AnySchema;
    shared.set(z, schema);
  }
  return schema;
}

const DEFAULTS: Partial<Record<Spec["t"], unknown>> = { string: "", number: 0, int: 0, boolean: false };

function build(z: Z, spec: Spec): Z {
  switch (spec.t) {
    case "string":
      return z.string();
    case "number":
      return z.number();
    case "int":
      return z.number().int();
    case "boolean":
      return z.boolean();
    case "null":
      return z.null();
    case "date":
      return z.date();
    case "email":
      return z.string().email();
    case "enum":
      return z.enum(spec.values);
    case "literal":
      return z.literal(spec.value);
    case "array":
      return z.array(build(z, spec.item));
    case "tuple":
      return z.tuple(spec.items.map((item) => build(z, item)));
    case "object":
      return z.object(shapeOf(z, spec.props));
    case "record":
      return z.record(z.enum(spec.keys), build(z, spec.value));
    case "union":
      return z.union(spec.options.map((t) => z[t]()));
    case "dunion":
      return z.discriminatedUnion(
        "kind",
        spec.variants.map((props, i) => z.object({ kind: z.literal(`v${i}`), ...shapeOf(z, props) })),
      );
    case "nullable":
      return build(z, spec.inner).nullable();
    case "tree":
      return treeOf(z);
    case "shared":
      return sharedOf(z);
    case "bad":
      switch (spec.kind) {
        case "any":
          return z.any();
        case "unknown":
          return z.unknown();
        case "map":
          return z.map(z.string(), z.string());
        case "set":
          return z.set(z.string());
        case "bigint":
          return z.bigint();
        case "symbol":
          return z.symbol();
        case "freeRecord":
          return z.record(z.string(), z.string());
      }
  }
}

function shapeOf(z: Z, props: Prop[]): Record<string, Z> {
  const shape: Record<string, Z> = {};
  for (const p of props) {
    let s = build(z, p.spec);
    if (p.description !== undefined) s = s.describe(p.description);
    if (p.withDefault && p.spec.t in DEFAULTS) s = s.default(DEFAULTS[p.spec.t]);
    else if (p.optional) s = s.optional();
    shape[p.key] = s;
  }
  return shape;
}

/** The path `_check` must report: the first bad construct, depth first, in declaration order. */
function badPath(spec: Spec, path: Array<string | number> = []): Array<string | number> | undefined {
  switch (spec.t) {
    case "bad":
      return path;
    case "array":
      return badPath(spec.item, [...path, 0]);
    case "tuple":
      for (const [i, item] of spec.items.entries()) {
        const found = badPath(item, [...path, i]);
        if (found) return found;
      }
      return undefined;
    case "object":
      return propsBadPath(spec.props, path);
    case "record":
      return badPath(spec.value, path);
    case "dunion":
      for (const props of spec.variants) {
        const found = propsBadPath(props, path);
        if (found) return found;
      }
      return undefined;
    case "nullable":
      return badPath(spec.inner, path);
    default:
      return undefined;
  }
}

function propsBadPath(props: Prop[], path: Array<string | number>): Array<string | number> | undefined {
  for (const p of props) {
    const found = badPath(p.spec, [...path, p.key]);
    if (found) return found;
  }
  return undefined;
}

/** An answer as a model held to the strict schema writes it, and the value decodeAnswer must return. */
interface Sample {
  answer: unknown;
  expected: unknown;
}

const finiteNumber = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).filter((x) => !Object.is(x, -0));
const isoDate = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });

function treeAnswer(depth: number): fc.Arbitrary<{ name: string; kids: unknown[] }> {
  return fc.record({ name: word, kids: depth > 0 ? fc.array(treeAnswer(depth - 1), { maxLength: 2 }) : fc.constant([]) });
}
const treeSample: fc.Arbitrary<Sample> = treeAnswer(2).map((tree) => ({ answer: tree, expected: tree }));

function sample(spec: Spec, version: 3 | 4): fc.Arbitrary<Sample> {
  const same = (arb: fc.Arbitrary<unknown>) => arb.map((v) => ({ answer: v, expected: v }));
  switch (spec.t) {
    case "string":
      return same(fc.string({ maxLength: 8 }));
    case "number":
      return same(finiteNumber);
    case "int":
      return same(fc.integer());
    case "boolean":
      return same(fc.boolean());
    case "null":
      return same(fc.constant(null));
    case "date":
      return isoDate.map((d) => ({ answer: d.toISOString(), expected: d }));
    case "email":
      return same(fc.constantFrom("a@example.org", "first.last@mail.example.com"));
    case "enum":
      return same(fc.constantFrom(...spec.values));
    case "literal":
      return same(fc.constant(spec.value));
    case "union":
      return fc.oneof(...spec.options.map((t) => sample({ t }, version)));
    case "nullable":
      return fc.oneof(same(fc.constant(null)), sample(spec.inner, version));
    case "tree":
      return treeSample;
    case "shared":
      return fc.record({ id: fc.integer(), label: fc.option(word, { nil: null }) }).map(({ id, label }) => ({
        answer: { id, label },
        expected: label === null ? { id } : { id, label },
      }));
    case "array":
      return fc.array(sample(spec.item, version), { maxLength: 3 }).map((items) => ({ answer: items.map((i) => i.answer), expected: items.map((i) => i.expected) }));
    case "tuple":
      return fc.tuple(...spec.items.map((item) => sample(item, version))).map((items) => ({ answer: items.map((i) => i.answer), expected: items.map((i) => i.expected) }));
    case "record":
      return fc.tuple(...spec.keys.map(() => sample(spec.value, version))).map((values) => ({
        answer: Object.fromEntries(spec.keys.map((k, i) => [k, values[i]!.answer])),
        expected: Object.fromEntries(spec.keys.map((k, i) => [k, values[i]!.expected])),
      }));
    case "object":
      return propsSample(spec.props, version, {});
    case "dunion":
      return fc.oneof(...spec.variants.map((props, i) => propsSample(props, version, { kind: `v${i}` })));
    case "bad":
      throw new Error("no answer for a rejected construct");
  }
}

function propsSample(props: Prop[], version: 3 | 4, fixed: Record<string, unknown>): fc.Arbitrary<Sample> {
  const fields = props.map((p) => {
    const value = sample(p.spec, version);
    const acceptsNull = p.spec.t === "null" || p.spec.t === "nullable";
    if (p.withDefault && p.spec.t in DEFAULTS) {
      // null says "absent": the default applies.
      return fc.oneof(value, fc.constant<Sample>({ answer: null, expected: DEFAULTS[p.spec.t] }));
    }
    if (p.optional) {
      // null says "absent" unless the field itself accepts null.
      return fc.oneof(value, fc.constant<Sample>({ answer: null, expected: acceptsNull ? null : undefined }));
    }
    return value;
  });
  return fc.tuple(...fields).map((values) => {
    const answer: Record<string, unknown> = { ...fixed };
    const expected: Record<string, unknown> = { ...fixed };
    props.forEach((p, i) => {
      answer[p.key] = values[i]!.answer;
      if (values[i]!.expected !== undefined) expected[p.key] = values[i]!.expected;
    });
    return { answer, expected };
  });
}

/** Runs per property; raise it locally (`FC_NUM_RUNS=2000`) to search harder. */
const RUNS = Number(process.env.FC_NUM_RUNS ?? 80);

const zods: Array<[3 | 4, Z]> = [
  [4, z4],
  [3, z3],
];

describe("random schemas (zod 4 and zod 3)", () => {
  it("translate into schemas strict mode accepts, or are refused with a SchemaTranslationError", () => {
    fc.assert(
      fc.property(specArbitrary(false), (spec) => {
        for (const [, z] of zods) {
          const schema = build(z, spec) as AnySchema;
          let format;
          try {
            format = toResponseFormat(schema, "answer");
          } catch (error) {
            // Only the documented size limits may refuse a schema made of supported constructs.
            expect(error).toBeInstanceOf(SchemaTranslationError);
            expect((error as SchemaTranslationError).reason).toMatch(/at most/);
            continue;
          }
          expect(checkStrictResponseFormat(format)).toEqual([]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("round-trip: answers valid against the strict schema decode to the user's value", () => {
    const caseArb = specArbitrary(false).chain((spec) => fc.tuple(fc.constant(spec), sample(spec, 4), sample(spec, 3)));
    fc.assert(
      fc.property(caseArb, ([spec, sample4, sample3]) => {
        for (const [version, z] of zods) {
          const schema = build(z, spec) as AnySchema;
          let json: Record<string, unknown>;
          try {
            json = toResponseFormat(schema, "answer").json_schema.schema;
          } catch (error) {
            if (error instanceof SchemaTranslationError && /at most/.test(error.reason)) continue;
            throw error;
          }
          const { answer, expected } = version === 4 ? sample4 : sample3;
          const wire = isWrapped(schema) ? { [WRAPPER_KEY]: answer } : answer;
          expect(validateAgainstStrictSchema(json, wire)).toEqual([]);
          // Through JSON text, as the answer crosses the wire.
          expect(decodeAnswer(schema, JSON.stringify(wire))).toEqual(expected);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("a construct strict mode cannot express is refused with its zod path, wherever it sits", () => {
    const badSpec = specArbitrary(true).filter((spec) => badPath(spec) !== undefined);
    fc.assert(
      fc.property(badSpec, (spec) => {
        for (const [, z] of zods) {
          let error: unknown;
          try {
            toResponseFormat(build(z, spec) as AnySchema, "answer");
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(SchemaTranslationError);
          expect((error as SchemaTranslationError).path).toEqual(badPath(spec));
        }
      }),
      { numRuns: RUNS },
    );
  });
});
