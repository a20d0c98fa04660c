/**
 * Reads the table of numeric types from the PostgreSQL documentation that Debian ships
 * (`apt-get install postgresql-doc-15`).
 *
 *   pnpm wf run examples/pg-numeric-types/workflow.ts
 */
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { pgDocsUrl, requirePage } from "../_shared/pg-docs.js";

/** One row of "Table 8.2. Numeric Types". */
export const NumericType = z.object({
  name: z.string().describe("the type's name, e.g. smallint"),
  storageSize: z.string().describe('e.g. "2 bytes" or "variable"'),
  description: z.string(),
  range: z.string(),
});

export default workflow(
  {
    name: "pg-numeric-types",
    description: "Lists PostgreSQL's numeric types with their storage size and range, from the installed documentation.",
    params: z.object({
      pageUrl: z.string().default(pgDocsUrl("datatype-numeric.html")).describe("where the page of numeric types is"),
    }),
    output: z.array(NumericType).min(1),
  },
  async ({ params }) => {
    await act(`go to ${requirePage(params.pageUrl)}`);
    return await ask("the table of numeric types", z.array(NumericType));
  },
);
