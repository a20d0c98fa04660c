/**
 * TEMPORARY minimal translator so the other packages can start; replaced by the full
 * strict-mode translator (issue 2).
 */
import { z } from "zod";
import type { ResponseFormat } from "../protocol/index.js";
import { AnswerValidationError } from "../errors.js";
import type { AnySchema, InferSchema } from "./types.js";

export function toResponseFormat(schema: AnySchema, name: string): ResponseFormat {
  const json = z.toJSONSchema(schema as z.ZodType, { target: "draft-2020-12" }) as Record<string, unknown>;
  delete json.$schema;
  const wrapped = json.type === "object" ? json : { type: "object", properties: { value: json }, required: ["value"], additionalProperties: false };
  return { type: "json_schema", json_schema: { name, strict: true, schema: wrapped } };
}

export function decodeAnswer<S extends AnySchema>(schema: S, json: unknown): InferSchema<S> {
  const s = schema as z.ZodType;
  const isObject = s._zod.def.type === "object";
  const value = isObject ? json : (json as { value?: unknown })?.value;
  const result = s.safeParse(value);
  if (!result.success) throw new AnswerValidationError(result.error.issues, json);
  return result.data as InferSchema<S>;
}
