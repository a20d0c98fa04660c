/**
 * Finds PostgreSQL's limits the way a reader would: opens the documentation's home page, follows
 * the docs' own link to the appendix on limits, and reads the page it lands on: its heading and
 * URL, the table of limitations as the page writes it, and the same table with numbers parsed.
 *
 *   pnpm wf run examples/pg-limits/workflow.ts
 */
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { pgDocsUrl, requirePage } from "../_shared/pg-docs.js";

/** A row of "Table K.1. PostgreSQL Limitations", as the page writes it. */
export const LimitRow = z.object({
  item: z.string(),
  upperLimit: z.string(),
  comment: z.string(),
});

/**
 * The same row with the upper limit read as a number: `"1,600"` → 1600; `null` where the page has
 * no number (`"unlimited"`).
 */
export const NumericLimit = z.object({
  item: z.string(),
  upperLimit: z.number().nullable(),
});

/** What the workflow returns. */
export const LimitsOutput = z.object({
  heading: z.string(),
  url: z.string(),
  rows: z.array(LimitRow),
  /** Item → upper limit, for the items whose limit the page writes as a bare number. */
  limits: z.record(z.string(), z.number()),
});

export default workflow(
  {
    name: "pg-limits",
    description: "Navigates from the PostgreSQL documentation's home page to its appendix on limits and reads them.",
    params: z.object({
      homeUrl: z.string().default(pgDocsUrl("index.html")).describe("the documentation's home page"),
      linkText: z.string().default("K. PostgreSQL Limits").describe("the link that leads to the limits"),
    }),
    output: LimitsOutput,
  },
  async ({ params, log }) => {
    await act(`go to ${requirePage(params.homeUrl)}`);
    await act(`click the link "${params.linkText}"`);

    const heading = await ask("the main heading of the page");
    const url = await ask("the URL of the page");
    log(`reading ${url}`);

    const rows = await ask("the table of limitations", z.array(LimitRow));
    const numeric = await ask("the table of limitations", z.array(NumericLimit));

    // Keep the numbers that are the whole limit: the page also writes "32 TB" and "limited by the
    // number of tuples that can fit onto 4,294,967,295 pages", whose numbers alone would mislead.
    const limits: Record<string, number> = {};
    for (const [i, row] of rows.entries()) {
      const value = numeric[i]?.upperLimit;
      if (value != null && /^[\d,]+$/.test(row.upperLimit)) limits[row.item] = value;
    }
    return { heading, url, rows, limits };
  },
);
