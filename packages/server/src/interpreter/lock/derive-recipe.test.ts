/**
 * The shapes a read recipe is derived for, and the refusals, on page data as the reader reads it
 * (the browser side is covered by tests/model/read-recipe.test.ts): a selection by `in` when no
 * single text selects the rows, a list's items, one table cell by its row, twins told apart by the
 * model's quote or refused, and a recipe that must not be kept because it reads another answer.
 */
import { describe, expect, it } from "vitest";
import type { PageData } from "../page/index.js";
import type { GroundedValue } from "../types.js";
import { deriveRecipe } from "./derive-recipe.js";
import { runRecipe } from "./read-recipe.js";

const object = (properties: Record<string, unknown>) => ({ type: "object", additionalProperties: false, properties, required: Object.keys(properties) });

const page: PageData = {
  title: "Settings",
  url: "https://example.test/settings",
  headings: [{ level: 1, text: "Settings" }],
  pairs: [
    { key: "Region", value: "eu-west-1", source: "text" },
    { key: "Backup region", value: "eu-west-1", source: "text" },
    { key: "Owner", value: "Ada", source: "dl" },
  ],
  tables: [
    {
      caption: "",
      context: "Parameters",
      headers: ["Name", "Value", "Unit"],
      rows: [
        ["port", "5432", ""],
        ["max_connections", "100", ""],
        ["shared_buffers", "128", "MB"],
      ],
    },
  ],
  groups: [{ context: "Maintainers", tag: "li", items: [{ text: "Ada Lovelace", fields: [] }, { text: "Grace Hopper", fields: [] }] }],
  mainText: "",
};

const quoted = (path: string, value: string | number, lineText: string): GroundedValue => ({ path, value, basis: "quoted", quotes: [{ text: String(value), line: 1, lineText, occurrences: 1 }] });

describe("deriveRecipe", () => {
  it("rows named one by one: selected by `in` on the first column, each value a column", () => {
    const schema = object({ value: { type: "array", items: object({ name: { type: "string" }, value: { type: "number" } }) } });
    const answer = { value: [{ name: "port", value: 5432 }, { name: "max_connections", value: 100 }] };
    const derived = deriveRecipe(page, answer, schema, []);
    expect(derived).toEqual({
      recipe: {
        parts: [
          {
            path: "/value",
            table: { headers: ["Name", "Value"] },
            where: [{ header: "Name", in: ["port", "max_connections"] }],
            columns: { name: { header: "Name", as: "text" }, value: { header: "Value", as: "number" } },
          },
        ],
      },
    });
  });

  it("a list's items, in order", () => {
    const schema = object({ value: { type: "array", items: { type: "string" } } });
    expect(deriveRecipe(page, { value: ["Ada Lovelace", "Grace Hopper"] }, schema, [])).toEqual({ recipe: { parts: [{ path: "/value", list: { context: "Maintainers" }, as: "text" }] } });
  });

  it("one table cell, its row named by its first cell, read again with the new value", () => {
    const schema = object({ limit: { type: "integer" } });
    const derived = deriveRecipe(page, { limit: 100 }, schema, [quoted("/limit", 100, "| max_connections | 100 | |")]);
    expect(derived).toEqual({
      recipe: { parts: [{ path: "/limit", table: { headers: ["Name", "Value"] }, where: [{ header: "Name", equals: "max_connections" }], column: { header: "Value", as: "number" }, single: true }] },
    });
    const changed: PageData = { ...page, tables: [{ ...page.tables[0]!, rows: [["max_connections", "250", ""]] }] };
    expect(runRecipe(changed, (derived as { recipe: never }).recipe)).toEqual({ limit: 250 });
  });

  it("a value beside two labels: the label the model's quote names, else no recipe and why", () => {
    const schema = object({ region: { type: "string" } });
    expect(deriveRecipe(page, { region: "eu-west-1" }, schema, [quoted("/region", "eu-west-1", "Backup region: eu-west-1")])).toEqual({
      recipe: { parts: [{ path: "/region", label: "Backup region", as: "text" }] },
    });
    const refused = deriveRecipe(page, { region: "eu-west-1" }, schema, [quoted("/region", "eu-west-1", "eu-west-1")]);
    expect(refused).toEqual({ noRecipe: expect.stringMatching(/"eu-west-1" stands beside several labels \("Region", "Backup region"\) and the model's quote does not say which/) });
  });

  it("refuses what a recipe cannot read, saying why: null, a choice, a sum, rows no one column selects", () => {
    expect(deriveRecipe(page, { owner: null }, object({ owner: { anyOf: [{ type: "string" }, { type: "null" }] } }), [])).toEqual({ noRecipe: expect.stringMatching(/^\/owner is null/) });
    expect(deriveRecipe(page, { owner: "Ada" }, object({ owner: { type: "string", enum: ["Ada", "Grace"] } }), [])).toEqual({ noRecipe: expect.stringMatching(/a choice among fixed values/) });
    const sum: GroundedValue = { path: "/value", value: 5532, basis: "sum", quotes: [] };
    expect(deriveRecipe(page, { value: 5532 }, object({ value: { type: "number" } }), [sum])).toEqual({ noRecipe: expect.stringMatching(/needs judgement: \/value is a sum/) });
    // Two rows with the unit "MB": the table has one.
    const rows = object({ value: { type: "array", items: object({ unit: { type: "string" } }) } });
    expect(deriveRecipe(page, { value: [{ unit: "MB" }, { unit: "MB" }] }, rows, [])).toEqual({ noRecipe: expect.stringMatching(/^\/value: /) });
  });

  it("the verification: a recipe whose run gives another answer than the model's is not kept", () => {
    // Two rows with the same values: the answer holds the second one only, which no condition tells from the first.
    const twins: PageData = { ...page, tables: [{ caption: "", context: "", headers: ["Name", "Size"], rows: [["a", "1"], ["a", "1"]] }], groups: [], pairs: [] };
    const schema = object({ value: { type: "array", items: object({ name: { type: "string" } }) } });
    const derived = deriveRecipe(twins, { value: [{ name: "a" }] }, schema, []);
    expect("recipe" in derived).toBe(false);
  });
});

describe("deriveRecipe: row selections beyond equality, and split cells", () => {
  const catalog: PageData = {
    ...page,
    pairs: [{ key: "Tags", value: "backup; storage; eu", source: "text" }],
    groups: [],
    tables: [
      {
        caption: "",
        context: "Products",
        headers: ["Name", "Description", "Price", "Labels"],
        rows: [
          ["Cron", "Runs on a schedule", "$12.50", "ops, time"],
          ["Hook", "Runs when called", "$10.00", "web"],
          ["Queue", "Waits on a topic", "$30", "ops, messaging, async"],
          ["Ping", "Checks a host", "$9.99", ""],
        ],
      },
    ],
  };
  const named = object({ value: { type: "array", items: object({ name: { type: "string" } }) } });
  const names = (...n: string[]) => ({ value: n.map((name) => ({ name })) });
  const withRows = (...rows: string[][]): PageData => ({ ...catalog, tables: [{ ...catalog.tables[0]!, rows: [...catalog.tables[0]!.rows, ...rows] }] });
  const recipeOf = (derived: ReturnType<typeof deriveRecipe>) => {
    if (!("recipe" in derived)) throw new Error(`no recipe: ${derived.noRecipe}`);
    return derived.recipe;
  };

  it("contains: the phrase the question quotes, which every selected description holds and no other; a row added that holds it is read, one that does not is not", () => {
    const recipe = recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], 'the products whose description contains "on a"'));
    expect(recipe.parts[0]!.where).toEqual([{ header: "Description", contains: "on a" }]);
    const changed = withRows(["Mail", "Sends ON A trigger", "$5", ""], ["Log", "Writes a line", "$1", ""]);
    expect(runRecipe(changed, recipe)).toEqual(names("Cron", "Queue", "Mail"));
  });

  it("a number comparison: the threshold the question writes, over it (`gt`) since a row at exactly $10 is left out; new rows compared by their price", () => {
    const recipe = recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], "the products over $10"));
    expect(recipe.parts[0]!.where).toEqual([{ header: "Price", gt: 10 }]);
    expect(runRecipe(withRows(["Mail", "Sends mail", "$1,200.00", ""], ["Log", "Writes a line", "$10", ""], ["Beta", "Soon", "n/a", ""]), recipe)).toEqual(names("Cron", "Queue", "Mail"));
  });

  it("a number comparison the rows alone leave open (no row at the threshold) takes the question's words: `at least` is gte, `under` is lt; words the rows contradict give no comparison", () => {
    expect(recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], "products costing at least 11 dollars")).parts[0]!.where).toEqual([{ header: "Price", gte: 11 }]);
    expect(recipeOf(deriveRecipe(catalog, names("Hook", "Ping"), named, [], "the products under 11")).parts[0]!.where).toEqual([{ header: "Price", lt: 11 }]);
    // "under 11" but the answer holds the dearer rows: not a comparison; the rows alone name them.
    expect(recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], "the products under 11")).parts[0]!.where).toEqual([{ header: "Name", in: ["Cron", "Queue"] }]);
    // No word says whether 11 itself counts: not guessed.
    expect(recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], "products and 11")).parts[0]!.where).toEqual([{ header: "Name", in: ["Cron", "Queue"] }]);
    // "the 10 cheapest" is a rank: `lte 10` alone selects Hook ($10) and Ping here, but no word says "at most".
    expect(recipeOf(deriveRecipe(catalog, names("Hook", "Ping"), named, [], "the 10 cheapest products")).parts[0]!.where).toEqual([{ header: "Name", in: ["Hook", "Ping"] }]);
    expect(recipeOf(deriveRecipe(catalog, names("Hook", "Ping"), named, [], "the 2 cheapest products below 10.5")).parts[0]!.where).toEqual([{ header: "Price", lt: 10.5 }]);
  });

  it("the simplest condition the question names wins: a text it names (equals), then texts it names (in), before a phrase or a number", () => {
    const labelled: PageData = withRows(["Cron 2", "Runs on a schedule", "$12.50", "ops, time"]);
    // "ops, time" is the Labels cell of both Crons and of no other row, and the question names it whole.
    expect(recipeOf(deriveRecipe(labelled, names("Cron", "Cron 2"), named, [], 'products labelled "ops, time" that run on a schedule')).parts[0]!.where).toEqual([{ header: "Labels", equals: "ops, time" }]);
    expect(recipeOf(deriveRecipe(catalog, names("Cron", "Queue"), named, [], "Cron and Queue, which cost over $10")).parts[0]!.where).toEqual([{ header: "Name", in: ["Cron", "Queue"] }]);
  });

  it("split: a cell holding several values becomes an array field; a label's value too", () => {
    const schema = object({ value: { type: "array", items: object({ name: { type: "string" }, labels: { type: "array", items: { type: "string" } } }) } });
    const answer = {
      value: [
        { name: "Cron", labels: ["ops", "time"] },
        { name: "Hook", labels: ["web"] },
        { name: "Queue", labels: ["ops", "messaging", "async"] },
        { name: "Ping", labels: [] },
      ],
    };
    const recipe = recipeOf(deriveRecipe(catalog, answer, schema, []));
    expect(recipe.parts[0]!.columns).toEqual({ name: { header: "Name", as: "text" }, labels: { header: "Labels", as: "text", split: "," } });
    expect(runRecipe(withRows(["Mail", "Sends mail", "$5", "web,  mail ,"]), recipe)).toEqual({ value: [...answer.value, { name: "Mail", labels: ["web", "mail"] }] });
    const tags = recipeOf(deriveRecipe(catalog, { tags: ["backup", "storage", "eu"] }, object({ tags: { type: "array", items: { type: "string" } } }), []));
    expect(tags).toEqual({ parts: [{ path: "/tags", label: "Tags", as: "text", split: ";" }] });
  });
});

describe("deriveRecipe: a text read from one element or section", () => {
  const shell: PageData = {
    ...page,
    headings: [
      { level: 1, text: "Integrations" },
      { level: 2, text: "Billing" },
      { level: 2, text: "Usage" },
    ],
    pairs: [],
    tables: [],
    groups: [],
    dialogs: [
      { kind: "alert", label: "", text: "Billing sync failed: retry in 5 minutes" },
      { kind: "status", label: "Saved", text: "Your changes were saved" },
    ],
    sections: [
      { heading: "Billing", level: 2, text: "Invoices are sent on the 1st." },
      { heading: "Usage", level: 2, text: "Metered hourly." },
    ],
  };
  const text = { type: "string" };

  it("the page's one h1, the only alert, a named status, a heading's section: each read again with the new text", () => {
    expect(deriveRecipe(shell, "Integrations", text, [], "the main heading")).toEqual({ recipe: { parts: [{ path: "", element: { role: "heading", level: 1 }, as: "text" }] } });
    expect(deriveRecipe(shell, "Billing sync failed: retry in 5 minutes", text, [], "the alert's message")).toEqual({ recipe: { parts: [{ path: "", element: { role: "alert" }, as: "text" }] } });
    expect(deriveRecipe(shell, { value: "Your changes were saved" }, object({ value: text }), [])).toEqual({ recipe: { parts: [{ path: "/value", element: { role: "status", name: "Saved" }, as: "text" }] } });
    const billing = deriveRecipe(shell, "Invoices are sent on the 1st.", text, []);
    expect(billing).toEqual({ recipe: { parts: [{ path: "", section: "Billing", as: "text" }] } });
    const changed: PageData = { ...shell, headings: [{ level: 1, text: "Connected apps" }], dialogs: [{ kind: "alert", label: "", text: "All synced" }], sections: [{ heading: "Billing", level: 2, text: "Invoices are sent monthly." }] };
    expect(runRecipe(changed, { parts: [{ path: "", element: { role: "heading", level: 1 }, as: "text" }] })).toBe("Connected apps");
    expect(runRecipe(changed, { parts: [{ path: "", element: { role: "alert" }, as: "text" }] })).toBe("All synced");
    expect(runRecipe(changed, (billing as { recipe: never }).recipe)).toBe("Invoices are sent monthly.");
  });

  it("an element that is gone, or no longer one, is stale; a text of two h2s is no recipe", () => {
    expect(() => runRecipe({ ...shell, dialogs: [] }, { parts: [{ path: "", element: { role: "alert" }, as: "text" }] })).toThrow(/looked for the one alert; the page has no alert/);
    expect(() => runRecipe({ ...shell, headings: [...shell.headings, { level: 1, text: "Two" }] }, { parts: [{ path: "", element: { role: "heading", level: 1 }, as: "text" }] })).toThrow(/2 such elements/);
    const twins: PageData = { ...shell, headings: [{ level: 2, text: "Same" }, { level: 2, text: "Same" }], dialogs: [], sections: [] };
    expect(deriveRecipe(twins, "Same", text, [])).toEqual({ noRecipe: expect.stringMatching(/no label, table cell, heading, alert, dialog or section on the page holds "Same" alone/) });
  });
});
