/**
 * Checks an answer against a step's JSON Schema, with zod 4's `z.fromJSONSchema`: the one check
 * every interpreter's answer passes before a step succeeds.
 */
import { z } from "zod";
import { toFieldErrors, type FieldError } from "@wf/core/protocol";

/**
 * Lists what is wrong with `answer` for `schema`, each as a JSON Pointer and a message; empty when
 * it is valid, or when zod cannot read the schema (then nothing is checked).
 */
export function answerErrors(answer: unknown, schema: Record<string, unknown>): FieldError[] {
  let validator = validators.get(schema);
  if (validator === undefined) {
    try {
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      validator = null;
    }
    validators.set(schema, validator);
  }
  if (validator === null) return [];
  const parsed = validator.safeParse(answer);
  return parsed.success ? [] : toFieldErrors(parsed.error.issues);
}

/**
 * Validators already built, by schema object: the ACT answer's schema is one object for every
 * model step (and every retry), so its validator is built once. `null`: zod cannot read it.
 */
const validators = new WeakMap<object, z.ZodType | null>();
