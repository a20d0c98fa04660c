/**
 * The rules of OpenAI's strict structured outputs that a translated schema must keep, taken from
 * OpenAI's documentation, "Structured model outputs", section "Supported schemas":
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * (also served as https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas).
 * The `name` rule comes from the API reference of `response_format.json_schema.name`
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format).
 */
import { SchemaTranslationError } from "../errors.js";

/**
 * "Name of the response format. Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a
 * maximum length of 64." (API reference, `response_format.json_schema.name`).
 */
export const RESPONSE_FORMAT_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** "A schema may have up to 5000 object properties total" (Supported schemas → Limitations). */
export const MAX_TOTAL_PROPERTIES = 5000;

/**
 * "… with up to 10 levels of nesting" (Supported schemas → Limitations). The documentation does not
 * say how levels are counted; we count conservatively: the root object is level 1 and every nested
 * object or array adds one (`anyOf` branches and `$ref`s add none; a recursive `$ref` is counted once).
 */
export const MAX_NESTING_DEPTH = 10;

/** "A schema may have up to 1000 enum values across all enum properties" (Limitations). */
export const MAX_TOTAL_ENUM_VALUES = 1000;

/**
 * "For a single enum property with string values, the total string length of all enum values cannot
 * exceed 15,000 characters when there are more than 250 enum values" (Limitations).
 */
export const LARGE_ENUM_THRESHOLD = 250;
/** See {@link LARGE_ENUM_THRESHOLD}. */
export const MAX_LARGE_ENUM_STRING_LENGTH = 15_000;

/**
 * "In a schema, total string length of all property names, definition names, enum values, and const
 * values cannot exceed 120,000 characters" (Limitations).
 */
export const MAX_TOTAL_STRING_LENGTH = 120_000;

/**
 * Keywords strict mode supports (Supported schemas → "Supported types" and "Supported properties"):
 * the types string, number, boolean, integer, object, array, enum and anyOf; `$defs`/`$ref`
 * ("Definitions are supported", "Recursive schemas are supported", `#` for the root);
 * `description`; for strings `pattern` and `format`; for numbers `multipleOf`, `maximum`,
 * `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; for arrays `minItems`, `maxItems`; and
 * `required` / `additionalProperties: false`, which every object must carry. Every other keyword
 * (`allOf`, `not`, `if`/`then`/`else`, `oneOf`, `patternProperties`, `minLength`, `default`, …) is
 * removed or rewritten by the translator.
 */
export const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/**
 * String formats strict mode supports (Supported properties → "Supported string formats"):
 * date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid. Other formats (`uri`,
 * `regex`, …) are removed from the schema and still checked when the answer is parsed by zod.
 */
export const SUPPORTED_STRING_FORMATS: ReadonlySet<string> = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/**
 * Checks a response format name against {@link RESPONSE_FORMAT_NAME_PATTERN}.
 *
 * @throws {@link SchemaTranslationError} (path `[]`) when the name does not match.
 */
export function checkResponseFormatName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !RESPONSE_FORMAT_NAME_PATTERN.test(name)) {
    throw new SchemaTranslationError(
      [],
      `the response format name ${JSON.stringify(name)} must be 1 to 64 characters of a-z, A-Z, 0-9, "_" or "-" (OpenAI's rule for json_schema.name).`,
    );
  }
}

type Json = Record<string, unknown>;

/** What {@link measureSchema} counts in a strict JSON schema. */
export interface SchemaSize {
  /** Object properties, over the root and every definition. */
  properties: number;
  /** Deepest nesting of objects and arrays, root object = 1 (see {@link MAX_NESTING_DEPTH}). */
  depth: number;
  /** Enum values over all enums (a `const` counts as one). */
  enumValues: number;
  /** Characters of property names, definition names, string enum values and string consts. */
  stringLength: number;
  /** The largest string length of a single enum of more than 250 string values (0 if none). */
  largestLargeEnumLength: number;
}

/** Measures a strict JSON schema (the translator's output) against the documented limits. */
export function measureSchema(root: Json): SchemaSize {
  const size: SchemaSize = { properties: 0, depth: 0, enumValues: 0, stringLength: 0, largestLargeEnumLength: 0 };
  const defs = (root.$defs ?? {}) as Record<string, Json>;
  for (const name of Object.keys(defs)) size.stringLength += name.length;

  // Counting pass: every node once (definitions included).
  const countNode = (s: Json): void => {
    if (s.properties && typeof s.properties === "object") {
      for (const [key, child] of Object.entries(s.properties as Record<string, Json>)) {
        size.properties += 1;
        size.stringLength += key.length;
        countNode(child);
      }
    }
    if (Array.isArray(s.enum)) {
      size.enumValues += s.enum.length;
      const strings = s.enum.filter((v): v is string => typeof v === "string");
      const length = strings.reduce((sum, v) => sum + v.length, 0);
      size.stringLength += length;
      if (strings.length > LARGE_ENUM_THRESHOLD) size.largestLargeEnumLength = Math.max(size.largestLargeEnumLength, length);
    }
    if ("const" in s) {
      size.enumValues += 1;
      if (typeof s.const === "string") size.stringLength += s.const.length;
    }
    if (s.items && typeof s.items === "object") countNode(s.items as Json);
    if (Array.isArray(s.anyOf)) for (const option of s.anyOf as Json[]) countNode(option);
  };
  countNode(root);
  for (const d of Object.values(defs)) countNode(d);

  // Depth pass: follows $refs, counting a definition once per path.
  const depthOf = (s: Json, onPath: ReadonlySet<string>): number => {
    if (typeof s.$ref === "string") {
      const ref = s.$ref;
      if (ref === "#" || onPath.has(ref)) return 0;
      const target = defs[ref.replace(/^#\/\$defs\//, "")];
      return target ? depthOf(target, new Set([...onPath, ref])) : 0;
    }
    let deepest = 0;
    if (s.properties && typeof s.properties === "object") {
      for (const child of Object.values(s.properties as Record<string, Json>)) deepest = Math.max(deepest, depthOf(child, onPath));
    }
    if (s.items && typeof s.items === "object") deepest = Math.max(deepest, depthOf(s.items as Json, onPath));
    if (Array.isArray(s.anyOf)) for (const option of s.anyOf as Json[]) deepest = Math.max(deepest, depthOf(option, onPath));
    const isContainer = s.type === "object" || s.type === "array" || (Array.isArray(s.type) && (s.type.includes("object") || s.type.includes("array")));
    return deepest + (isContainer ? 1 : 0);
  };
  size.depth = depthOf(root, new Set());
  return size;
}

/**
 * Checks a strict JSON schema against every documented size limit.
 *
 * @throws {@link SchemaTranslationError} (path `[]`) naming the limit exceeded and by how much.
 */
export function checkLimits(root: Json): void {
  const size = measureSchema(root);
  const over = (what: string, actual: number, limit: number, hint: string): never => {
    throw new SchemaTranslationError([], `${what} is ${actual.toLocaleString("en-US")}; OpenAI's strict structured outputs allow at most ${limit.toLocaleString("en-US")}. ${hint}`);
  };
  if (size.properties > MAX_TOTAL_PROPERTIES) over("the total number of object properties", size.properties, MAX_TOTAL_PROPERTIES, "Split the question into several asks.");
  if (size.depth > MAX_NESTING_DEPTH) over("the nesting depth (objects and arrays)", size.depth, MAX_NESTING_DEPTH, "Flatten the schema.");
  if (size.enumValues > MAX_TOTAL_ENUM_VALUES) over("the number of enum values", size.enumValues, MAX_TOTAL_ENUM_VALUES, "Use z.string() and check the value after the answer.");
  if (size.largestLargeEnumLength > MAX_LARGE_ENUM_STRING_LENGTH) {
    over(`the total length of an enum of more than ${LARGE_ENUM_THRESHOLD} values`, size.largestLargeEnumLength, MAX_LARGE_ENUM_STRING_LENGTH, "Use shorter values or fewer of them.");
  }
  if (size.stringLength > MAX_TOTAL_STRING_LENGTH) {
    over("the total length of property names, definition names, enum and const values", size.stringLength, MAX_TOTAL_STRING_LENGTH, "Use shorter names or fewer enum values.");
  }
}
