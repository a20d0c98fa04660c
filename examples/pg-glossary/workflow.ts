/**
 * Looks terms up in the glossary of the PostgreSQL documentation. The page is one long definition
 * list (`<dt>` term, `<dd>` definition); the ASK reads it as labelled values, with a schema built
 * at run time from the `terms` param: one nullable string per term, `null` when the glossary
 * lacks it.
 *
 *   pnpm wf run examples/pg-glossary/workflow.ts --param terms=ACID,Tuple,WAL
 */
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { pgDocsUrl, requirePage } from "../_shared/pg-docs.js";

/** What the workflow returns. */
export const GlossaryOutput = z.object({
  heading: z.string(),
  /** Term → definition, for the terms the glossary defines, in the order asked. */
  found: z.record(z.string(), z.string()),
  /** The terms the glossary does not define. */
  missing: z.array(z.string()),
});

export default workflow(
  {
    name: "pg-glossary",
    description: "Reads the PostgreSQL glossary and returns the definitions of the terms asked for.",
    params: z.object({
      pageUrl: z.string().default(pgDocsUrl("glossary.html")).describe("where the glossary is"),
      terms: z
        .string()
        .default("ACID,Tuple")
        .describe("comma-separated terms to look up, written as the glossary writes them (case does not matter)"),
    }),
    output: GlossaryOutput,
  },
  async ({ params }) => {
    const terms = [...new Set(params.terms.split(",").map((t) => t.trim()).filter(Boolean))];
    await act(`go to ${requirePage(params.pageUrl)}`);
    const heading = await ask("the main heading");

    const schema = z.object(Object.fromEntries(terms.map((term) => [term, z.string().nullable()])));
    const definitions = await ask("the definitions of the glossary terms", schema);

    const found: Record<string, string> = {};
    const missing: string[] = [];
    for (const term of terms) {
      const definition = definitions[term];
      if (typeof definition === "string") found[term] = definition;
      else missing.push(term);
    }
    return { heading, found, missing };
  },
);
