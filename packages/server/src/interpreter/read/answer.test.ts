import { describe, expect, it } from "vitest";
import { answerFromPage, answerTextFromPage } from "./answer.js";
import { InterpreterError } from "../errors.js";
import type { PageData } from "../page/index.js";

const page: PageData = {
  title: "Plans",
  url: "https://example.test/plans",
  headings: [
    { level: 1, text: "Plans" },
    { level: 2, text: "Compare" },
  ],
  pairs: [
    { key: "Currency", value: "EUR", source: "dl" },
    { key: "Annual billing", value: "false", checked: false, source: "label" },
    { key: "Support email", value: "help@example.test", source: "text" },
  ],
  tables: [
    { caption: "Table 1. Limits", context: "Compare", headers: ["Plan", "Seats"], rows: [["Free", "1"], ["Team", "10"]] },
    { caption: "Table 2. Prices", context: "Compare", headers: ["Plan name", "Monthly price", "Storage size"], rows: [["Free", "0 €", "1 GB"], ["Team", "1.234,00 €", "—"]] },
  ],
  groups: [],
  mainText: "Plans Compare …",
};

const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: "object",
  additionalProperties: false,
  properties,
  required,
});
const wrap = (value: unknown) => object({ value });

describe("answerFromPage", () => {
  it("chooses the table whose headers match the fields, loosely, with numbers and nullables", () => {
    const schema = wrap({
      type: "array",
      items: object({ planName: { type: "string" }, monthlyPrice: { type: "number" }, storageSize: { anyOf: [{ type: "number" }, { type: "null" }] } }),
    });
    expect(answerFromPage(page, "prices", schema)).toEqual({
      value: [
        // "1 GB" has a unit: not a number (never guessed), so the nullable field is null.
        { planName: "Free", monthlyPrice: 0, storageSize: null },
        { planName: "Team", monthlyPrice: 1234, storageSize: null },
      ],
    });
  });

  it("reads labelled values, booleans from a checkbox's state, and the page's own title and URL", () => {
    const schema = object({ currency: { type: "string", enum: ["USD", "EUR"] }, annualBilling: { type: "boolean" }, title: { type: "string" }, url: { type: "string" } });
    expect(answerFromPage(page, "settings", schema)).toEqual({ currency: "EUR", annualBilling: false, title: "Plans", url: "https://example.test/plans" });
  });

  it("answers a wrapped scalar by the label the question names", () => {
    expect(answerFromPage(page, "What is the support email?", wrap({ type: "string" }))).toEqual({ value: "help@example.test" });
  });

  it("names every field it could not find, with its path", () => {
    const schema = object({
      currency: { type: "string" },
      vatNumber: { type: "string" },
      plans: { type: "array", items: object({ plan: { type: "string" }, discount: { type: "number" } }) },
    });
    let error: unknown;
    try {
      answerFromPage(page, "everything", schema);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InterpreterError);
    expect((error as InterpreterError).code).toBe("WF_ANSWER_NOT_FOUND");
    expect((error as InterpreterError).details.fields).toEqual(["vatNumber", "plans[].discount"]);
  });

  it("does not turn words into a number", () => {
    expect(() => answerFromPage(page, "x", object({ currency: { type: "number" } }))).toThrow(/"currency"/);
  });
});

describe("answerTextFromPage", () => {
  it("answers a label the question names, title/URL/heading words, and the main text when asked for it", () => {
    expect(answerTextFromPage(page, "the support email")).toBe("help@example.test");
    expect(answerTextFromPage(page, "page title")).toBe("Plans");
    expect(answerTextFromPage(page, "the URL")).toBe("https://example.test/plans");
    expect(answerTextFromPage(page, "all headings")).toBe("Plans\nCompare");
    expect(answerTextFromPage(page, "the page text")).toBe("Plans Compare …");
    expect(answerTextFromPage(page, "everything on the page")).toBe("Plans Compare …");
    expect(answerTextFromPage(page, "what does the page say?")).toBe("Plans Compare …");
  });

  it("never answers a specific question with the whole page: WF_ANSWER_NOT_FOUND", () => {
    expect(() => answerTextFromPage(page, "anything else")).toThrow(expect.objectContaining({ code: "WF_ANSWER_NOT_FOUND" }));
    expect(() => answerTextFromPage(page, "the greeting")).toThrow(/`the page text`/);
  });

  it("answers a heading's section and an open dialog's text", () => {
    const withParts = {
      ...page,
      sections: [
        { heading: "Compare", level: 2, text: "Basic has 1 seat. Team has 10 seats." },
        { heading: "Refund policy", level: 2, text: "Refunds within 30 days." },
      ],
      dialogs: [{ kind: "dialog" as const, label: "Session expiring", text: "Your session ends in 2 minutes. Stay signed in" }],
    };
    expect(answerTextFromPage(withParts, "the refund policy")).toBe("Refunds within 30 days.");
    expect(answerTextFromPage(withParts, 'the text of the "Compare" section')).toBe("Basic has 1 seat. Team has 10 seats.");
    expect(answerTextFromPage(withParts, "what does the dialog say")).toBe("Your session ends in 2 minutes. Stay signed in");
    expect(answerTextFromPage(withParts, "the Session expiring dialog")).toBe("Your session ends in 2 minutes. Stay signed in");
    // More than the section as a whole is not read per section.
    expect(() => answerTextFromPage(withParts, "the seats of Team in the Compare section")).toThrow(expect.objectContaining({ code: "WF_ANSWER_UNCERTAIN" }));
  });
});

/** The shape of the PostgreSQL docs' limits.html: a three-column table whose labels are `<td>`s of the first column. */
const limits: PageData = {
  title: "Appendix\u00a0K.\u00a0PostgreSQL Limits",
  url: "file:///docs/limits.html",
  headings: [{ level: 2, text: "Appendix\u00a0K. PostgreSQL Limits" }],
  pairs: [],
  tables: [
    { caption: "", context: "", headers: ["Appendix K. PostgreSQL Limits", "Appendix K. PostgreSQL Limits"], rows: [["Prev", "Next"]] },
    {
      caption: "Table K.1. PostgreSQL Limitations",
      context: "Appendix K. PostgreSQL Limits",
      headers: ["Item", "Upper Limit", "Comment"],
      rows: [
        ["database size", "unlimited", ""],
        ["number of databases", "4,294,950,911", ""],
        ["relation size", "32 TB", "with the default BLCKSZ of 8192 bytes"],
        ["rows per table", "limited by the number of tuples that can fit onto 4,294,967,295 pages", ""],
        ["columns per table", "1,600", "further limited by tuple size fitting on a single page; see note below"],
        ["columns per index", "32", "can be increased by recompiling PostgreSQL"],
        ["field size", "1 GB", ""],
      ],
    },
  ],
  groups: [],
  mainText: "Table K.1 describes various hard limits of PostgreSQL.",
};

describe("table rows as labelled values (issue 3 follow-up)", () => {
  it("reads a row whose first cell matches the field, from the column the question names or the value-like one", () => {
    expect(answerFromPage(limits, "the limits", object({ columnsPerTable: { type: "number" } }))).toEqual({ columnsPerTable: 1600 });
    expect(answerFromPage(limits, "the limits", object({ numberOfDatabases: { type: "integer" }, columnsPerIndex: { type: "integer" } }))).toEqual({
      numberOfDatabases: 4294950911,
      columnsPerIndex: 32,
    });
    // The question names another column: its cell is the value.
    expect(answerFromPage(limits, "the comment on each limit", object({ relationSize: { type: "string" } }))).toEqual({
      relationSize: "with the default BLCKSZ of 8192 bytes",
    });
  });

  it("takes the second column when no header fits the question", () => {
    const plain: PageData = { ...limits, tables: [{ caption: "", context: "", headers: ["Key", "Setting", "Note"], rows: [["colour", "blue", "x"]] }] };
    const noneFits: PageData = { ...limits, tables: [{ caption: "", context: "", headers: [], rows: [["colour", "blue", "x"]] }] };
    expect(answerFromPage(plain, "config", object({ colour: { type: "string" } }))).toEqual({ colour: "blue" });
    expect(answerFromPage(noneFits, "config", object({ colour: { type: "string" } }))).toEqual({ colour: "blue" });
  });

  it("answers a wrapped scalar from the row the question names, with or without a schema", () => {
    expect(answerFromPage(limits, "What is the upper limit of columns per table?", wrap({ type: "number" }))).toEqual({ value: 1600 });
    expect(answerFromPage(limits, "How many databases can there be? (number of databases)", wrap({ type: "number" }))).toEqual({ value: 4294950911 });
    expect(answerTextFromPage(limits, "What is the upper limit of columns per table?")).toBe("1,600");
  });

  it("takes a number only from a cell whose whole text is a number: units and prose are null, or not found when required", () => {
    const schema = object({
      relationSize: { anyOf: [{ type: "number" }, { type: "null" }] },
      fieldSize: { anyOf: [{ type: "number" }, { type: "null" }] },
      rowsPerTable: { anyOf: [{ type: "number" }, { type: "null" }] },
      databaseSize: { anyOf: [{ type: "number" }, { type: "null" }] },
    });
    expect(answerFromPage(limits, "the limits", schema)).toEqual({ relationSize: null, fieldSize: null, rowsPerTable: null, databaseSize: null });
    let error: unknown;
    try {
      answerFromPage(limits, "the limits", object({ relationSize: { type: "number" }, rowsPerTable: { type: "number" } }));
    } catch (e) {
      error = e;
    }
    expect((error as InterpreterError).code).toBe("WF_ANSWER_NOT_FOUND");
    expect((error as InterpreterError).details.fields).toEqual(["relationSize", "rowsPerTable"]);
    // As text, the cell is returned whole.
    expect(answerFromPage(limits, "the limits", object({ relationSize: { type: "string" } }))).toEqual({ relationSize: "32 TB" });
  });

  it("normalises NBSP and runs of whitespace in every text it returns", () => {
    expect(answerTextFromPage(limits, "the title of the page")).toBe("Appendix K. PostgreSQL Limits");
    expect(answerFromPage(limits, "the page", object({ title: { type: "string" }, heading: { type: "string" } }))).toEqual({
      title: "Appendix K. PostgreSQL Limits",
      heading: "Appendix K. PostgreSQL Limits",
    });
    expect(answerFromPage(limits, "the title", wrap({ type: "string" }))).toEqual({ value: "Appendix K. PostgreSQL Limits" });
  });
});
