/**
 * Looks terms up in the glossary of the PostgreSQL documentation: the page is one long definition
 * list, read here into an array of `{ term, definition }`.
 *
 *   pnpm wf run examples/pg-glossary/workflow.ts --param terms=ACID,Tuple
 */
import { ask, workflow } from "@wf/core";
import { z } from "zod";
import { openDocsPage, pgDocsUrl } from "../_shared/pg-docs.js";

/** One entry of the glossary's definition list. */
export const GlossaryEntry = z.object({
  term: z.string(),
  definition: z.string(),
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
        .describe("comma-separated terms to look up, matched case-insensitively against the start of each glossary term"),
    }),
    output: z.object({
      title: z.string(),
      entryCount: z.number().int(),
      found: z.array(GlossaryEntry),
      missing: z.array(z.string()),
    }),
  },
  async ({ params }) => {
    await openDocsPage(params.pageUrl);
    const title = await ask("the title of the page");
    const entries = await ask("the glossary terms and their definitions", z.array(GlossaryEntry));
    const wanted = params.terms
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const found: Array<z.infer<typeof GlossaryEntry>> = [];
    const missing: string[] = [];
    for (const term of wanted) {
      const entry = entries.find((e) => e.term.toLowerCase().startsWith(term.toLowerCase()));
      if (entry) found.push(entry);
      else missing.push(term);
    }
    return { title, entryCount: entries.length, found, missing };
  },
);
