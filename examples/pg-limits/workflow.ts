/**
 * Finds PostgreSQL's limits the way a reader would: opens the documentation's home page, follows
 * the link to the appendix on limits, and reads the heading and a few limits as numbers.
 *
 *   pnpm wf run examples/pg-limits/workflow.ts
 */
import { act, ask, workflow } from "@wf/core";
import { z } from "zod";
import { openDocsPage, pgDocsUrl } from "../_shared/pg-docs.js";

/** Rows of "Table K.1. PostgreSQL Limitations" whose upper limit is a plain number. */
export const Limits = z.object({
  columnsPerTable: z.number().int().describe('the row "columns per table"'),
  columnsInAResultSet: z.number().int().describe('the row "columns in a result set"'),
  functionArguments: z.number().int().describe('the row "function arguments"'),
  queryParameters: z.number().int().describe('the row "query parameters"'),
});

/** Every row of the table, as the page writes it. */
export const LimitRow = z.object({
  item: z.string(),
  upperLimit: z.string(),
  comment: z.string(),
});

export default workflow(
  {
    name: "pg-limits",
    description: "Navigates from the PostgreSQL documentation's home page to its appendix on limits and reads them.",
    params: z.object({
      homeUrl: z.string().default(pgDocsUrl("index.html")).describe("the documentation's home page"),
      linkText: z.string().default("K. PostgreSQL Limits").describe("the link that leads to the limits"),
    }),
  },
  async ({ params, log }) => {
    await openDocsPage(params.homeUrl);
    await act(`click the link "${params.linkText}"`);
    const heading = await ask("the main heading of the page");
    const url = await ask("the URL of the page");
    log(`reading ${url}`);
    const rows = await ask("the table of limitations", z.array(LimitRow));
    const limits = await ask("the upper limits", Limits);
    return { heading, url, limits, rows };
  },
);
