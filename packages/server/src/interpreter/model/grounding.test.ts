import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { PAGE_DATA, VIEW_MARKS, contentIn, foldText, renderPageView, type RawPageView, type ViewLine } from "../page/index.js";
import { answerErrors } from "../read/index.js";
import { groundAnswer, groundedResponseSchema, pointer, splitGroundedAnswer, userPath, type AnswerQuote } from "./grounding.js";

const M = (s: string) => VIEW_MARKS.markup[0] + s + VIEW_MARKS.markup[1];
const L = (s: string) => VIEW_MARKS.link[0] + s + VIEW_MARKS.link[1];
const E = (ref: string, s: string) => VIEW_MARKS.element[0] + ref + VIEW_MARKS.element[1] + s + VIEW_MARKS.element[0] + VIEW_MARKS.element[1];
const q = (s: string) => M('"') + s + M('"');
const row = (...cells: string[]) => M("| ") + cells.join(M(" | ")) + M(" |");
const line = (t: string, more: Partial<ViewLine> = {}): ViewLine => ({ t, d: 0, h: 0, th: -1, dlg: false, refs: 0, ...more });

const PAGE: RawPageView = {
  title: "Order 1042 — Acme Shop",
  url: "https://shop.test/orders/1042",
  elements: [],
  lines: [
    line(M("# ") + "Order #1042", { h: 1 }),
    line(M("status: ") + "Placed on March 5, 2024"),
    line(row("Item", "Qty", "Price", "Availability")),
    line(row("Anvil", "2", "$120.00", "In stock"), { th: 2 }),
    line(row("Rocket skates", "1", "$950.00", "Sold out"), { th: 2 }),
    line("Total" + M(": ") + "42.00"),
    line("Subtotal" + M(": ") + "1,190.00"),
    line(E("e1", M("link ") + q("Invoice") + M(" → ") + L("/invoices/1042"))),
    line(E("e2", M("checkbox ") + q("Gift wrap") + M(" (checked)"))),
  ],
};
const source = renderPageView(PAGE, { purpose: "ask", query: "order", budgetTokens: 10_000, secrets: [] }).source;
const URL_ = PAGE.url;

function schemaOf(schema: z.ZodType) {
  return normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>)!;
}

function ground(schema: z.ZodType, answer: unknown, quotes: AnswerQuote[] = []) {
  return groundAnswer(answer, quotes, schemaOf(schema).schema, source, URL_);
}

const Total = z.object({ total: z.string() });

describe("groundAnswer: what the page supports", () => {
  it("refuses a value the table does not state, naming its path, and takes the one it states", () => {
    const bad = ground(Total, { total: "99.99" }, [{ path: "/total", quote: "Total: 42.00" }]);
    expect(bad.problems).toEqual([{ path: "/total", reason: '"99.99" is not in its quote "Total: 42.00"' }]);
    const good = ground(Total, { total: "42.00" }, [{ path: "/total", quote: "Total: 42.00" }]);
    expect(good.problems).toEqual([]);
    expect(good.values).toEqual([{ path: "/total", value: "42.00", basis: "quoted", quotes: [{ text: "Total 42.00", line: 5, lineText: "Total: 42.00", occurrences: 1 }] }]);
  });

  it("refuses a quote that is not page text, and one that is only the view's own words", () => {
    expect(ground(Total, { total: "42.00" }, [{ path: "/total", quote: "Grand total: 42.00" }]).problems[0]).toEqual({ path: "/total", reason: 'its quote "Grand total: 42.00" is not text of the page' });
    expect(ground(Total, { total: "checked" }, [{ path: "/total", quote: "(checked)" }]).problems[0]!.reason).toMatch(/view's own text/);
  });

  it("looks a value without a quote up on the whole page, at word boundaries", () => {
    expect(ground(Total, { total: "42.00" }).problems).toEqual([]);
    expect(ground(Total, { total: "99.99" }).problems).toEqual([{ path: "/total", reason: '"99.99" is not text of the page' }]);
    expect(ground(z.object({ item: z.string() }), { item: "Anvi" }).problems).toHaveLength(1);
    expect(ground(z.object({ item: z.string() }), { item: "anvil." }).problems).toEqual([]); // case and closing punctuation
    expect(ground(z.object({ item: z.string() }), { item: "" }).problems[0]!.reason).toMatch(/empty text/);
  });

  it("reads numbers as the page writes them: 42 / 42.00, 1190 / 1,190.00, $120.00", () => {
    const Num = z.object({ n: z.number() });
    expect(ground(Num, { n: 42 }, [{ path: "/n", quote: "Total: 42.00" }]).problems).toEqual([]);
    expect(ground(Num, { n: 1190 }, [{ path: "/n", quote: "Subtotal: 1,190.00" }]).problems).toEqual([]);
    expect(ground(Num, { n: 120 }).problems).toEqual([]);
    expect(ground(Num, { n: 99.99 }, [{ path: "/n", quote: "Total: 42.00" }]).problems).toHaveLength(1);
    expect(ground(Num, { n: 1.19 }).problems).toHaveLength(1);
  });

  it("takes a count or a sum from the quotes it was made of, each at its own place", () => {
    const Count = z.object({ items: z.number() });
    const counted = ground(Count, { items: 2 }, [
      { path: "/items", quote: "Anvil" },
      { path: "/items", quote: "Rocket skates" },
    ]);
    expect(counted.problems).toEqual([]);
    expect(counted.values[0]).toMatchObject({ basis: "count", quotes: [{ text: "Anvil" }, { text: "Rocket skates" }] });
    // The same quote twice is one item.
    expect(
      ground(Count, { items: 2 }, [
        { path: "/items", quote: "Anvil" },
        { path: "/items", quote: "anvil" },
      ]).problems[0]!.reason,
    ).toMatch(/nor is it their count \(1\) or sum/);
    const summed = ground(z.object({ qty: z.number() }), { qty: 3 }, [
      { path: "/qty", quote: "Anvil | 2" },
      { path: "/qty", quote: "Rocket skates | 1" },
    ]);
    expect(summed.values[0]).toMatchObject({ basis: "sum" });
    expect(ground(z.object({ n: z.number() }), { n: 7 }).problems[0]!.reason).toMatch(/not written on the page; a count or a sum needs the quotes/);
  });

  it("wants a quote for a yes/no, and checks only that the quote is on the page", () => {
    const Yes = z.object({ gift: z.boolean() });
    expect(ground(Yes, { gift: true }).problems[0]!.reason).toMatch(/yes\/no with no quote/);
    expect(ground(Yes, { gift: true }, [{ path: "/gift", quote: "Gift wrap" }]).values[0]).toMatchObject({ basis: "judged", quotes: [{ text: "Gift wrap", ref: "e2" }] });
  });

  it("lets an item's quote stand for its fields", () => {
    const Rows = z.array(z.object({ item: z.string(), qty: z.number(), inStock: z.boolean() }));
    const answer = { value: [{ item: "Anvil", qty: 2, inStock: true }, { item: "Rocket skates", qty: 1, inStock: false }] };
    const quotes = [
      { path: "/value/0", quote: "| Anvil | 2 | $120.00 | In stock |" },
      { path: "/value/1", quote: "Rocket skates 1 $950.00 Sold out" },
    ];
    const g = ground(Rows, answer, quotes);
    expect(g.problems).toEqual([]);
    expect(g.values.map((v) => v.path)).toEqual(["/value/0/item", "/value/0/qty", "/value/0/inStock", "/value/1/item", "/value/1/qty", "/value/1/inStock"]);
    expect(g.values[0]!.quotes[0]).toMatchObject({ line: 3, lineText: "| Anvil | 2 | $120.00 | In stock |" });
    // A row's quote does not support another row's value.
    expect(ground(Rows, { value: [{ item: "Rocket skates", qty: 2, inStock: true }] }, [quotes[0]!]).problems.map((p) => p.path)).toEqual(["/value/0/item"]);
  });

  it("reads an enum value's _ and - as spaces, an ISO date as the page writes dates, an absolute URL as a relative link", () => {
    expect(ground(z.object({ a: z.enum(["in_stock", "sold_out"]) }), { a: "in_stock" }).problems).toEqual([]);
    expect(ground(z.object({ a: z.enum(["in_stock", "backorder"]) }), { a: "backorder" }).problems).toHaveLength(1);
    expect(ground(z.object({ d: z.string() }), { d: "2024-03-05" }).problems).toEqual([]);
    expect(ground(z.object({ d: z.string() }), { d: "2024-03-06" }).problems).toHaveLength(1);
    expect(ground(z.object({ u: z.string() }), { u: "https://shop.test/invoices/1042" }).values[0]).toMatchObject({ quotes: [{ text: "/invoices/1042", ref: "e1" }] });
    expect(ground(z.object({ u: z.string() }), { u: "https://evil.test/invoices/1042" }).problems).toHaveLength(1);
  });

  it("takes the document's title and URL as page data, not the header's own words", () => {
    expect(ground(z.string(), { value: "Order 1042 — Acme Shop" }).problems).toEqual([]);
    expect(ground(z.string(), { value: "Page: Order 1042 — Acme Shop" }).problems).toHaveLength(1);
    expect(ground(z.string(), { value: "Order 1042 — Acme Shop" }, [{ path: "/value", quote: "Page: Order 1042 — Acme Shop" }]).problems).toEqual([]);
  });

  it("needs nothing for null", () => {
    expect(ground(z.object({ total: z.string().nullable() }), { total: null })).toEqual({ values: [], problems: [] });
  });
});

describe("groundedResponseSchema", () => {
  it("wraps the step's schema as `answer` beside `quotes`, strict", () => {
    const step = schemaOf(Total);
    const envelope = groundedResponseSchema(step);
    expect(envelope.name).toBe("answer");
    expect(envelope.schema).toMatchObject({ type: "object", required: ["answer", "quotes"], additionalProperties: false, properties: { answer: step.schema } });
    expect(answerErrors({ answer: { total: "1" }, quotes: [{ path: "/total", quote: "1" }] }, envelope.schema)).toEqual([]);
    expect(answerErrors({ answer: { total: 1 }, quotes: [] }, envelope.schema).map((e) => e.path)).toEqual(["/answer/total"]);
  });

  it("moves $defs to the root, and a schema that refers to its own root into $defs", () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const Tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    const envelope = groundedResponseSchema(schemaOf(Tree));
    const text = JSON.stringify(envelope.schema);
    expect(text).not.toContain('"$ref":"#"');
    const answer = { name: "root", children: [{ name: "leaf", children: [] }] };
    expect(answerErrors({ answer: answer, quotes: [] }, envelope.schema)).toEqual([]);
    expect(answerErrors({ answer: { name: "root", children: [{ name: 3, children: [] }] }, quotes: [] }, envelope.schema)).not.toEqual([]);
  });
});

describe("splitGroundedAnswer", () => {
  it("takes { answer, quotes } apart, and says what is missing", () => {
    expect(splitGroundedAnswer({ answer: { a: 1 }, quotes: [{ path: "/a", quote: "1" }] })).toEqual({ answer: { a: 1 }, quotes: [{ path: "/a", quote: "1" }] });
    expect(splitGroundedAnswer({ a: 1 })).toMatchObject({ problem: expect.stringContaining("`answer`") });
    expect(splitGroundedAnswer({ answer: null, quotes: [{ path: 1 }] })).toMatchObject({ problem: expect.stringContaining("`path` and `quote`") });
  });
});

describe("pointer", () => {
  it.each([
    ["/value/0/price", "/value/0/price"],
    ["value[0].price", "/value/0/price"],
    ["value.0.price", "/value/0/price"],
    ["$.answer.total", "/total"],
    ["/answer/total", "/total"],
    ["", ""],
    ["/", ""],
  ])("%s", (path, want) => {
    expect(pointer(path)).toBe(want);
  });

  it("says paths the way the user's schema has them", () => {
    expect(userPath("/value/0/price", true)).toBe("/0/price");
    expect(userPath("/value", true)).toBe("(the answer)");
    expect(userPath("/total", false)).toBe("/total");
  });
});

describe("groundAnswer, drawn at random", () => {
  const pageText = contentIn(source, { start: 0, end: source.text.length }, PAGE_DATA);
  const folded = ` ${foldText(pageText).replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  /** Whether the page's text holds `value`'s words in a row (a generous test: punctuation ignored). */
  const onPage = (value: string) => {
    const words = foldText(value).replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    return words.length > 0 && folded.includes(` ${words} `);
  };
  const cells = ["Anvil", "Rocket skates", "In stock", "Sold out", "Order #1042", "Invoice", "Gift wrap", "$120.00", "42.00"];

  it("never supports a text whose words the page does not have in a row, with or without a quote", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."abcdefgnorstuvwxyz ANOR12345.$-#"), minLength: 1, maxLength: 20 }), fc.option(fc.constantFrom(...cells)), (value, quote) => {
        // About words: a text of punctuation alone ("#", the page's "Order #1042" has it) has none.
        fc.pre(/[\p{L}\p{N}]/u.test(value) && !onPage(value));
        const g = ground(z.object({ v: z.string() }), { v: value }, quote ? [{ path: "/v", quote }] : []);
        expect(g.problems.map((p) => p.path)).toEqual(["/v"]);
      }),
      { numRuns: 300 },
    );
  });

  it("never supports a number the page does not write, unless it counts its quotes", () => {
    const written = new Set([1042, 2, 1, 120, 950, 42, 1190, 5, 2024, 3]);
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -5000, max: 5000 }), fc.double({ min: -5000, max: 5000, noNaN: true })), (n) => {
        fc.pre(![...written].some((w) => Math.abs(w - n) < 1e-9) && !Object.is(n, -0));
        expect(ground(z.object({ n: z.number() }), { n }).problems).toHaveLength(1);
        expect(ground(z.object({ n: z.number() }), { n }, [{ path: "/n", quote: "Anvil" }]).problems).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });

  it("supports every whole cell of the page, quoted by its row or by nothing", () => {
    fc.assert(
      fc.property(fc.constantFrom(...cells.filter((c) => !/^[$\d]/.test(c))), fc.boolean(), (cell, quoted) => {
        const row = ["Anvil", "In stock"].includes(cell) ? "| Anvil | 2 | $120.00 | In stock |" : ["Rocket skates", "Sold out"].includes(cell) ? "Rocket skates | 1 | $950.00 | Sold out" : undefined;
        const quotes = quoted && row ? [{ path: "/v", quote: row }] : [];
        expect(ground(z.object({ v: z.string() }), { v: cell }, quotes).problems).toEqual([]);
      }),
    );
  });
});
