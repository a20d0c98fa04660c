import { describe, expect, it } from "vitest";
import { renderPageView, type RawPageView } from "./view.js";
import { VIEW_MARKS, type ViewLine } from "./view-script.js";
import { DOCUMENT, MARKUP, PAGE_DATA, PAGE_TEXT, TEXT, contentIn, elementAt, findText, lineAt, numbersIn, parseViewLine, segmentsTouched, shownIn } from "./view-source.js";

/** Lines marked as the page script marks them (see view-script.ts). */
const M = (s: string) => VIEW_MARKS.markup[0] + s + VIEW_MARKS.markup[1];
const H = (s: string) => VIEW_MARKS.hidden[0] + s + VIEW_MARKS.hidden[1];
const L = (s: string) => VIEW_MARKS.link[0] + s + VIEW_MARKS.link[1];
const E = (ref: string, s: string) => VIEW_MARKS.element[0] + ref + VIEW_MARKS.element[1] + s + VIEW_MARKS.element[0] + VIEW_MARKS.element[1];
const q = (s: string) => M('"') + s + M('"');
const row = (...cells: string[]) => M("| ") + cells.join(M(" | ")) + M(" |");
const line = (t: string, more: Partial<ViewLine> = {}): ViewLine => ({ t, d: 0, h: 0, th: -1, dlg: false, refs: 0, ...more });

const ORDERS: RawPageView = {
  title: "Orders — Acme Shop",
  url: "https://shop.test/orders",
  elements: [],
  lines: [
    line(M("# ") + "Your orders", { h: 1 }),
    line(M("status: ") + "Order #1042 placed"),
    line(row("Customer", "Status", "Total")),
    line(row("Ada", "Pending", "$1,234.50"), { th: 2 }),
    line(row("Grace", "Shipped", "42.00"), { th: 2 }),
    line("Email " + E("e1", M("textbox ") + q("Email") + M(" = ") + q("ada@example.com"))),
    line(E("e2", M("checkbox ") + q("Terms") + M(" (checked)")) + " Terms"),
    line(E("e3", M("link ") + q("Invoice") + M(" → ") + L("/invoices/1042"))),
    line(E("e4", M("button ") + M(JSON.stringify('Say "hi"')) + H('Say "hi"'))),
  ],
};

const view = () => renderPageView(ORDERS, { purpose: "ask", query: "orders", budgetTokens: 10_000, secrets: [] });

describe("parseViewLine", () => {
  it("shows the line without its marks and knows each character's kind and each element's place", () => {
    const parsed = parseViewLine("Email " + E("e1", M("textbox ") + q("Email") + M(" = ") + q("ada@example.com")));
    expect(parsed.shown).toBe('Email textbox "Email" = "ada@example.com"');
    expect(parsed.text).toBe(parsed.shown);
    const kinds = [...parsed.kinds].map((k) => (k === MARKUP ? "m" : "t")).join("");
    expect(kinds).toBe("tttttt" + "mmmmmmmm" + "m" + "ttttt" + "m" + "mmm" + "m" + "ttttttttttttttt" + "m");
    expect(parsed.elements).toEqual([{ ref: "e1", start: 6, end: parsed.text.length }]);
  });

  it("keeps hidden text out of what is shown and in the text", () => {
    const parsed = parseViewLine(M("button ") + M('"Say \\"hi\\""') + H('Say "hi"'));
    expect(parsed.shown).toBe('button "Say \\"hi\\""');
    expect(parsed.text).toBe('button "Say \\"hi\\""Say "hi"');
  });

  it("reads a line without marks as page text", () => {
    expect([...parseViewLine("plain words").kinds].every((k) => k === TEXT)).toBe(true);
  });
});

describe("renderPageView's source", () => {
  it("renders the same text as before marks, and the header as the view's own and the document's", () => {
    const v = view();
    expect(v.text.split("\n").slice(0, 5)).toEqual(["Page: Orders — Acme Shop", "URL: https://shop.test/orders", "# Your orders", "status: Order #1042 placed", "| Customer | Status | Total |"]);
    expect(v.text).toContain('button "Say \\"hi\\""');
    const titleAt = v.source.text.indexOf("Orders — Acme");
    expect(v.source.kinds[0]).toBe(MARKUP);
    expect(v.source.kinds[titleAt]).toBe(DOCUMENT);
    expect(lineAt(v.source, titleAt)!.index).toBe(-1);
    expect(lineAt(v.source, v.source.text.indexOf("Grace"))!.index).toBe(4);
  });

  it("keeps the source in step with a reduced view: only the lines kept, each with its index on the page", () => {
    const many: RawPageView = { ...ORDERS, lines: [...ORDERS.lines, ...Array.from({ length: 400 }, (_, i) => line(`filler paragraph number ${i} about nothing in particular at all`))] };
    const v = renderPageView(many, { purpose: "ask", query: "Grace shipped", budgetTokens: 300, secrets: [] });
    expect(v.reduced).toBe(true);
    const shown = v.source.lines.map((l) => shownIn(v.source, l));
    expect(shown.join("\n").replace(/\s+/g, " ")).toBe(v.text.replace(/\s+/g, " "));
    expect(findText(v.source, "filler paragraph number 399", { in: "view" })).toEqual([]);
  });

  it("splits a long line into parts whose source follows them", () => {
    const long = line("start " + E("e9", M("link ") + q("Deep")) + " " + "word ".repeat(600) + "end");
    const v = renderPageView({ ...ORDERS, lines: [long] }, { purpose: "ask", query: "end", budgetTokens: 400, secrets: [] });
    const shown = v.source.lines.map((l) => shownIn(v.source, l));
    expect(shown.join("\n").replace(/\s+/g, " ")).toBe(v.text.replace(/\s+/g, " "));
    const deep = findText(v.source, "Deep", { in: "content", kinds: PAGE_TEXT });
    if (deep.length > 0) expect(elementAt(v.source, deep[0]!)?.ref).toBe("e9");
  });

  it("masks secrets in the source too", () => {
    const v = renderPageView(ORDERS, { purpose: "ask", query: "x", budgetTokens: 10_000, secrets: ["ada@example.com"] });
    expect(v.source.text).not.toContain("ada@example.com");
    expect(v.text).not.toContain("ada@example.com");
  });
});

describe("findText", () => {
  it("finds a quote as the view shows it, or as page text alone across the view's markup, at word boundaries", () => {
    const { source } = view();
    expect(findText(source, "| Ada | Pending |", { in: "view" })).toHaveLength(1);
    expect(findText(source, "Ada Pending", { in: "view" })).toHaveLength(0);
    expect(findText(source, "ada  PENDING", { in: "content", kinds: PAGE_TEXT })).toHaveLength(1);
    expect(findText(source, "Order", { in: "content", kinds: PAGE_TEXT })).toHaveLength(1); // "Orders" of the title is not page text, nor a word match
    expect(findText(source, "rder", { in: "content", kinds: PAGE_TEXT })).toHaveLength(0);
    expect(findText(source, "Orders — Acme Shop", { in: "content", kinds: PAGE_TEXT })).toHaveLength(0);
    expect(findText(source, "Orders - Acme Shop", { in: "content", kinds: PAGE_DATA })).toHaveLength(1);
    expect(findText(source, 'Say "hi"', { in: "content", kinds: PAGE_TEXT })).toHaveLength(1);
    expect(findText(source, "button", { in: "content", kinds: PAGE_TEXT })).toHaveLength(0);
  });

  it("gives the page text of a match, the pieces it covers, and the element holding it", () => {
    const { source } = view();
    const [match] = findText(source, 'checkbox "Terms" (checked) Terms', { in: "view" });
    expect(contentIn(source, match!, PAGE_TEXT)).toBe("Terms Terms");
    expect(segmentsTouched(source, match!, PAGE_TEXT).map((s) => s.whole)).toEqual([true, true]);
    const [part] = findText(source, "Order", { in: "content", kinds: PAGE_TEXT });
    expect(segmentsTouched(source, part!, PAGE_TEXT)).toEqual([expect.objectContaining({ whole: false })]);
    const [email] = findText(source, "ada@example.com", { in: "content", kinds: PAGE_TEXT });
    expect(elementAt(source, email!)?.ref).toBe("e1");
  });
});

describe("numbersIn", () => {
  it.each([
    ["Total: $1,234.50", [1234.5]],
    ["42.00 €", [42]],
    ["1.234,5 kg", [1234.5]],
    ["-3 and 2024-05", [-3, 2024, 5]],
    ["12% of 4242 4242", [12, 4242, 4242]],
    ["item-2719", [2719]],
    ["version 3.2.1", []],
  ])("%s", (text, numbers) => {
    expect(numbersIn(text)).toEqual(numbers);
  });
});
