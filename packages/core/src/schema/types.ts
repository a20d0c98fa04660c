/**
 * The schema types `@wf/core` accepts: zod 4 schemas (`import { z } from "zod"`) and zod 3 schemas
 * (`import { z } from "zod/v3"`, shipped inside the zod 4 package).
 */
import type { z } from "zod";
import type { z as z3 } from "zod/v3";

/** Any zod 4 or zod 3 schema. */
export type AnySchema = z.ZodType | z3.ZodTypeAny;

/** The parsed (output) type of a zod 4 or zod 3 schema. */
export type InferSchema<S> = S extends z.ZodType ? z.output<S> : S extends z3.ZodTypeAny ? z3.output<S> : never;
