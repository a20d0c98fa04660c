/** What the model tests use directly, beside the server: the interpreter's own constructors. */
import type { z } from "zod";
import { toResponseFormat } from "@wf/core";
import { normalizeStepSchema, type NormalizedStepSchema } from "@wf/core/protocol";

export { createDeterministicInterpreter } from "../../src/interpreter/index.js";
export { createGrammarThenModelInterpreter, createModelInterpreter, createModelProvider } from "../../src/interpreter/model/index.js";

/** A zod schema as a step carries it, normalised the way the session manager hands it to an interpreter. */
export function normalizeStepSchemaForTests(schema: z.ZodType): NormalizedStepSchema {
  return normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>)!;
}
