/**
 * What the suite's reads must return, shared by both sides of `bench:suite`: the wf workflows
 * compare their `ask()` answers with it, the Playwright Test specs their `expect`s, and the
 * bench's model double (which records the reads into the lock) answers with it. Each value is
 * what the fixture page shows (the pages are served from disk, see `suite.bench.ts`).
 */
import { isDeepStrictEqual } from "node:util";

/** The team admin app's members table after signing in (examples/team-admin/app). */
export const MEMBERS = [
  { Name: "Ada Lovelace", Role: "Owner", Newsletter: "yes" },
  { Name: "Alan Turing", Role: "Editor", Newsletter: "no" },
];

/** The pending orders of the back office's orders page (read-orders.html), totals as numbers. */
export const PENDING_ORDERS = [
  { order: "#1042", customer: "Ada Lovelace", total: 120 },
  { order: "#1044", customer: "Grace Hopper", total: 1299 },
];
/** The page text of each pending order's total. */
export const PENDING_TOTALS_TEXT = ["$120.00", "$1,299.00"];

/** The orders page's account summary. */
export const ACCOUNT = { manager: "Dana Whitfield", balance: 1284.5 };
export const ACCOUNT_BALANCE_TEXT = "$1,284.50";

/** "Table K.1. PostgreSQL Limitations" of the PostgreSQL 15 documentation, item and upper limit. */
export const LIMITS = [
  { item: "database size", upperLimit: "unlimited" },
  { item: "number of databases", upperLimit: "4,294,950,911" },
  { item: "relations per database", upperLimit: "1,431,650,303" },
  { item: "relation size", upperLimit: "32 TB" },
  { item: "rows per table", upperLimit: "limited by the number of tuples that can fit onto 4,294,967,295 pages" },
  { item: "columns per table", upperLimit: "1,600" },
  { item: "CHECK constraints per table", upperLimit: "32,767" },
  { item: "columns in a result set", upperLimit: "1,664" },
  { item: "field size", upperLimit: "1 GB" },
  { item: "indexes per table", upperLimit: "unlimited" },
  { item: "columns per index", upperLimit: "32" },
  { item: "partition keys", upperLimit: "32" },
  { item: "identifier length", upperLimit: "63 bytes" },
  { item: "function arguments", upperLimit: "100" },
  { item: "query parameters", upperLimit: "65,535" },
];

/** The storage size of `bigint` in "Table 8.2. Numeric Types". */
export const BIGINT_SIZE = "8 bytes";

/**
 * Throws when `actual` is not deeply equal to `expected`, naming `what` and both values.
 * @throws Error `<what>: expected <json>, got <json>`
 */
export function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
