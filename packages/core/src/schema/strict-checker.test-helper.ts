/**
 * A checker of OpenAI strict structured-output schemas, for tests only (never exported).
 *
 * Written from OpenAI's documentation, "Structured model outputs" → "Supported schemas"
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), and the API
 * reference of `response_format.json_schema`, not from the translator: it must catch the
 * translator's mistakes, so it shares no code with it.
 *
 * Rules checked:
 * - `name` matches `^[a-zA-Z0-9_-]{1,64}$`; `strict` is true.
 * - The root is an object, not `anyOf`.
 * - Types: string, number, boolean, integer, object, array, null (alone or in a type array);
 *   `enum`, `const` and `anyOf`; `$defs` and `$ref` (`#` or `#/$defs/<name>`).
 * - Keywords: string `pattern`, `format` (date-time, time, date, duration, email, hostname, ipv4,
 *   ipv6, uuid); number/integer `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
 *   `exclusiveMinimum`; array `minItems`, `maxItems`, `items`; `description` anywhere. Nothing else.
 * - "additionalProperties: false must always be set in objects"; "all fields must be required".
 * - Limits: at most 5000 object properties; at most 10 levels of nesting (counted here as objects
 *   and arrays along a path, the strictest reading); at most 1000 enum values; a string enum of more
 *   than 250 values at most 15,000 characters; property names, definition names, enum and const
 *   values at most 120,000 characters in all.
 */

type Json = Record<string, unknown>;

const TYPES = new Set(["string", "number", "boolean", "integer", "object", "array", "null"]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const COMMON = new Set(["type", "description", "enum", "const", "anyOf", "$ref", "$defs", "title"]);
const BY_TYPE: Record<string, Set<string>> = {
  string: new Set(["pattern", "format"]),
  number: new Set(["multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"]),
  integer: new Set(["multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"]),
  array: new Set(["items", "minItems", "maxItems"]),
  object: new Set(["properties", "required", "additionalProperties"]),
  boolean: new Set(),
  null: new Set(),
};

/** Problems found in a response format; empty when strict mode would accept it. */
export function checkStrictResponseFormat(format: unknown): string[] {
  const problems: string[] = [];
  const f = format as { type?: unknown; json_schema?: { name?: unknown; strict?: unknown; schema?: unknown } };
  if (f?.type !== "json_schema") problems.push(`type must be "json_schema"`);
  const js = f?.json_schema;
  if (!js || typeof js !== "object") return [...problems, "json_schema missing"];
  if (typeof js.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name)) problems.push(`bad name ${JSON.stringify(js.name)}`);
  if (js.strict !== true) problems.push("strict must be true");
  return [...problems, ...checkStrictSchema(js.schema)];
}

/** Problems found in a strict-mode JSON schema; empty when strict mode would accept it. */
export function checkStrictSchema(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(schema)) return ["schema is not an object"];
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  if (!isObject(defs)) problems.push("$defs is not an object");
  if (schema.type !== "object") problems.push(`root type must be "object", got ${JSON.stringify(schema.type)}`);
  if ("anyOf" in schema) problems.push("root must not be anyOf");

  const totals = { properties: 0, enumValues: 0, chars: 0 };
  for (const name of Object.keys(defs)) totals.chars += name.length;

  const check = (s: unknown, at: string): void => {
    if (!isObject(s)) {
      problems.push(`${at}: schema must be an object, got ${JSON.stringify(s)}`);
      return;
    }
    if ("$defs" in s && s !== schema) problems.push(`${at}: $defs only at the root`);
    if ("$ref" in s) {
      const ref = s.$ref;
      if (typeof ref !== "string" || (ref !== "#" && !(ref.startsWith("#/$defs/") && ref.slice(8) in defs))) problems.push(`${at}: unresolvable $ref ${JSON.stringify(ref)}`);
      return;
    }
    if ("anyOf" in s) {
      if (!Array.isArray(s.anyOf) || s.anyOf.length === 0) problems.push(`${at}: anyOf must be a non-empty array`);
      else s.anyOf.forEach((option, i) => check(option, `${at}.anyOf[${i}]`));
      for (const key of Object.keys(s)) if (key !== "anyOf" && key !== "description" && key !== "title") problems.push(`${at}: "${key}" beside anyOf`);
      return;
    }
    const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type === undefined ? [] : [s.type];
    if (types.length === 0 && !("enum" in s) && !("const" in s)) problems.push(`${at}: no type`);
    for (const t of types) if (typeof t !== "string" || !TYPES.has(t)) problems.push(`${at}: unsupported type ${JSON.stringify(t)}`);
    const allowed = new Set(COMMON);
    for (const t of types) for (const k of BY_TYPE[t as string] ?? []) allowed.add(k);
    for (const key of Object.keys(s)) if (!allowed.has(key)) problems.push(`${at}: keyword "${key}" is not supported for type ${JSON.stringify(s.type)}`);
    if (typeof s.description !== "undefined" && typeof s.description !== "string") problems.push(`${at}: description must be a string`);

    if ("format" in s && (typeof s.format !== "string" || !FORMATS.has(s.format))) problems.push(`${at}: unsupported format ${JSON.stringify(s.format)}`);
    if ("pattern" in s) {
      try {
        new RegExp(String(s.pattern));
      } catch {
        problems.push(`${at}: invalid pattern`);
      }
    }
    for (const k of ["minItems", "maxItems"]) if (k in s && !(Number.isInteger(s[k]) && (s[k] as number) >= 0)) problems.push(`${at}: ${k} must be a non-negative integer`);

    const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : undefined;
    if ("enum" in s && (!Array.isArray(s.enum) || s.enum.length === 0)) problems.push(`${at}: enum must be a non-empty array`);
    if (values) {
      totals.enumValues += values.length;
      let length = 0;
      for (const v of values) {
        if (typeof v === "string") length += v.length;
        if (types.length > 0 && !types.some((t) => valueHasType(v, String(t)))) problems.push(`${at}: enum value ${JSON.stringify(v)} is not of type ${JSON.stringify(s.type)}`);
      }
      totals.chars += length;
      const strings = values.filter((v) => typeof v === "string").length;
      if (strings > 250 && length > 15_000) problems.push(`${at}: enum of ${strings} strings is ${length} characters (max 15,000)`);
    }

    if (types.includes("object")) {
      if (!isObject(s.properties)) problems.push(`${at}: object without properties`);
      if (s.additionalProperties !== false) problems.push(`${at}: additionalProperties must be false`);
      const keys = Object.keys((s.properties ?? {}) as Json);
      const required = Array.isArray(s.required) ? s.required : [];
      if (required.length !== keys.length || !keys.every((k) => required.includes(k))) problems.push(`${at}: required must list every property (${JSON.stringify(keys)} vs ${JSON.stringify(required)})`);
      for (const key of keys) {
        totals.properties += 1;
        totals.chars += key.length;
        check((s.properties as Json)[key], `${at}.${key}`);
      }
    }
    if (types.includes("array")) {
      if (!isObject(s.items)) problems.push(`${at}: array items must be one schema`);
      else check(s.items, `${at}[]`);
    }
  };

  check(schema, "(root)");
  for (const [name, def] of Object.entries(defs)) check(def, `$defs.${name}`);

  if (totals.properties > 5000) problems.push(`${totals.properties} object properties (max 5000)`);
  if (totals.enumValues > 1000) problems.push(`${totals.enumValues} enum values (max 1000)`);
  if (totals.chars > 120_000) problems.push(`${totals.chars} characters of names and values (max 120,000)`);
  const depth = nesting(schema, defs, new Set());
  if (depth > 10) problems.push(`nesting depth ${depth} (max 10)`);
  return problems;
}

function nesting(s: unknown, defs: Record<string, unknown>, visiting: Set<string>): number {
  if (!isObject(s)) return 0;
  if (typeof s.$ref === "string") {
    if (s.$ref === "#" || visiting.has(s.$ref)) return 0;
    return nesting(defs[s.$ref.slice(8)], defs, new Set([...visiting, s.$ref]));
  }
  const children: unknown[] = [];
  if (Array.isArray(s.anyOf)) children.push(...s.anyOf);
  if (isObject(s.properties)) children.push(...Object.values(s.properties));
  if (isObject(s.items)) children.push(s.items);
  const below = Math.max(0, ...children.map((c) => nesting(c, defs, visiting)));
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return below + (types.includes("object") || types.includes("array") ? 1 : 0);
}

function valueHasType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Problems of `value` against a strict-mode schema (the subset the checker above accepts): what a
 * model held to the schema could never write. Empty when the value conforms.
 */
export function validateAgainstStrictSchema(root: unknown, value: unknown): string[] {
  const problems: string[] = [];
  const rootSchema = root as Json;
  const defs = (rootSchema.$defs ?? {}) as Record<string, Json>;
  const validate = (s: Json, x: unknown, at: string, out: string[]): void => {
    if (typeof s.$ref === "string") {
      validate(s.$ref === "#" ? rootSchema : defs[s.$ref.slice(8)]!, x, at, out);
      return;
    }
    if (Array.isArray(s.anyOf)) {
      const ok = s.anyOf.some((option) => {
        const sub: string[] = [];
        validate(option as Json, x, at, sub);
        return sub.length === 0;
      });
      if (!ok) out.push(`${at}: matches no anyOf option`);
      return;
    }
    const types = Array.isArray(s.type) ? (s.type as string[]) : s.type === undefined ? [] : [s.type as string];
    const actual = x === null ? "null" : Array.isArray(x) ? "array" : typeof x === "number" ? (Number.isInteger(x) ? "integer" : "number") : typeof x;
    if (types.length > 0 && !types.some((t) => t === actual || (t === "number" && actual === "integer"))) {
      out.push(`${at}: ${JSON.stringify(x)} is not ${JSON.stringify(s.type)}`);
      return;
    }
    const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : undefined;
    if (values && !values.includes(x)) out.push(`${at}: ${JSON.stringify(x)} not in enum`);
    if (typeof x === "string") {
      if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(x)) out.push(`${at}: does not match ${s.pattern}`);
      if (s.format === "date-time" && Number.isNaN(Date.parse(x))) out.push(`${at}: not a date-time`);
      if (s.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(x)) out.push(`${at}: not an email`);
    }
    if (typeof x === "number") {
      if (typeof s.minimum === "number" && x < s.minimum) out.push(`${at}: below minimum`);
      if (typeof s.maximum === "number" && x > s.maximum) out.push(`${at}: above maximum`);
    }
    if (Array.isArray(x)) {
      if (typeof s.minItems === "number" && x.length < s.minItems) out.push(`${at}: fewer than ${s.minItems} items`);
      if (typeof s.maxItems === "number" && x.length > s.maxItems) out.push(`${at}: more than ${s.maxItems} items`);
      x.forEach((item, i) => validate(s.items as Json, item, `${at}[${i}]`, out));
    } else if (isObject(x)) {
      const properties = (s.properties ?? {}) as Record<string, Json>;
      for (const key of Object.keys(x)) if (!(key in properties)) out.push(`${at}: extra property ${JSON.stringify(key)}`);
      for (const [key, child] of Object.entries(properties)) {
        if (!(key in x)) out.push(`${at}: missing property ${JSON.stringify(key)}`);
        else validate(child, x[key], `${at}.${key}`, out);
      }
    }
  };
  validate(rootSchema, value, "(root)", problems);
  return problems;
}
