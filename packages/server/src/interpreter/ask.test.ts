import { describe, expect, it } from "vitest";
import { answerFromPage, answerTextFromPage } from "./ask.js";
import { InterpreterError } from "./errors.js";
import type { PageData } from "./_page-scripts.js";

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
        { planName: "Free", monthlyPrice: 0, storageSize: 1 },
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
  it("prefers a label the question names, then title/URL/heading words, then the main text", () => {
    expect(answerTextFromPage(page, "the support email")).toBe("help@example.test");
    expect(answerTextFromPage(page, "page title")).toBe("Plans");
    expect(answerTextFromPage(page, "the URL")).toBe("https://example.test/plans");
    expect(answerTextFromPage(page, "all headings")).toBe("Plans\nCompare");
    expect(answerTextFromPage(page, "anything else")).toBe("Plans Compare …");
  });
});
