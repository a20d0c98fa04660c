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
