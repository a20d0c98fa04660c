/**
 * The JSON-level pass of the translator: takes what `z.toJSONSchema` or `zod-to-json-schema` made
 * of a checked schema and rewrites it into the subset OpenAI's strict mode accepts (see
 * `limits.ts` for the documented rules):
 * - every object gets `additionalProperties: false` and lists every property in `required`; a
 *   property that was not required becomes a union with `null`;
 * - `oneOf` becomes `anyOf`; `allOf` of objects merges into one object; type arrays split into `anyOf`;
 * - tuples become arrays of the union of their item types with `minItems`/`maxItems`;
 * - records with known keys become objects with those properties;
 * - every `$ref` points at `#` or `#/$defs/<name>` (zod-to-json-schema's JSON-pointer refs are
 *   moved into `$defs`);
 * - only {@link SUPPORTED_KEYWORDS} and {@link SUPPORTED_STRING_FORMATS} remain.
 * Internal to `@wf/core`.
 */
import { SchemaTranslationError } from "../errors.js";
import { SUPPORTED_STRING_FORMATS } from "./limits.js";

type Json = Record<string, unknown>;
type Path = ReadonlyArray<string | number>;

const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const;
const PRIMITIVE_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

/** Rewrites a converter's JSON Schema (whose root is an object) into strict-mode form. */
export function strictify(raw: Json): Json {
  return new Strictifier(raw).run();
}

class Strictifier {
  private readonly defsOut: Record<string, Json> = {};
  private readonly building = new Set<string>();
  /** Definition name → [raw schema, its JSON pointer]. */
  private readonly defSources = new Map<string, [unknown, string]>();
  /** JSON pointer of a ref target that is not a definition → the definition name it moves to. */
  private readonly pointerDefs = new Map<string, string>();

  constructor(private readonly doc: Json) {}

  run(): Json {
    for (const key of ["$defs", "definitions"]) {
      const defs = this.doc[key];
      if (defs && typeof defs === "object") {
        for (const [name, schema] of Object.entries(defs as Json)) this.defSources.set(name, [schema, `#/${key}/${name}`]);
      }
    }
    this.scanRefs(this.doc);
    const root = this.walk(this.doc, "#", [], true);
    if (root.type !== "object") {
      throw new SchemaTranslationError([], "the schema's root is not an object after translation (an internal error of the translator; please report it).");
    }
    if (Object.keys(this.defsOut).length > 0) root.$defs = this.defsOut;
    return root;
  }

  private scanRefs(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.scanRefs(item);
      return;
    }
    if (!value || typeof value !== "object") return;
    const ref = (value as Json).$ref;
    if (typeof ref === "string" && ref !== "#" && !this.defNameOf(ref)) {
      if (!this.pointerDefs.has(ref)) {
        const target = this.resolvePointer(ref);
        const name = this.uniqueName(`def_${ref.replace(/^#\/?/, "").replace(/[^a-zA-Z0-9_-]+/g, "_")}`);
        this.pointerDefs.set(ref, name);
        this.defSources.set(name, [target, ref]);
      }
    }
    for (const child of Object.values(value as Json)) this.scanRefs(child);
  }

  private defNameOf(ref: string): string | undefined {
    const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
    return match ? decodePointerSegment(match[1]!) : undefined;
  }

  private uniqueName(base: string): string {
    let name = base;
    for (let i = 2; this.defSources.has(name); i++) name = `${base}_${i}`;
    return name;
  }

  private resolvePointer(ref: string): unknown {
    if (!ref.startsWith("#/")) {
      throw new SchemaTranslationError([], `the reference ${JSON.stringify(ref)} points outside the schema; strict mode only resolves local references.`);
    }
    let current: unknown = this.doc;
    for (const segment of ref.slice(2).split("/").map(decodePointerSegment)) {
      if (!current || typeof current !== "object") break;
      current = (current as Json)[segment];
    }
    if (current === undefined) throw new SchemaTranslationError([], `the reference ${JSON.stringify(ref)} points nowhere.`);
    return current;
  }

  private defRef(name: string): Json {
    if (!(name in this.defsOut) && !this.building.has(name)) {
      const source = this.defSources.get(name);
      if (!source) throw new SchemaTranslationError([], `the definition ${JSON.stringify(name)} is missing.`);
      this.building.add(name);
      this.defsOut[name] = this.walk(source[0], source[1], [], true);
      this.building.delete(name);
    }
    return { $ref: `#/$defs/${name}` };
  }

  /**
   * Rewrites one schema. `pointer` is its place in the converter's document (to find the places
   * other nodes refer to); `path` is the place in the answer, for error messages; `isDefRoot` is
   * true when building the definition that lives at `pointer` itself.
   */
  private walk(value: unknown, pointer: string, path: Path, isDefRoot = false): Json {
    if (!isDefRoot) {
      const moved = this.pointerDefs.get(pointer);
      if (moved) return this.defRef(moved);
    }
    if (value === true || (value && typeof value === "object" && Object.keys(value).length === 0)) {
      throw new SchemaTranslationError(path, "this value has no type (it accepts anything); strict mode needs a type for every value.");
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new SchemaTranslationError(path, `this schema (${JSON.stringify(value)}) accepts no value; strict mode cannot express it.`);
    }
    let s = value as Json;

    if (typeof s.$ref === "string") {
      const ref = s.$ref;
      if (ref === "#") return { $ref: "#" };
      const name = this.defNameOf(ref) ?? this.pointerDefs.get(ref);
      if (!name) throw new SchemaTranslationError(path, `the reference ${JSON.stringify(ref)} cannot be resolved.`);
      return this.defRef(name);
    }
    if (Array.isArray(s.allOf)) s = mergeAllOf(s, path);

    const description = typeof s.description === "string" ? s.description : undefined;
    const union = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
    if (union) {
      const key = Array.isArray(s.anyOf) ? "anyOf" : "oneOf";
      const out = this.union(union.map((option, i) => this.walk(option, `${pointer}/${key}/${i}`, path)));
      return withDescription(out, description);
    }

    let type = s.type ?? inferType(s);
    if (Array.isArray(type) && type.length === 1) type = type[0];
    if (Array.isArray(type)) {
      // ["string", "null"] and friends: one anyOf branch per type, each with the keywords that apply to it.
      const branches = type.map((t) => this.walk(narrowToType(s, String(t)), pointer, path, true));
      return withDescription(this.union(branches), description);
    }
    if (typeof type !== "string" || !PRIMITIVE_TYPES.has(type)) {
      throw new SchemaTranslationError(path, `this value has no JSON type strict mode supports (${JSON.stringify(type ?? null)}).`);
    }

    const out: Json = { type };
    if (type === "object") this.object(s, out, pointer, path);
    else if (type === "array") this.array(s, out, pointer, path);
    else if (type === "string") stringKeywords(s, out);
    else if (type === "number" || type === "integer") numberKeywords(s, out, type);

    const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : undefined;
    if (values && type !== "object" && type !== "array") {
      const kept = values.filter((v) => matchesType(v, type as string));
      if (kept.length === 0) throw new SchemaTranslationError(path, `no value of this enum or literal is a ${type}.`);
      if (type !== "null") out.enum = kept;
    }
    return withDescription(out, description);
  }

  private object(s: Json, out: Json, pointer: string, path: Path): void {
    let properties = (s.properties ?? {}) as Record<string, unknown>;
    let propertiesPointer = `${pointer}/properties`;
    const extra = s.additionalProperties;
    const keyEnum = (s.propertyNames as Json | undefined)?.enum;
    if (Object.keys(properties).length === 0 && Array.isArray(keyEnum) && extra && typeof extra === "object") {
      // A record with known keys: one property per key, each with the record's value schema.
      properties = Object.fromEntries(keyEnum.map((k) => [String(k), extra]));
      propertiesPointer = `${pointer}/additionalProperties`;
    } else if (Object.keys(properties).length === 0 && extra !== undefined && extra !== false) {
      throw new SchemaTranslationError(path, "an object with free keys needs additionalProperties, which strict mode forbids. Use an object with known keys.");
    }
    const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
    const outProperties: Json = {};
    for (const [key, child] of Object.entries(properties)) {
      // Converters join pointer segments without escaping; so do we, to match their $refs.
      const childPointer = propertiesPointer.endsWith("/additionalProperties") ? propertiesPointer : `${propertiesPointer}/${key}`;
      let translated = this.walk(child, childPointer, [...path, key]);
      // Strict mode needs every property required: an optional one says "absent" with null instead.
      if (!required.has(key)) translated = makeNullable(translated);
      outProperties[key] = translated;
    }
    out.properties = outProperties;
    out.required = Object.keys(outProperties);
    out.additionalProperties = false;
  }

  private array(s: Json, out: Json, pointer: string, path: Path): void {
    let prefix: unknown[] | undefined;
    let rest: unknown;
    let restKey = "items";
    if (Array.isArray(s.prefixItems)) {
      prefix = s.prefixItems;
      rest = s.items;
    } else if (Array.isArray(s.items)) {
      prefix = s.items;
      rest = s.additionalItems;
      restKey = "additionalItems";
    } else {
      rest = s.items;
    }
    const members: Json[] = [];
    if (prefix) {
      const prefixKey = Array.isArray(s.prefixItems) ? "prefixItems" : "items";
      prefix.forEach((item, i) => members.push(this.walk(item, `${pointer}/${prefixKey}/${i}`, [...path, i])));
    }
    if (rest !== undefined && rest !== false) members.push(this.walk(rest, `${pointer}/${restKey}`, [...path, prefix?.length ?? 0]));
    if (members.length === 0) throw new SchemaTranslationError(path, "this array has no item type; strict mode needs one.");
    // A tuple travels as an array of the union of its item types, its length fixed by minItems and
    // maxItems; the order of the items is checked when the answer is parsed.
    out.items = this.union(members);
    for (const key of ["minItems", "maxItems"] as const) {
      if (Number.isInteger(s[key]) && (s[key] as number) >= 0) out[key] = s[key];
    }
  }

  private union(options: Json[]): Json {
    const flat: Json[] = [];
    const seen = new Set<string>();
    for (const option of options) {
      const branches = Array.isArray(option.anyOf) && Object.keys(option).every((k) => k === "anyOf") ? (option.anyOf as Json[]) : [option];
      for (const branch of branches) {
        const key = JSON.stringify(branch);
        if (seen.has(key)) continue;
        seen.add(key);
        flat.push(branch);
      }
    }
    return flat.length === 1 ? flat[0]! : { anyOf: flat };
  }
}

function withDescription(schema: Json, description: string | undefined): Json {
  if (description === undefined) return schema;
  // A $ref takes no sibling keywords; its description stays out.
  if (typeof schema.$ref === "string") return schema;
  return { ...schema, description };
}

function makeNullable(schema: Json): Json {
  if (acceptsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  return { anyOf: [schema, { type: "null" }] };
}

function acceptsNull(schema: Json): boolean {
  if (schema.type === "null") return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((option) => acceptsNull(option as Json));
}

function inferType(s: Json): unknown {
  const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : undefined;
  if (values) {
    const types = [...new Set(values.map(jsonTypeOf))];
    return types.length === 1 ? types[0] : types;
  }
  if (s.properties || s.propertyNames || s.additionalProperties) return "object";
  if (s.items || s.prefixItems) return "array";
  return undefined;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = jsonTypeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

/** The keywords of `s` that apply to `type`, with its enum narrowed to the values of that type. */
function narrowToType(s: Json, type: string): Json {
  const out: Json = { ...s, type };
  delete out.description;
  const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : undefined;
  if (values) {
    delete out.const;
    out.enum = values.filter((v) => matchesType(v, type) || (type === "number" && jsonTypeOf(v) === "integer"));
  }
  return out;
}

function stringKeywords(s: Json, out: Json): void {
  const format = typeof s.format === "string" && SUPPORTED_STRING_FORMATS.has(s.format) ? s.format : undefined;
  if (format) out.format = format;
  // A kept format says it all (zod 4 also writes its own regex for e.g. email); otherwise keep a
  // pattern strict mode can run: no lookaround or backreferences, and valid as a JavaScript regex.
  if (!format && typeof s.pattern === "string" && isPortablePattern(s.pattern)) out.pattern = s.pattern;
}

function isPortablePattern(pattern: string): boolean {
  if (/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern)) return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function numberKeywords(s: Json, out: Json, type: string): void {
  for (const key of NUMBER_KEYWORDS) {
    const value = s[key];
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    // zod 4 bounds every int by the safe-integer range; that says nothing to a model.
    if (type === "integer" && (key === "minimum" || key === "maximum") && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = value;
  }
}

/** Merges an `allOf` (zod's intersections) into one schema; only objects and same-typed primitives merge. */
function mergeAllOf(s: Json, path: Path): Json {
  const { allOf, ...base } = s;
  let merged: Json = base;
  for (const member of allOf as unknown[]) {
    if (!member || typeof member !== "object") throw new SchemaTranslationError(path, "this intersection has a member strict mode cannot express.");
    let m = member as Json;
    if (Array.isArray(m.allOf)) m = mergeAllOf(m, path);
    merged = mergePair(merged, m, path);
  }
  return merged;
}

function mergePair(a: Json, b: Json, path: Path): Json {
  for (const side of [a, b]) {
    if (side.$ref !== undefined || side.anyOf !== undefined || side.oneOf !== undefined) {
      throw new SchemaTranslationError(path, "an intersection with a union or a recursive schema cannot be merged into one strict-mode object; write the merged object out.");
    }
  }
  const typeA = a.type ?? inferType(a);
  const typeB = b.type ?? inferType(b);
  if (typeA !== undefined && typeB !== undefined && JSON.stringify(typeA) !== JSON.stringify(typeB)) {
    throw new SchemaTranslationError(path, `this intersection mixes ${JSON.stringify(typeA)} and ${JSON.stringify(typeB)}; no value is both.`);
  }
  const out: Json = { ...b, ...a };
  if (typeA ?? typeB) out.type = typeA ?? typeB;
  if (a.properties || b.properties) {
    const properties: Json = { ...(a.properties as Json | undefined) };
    for (const [key, schema] of Object.entries((b.properties ?? {}) as Json)) {
      properties[key] = key in properties && JSON.stringify(properties[key]) !== JSON.stringify(schema) ? { allOf: [properties[key], schema] } : schema;
    }
    out.properties = properties;
  }
  const required = new Set([...((a.required as string[] | undefined) ?? []), ...((b.required as string[] | undefined) ?? [])]);
  if (required.size > 0) out.required = [...required];
  delete out.additionalProperties;
  delete out.unevaluatedProperties;
  return out;
}

function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
