import { describe, expect, it } from "vitest";
import { VIEW_MARKS, renderPageView, type RawPageView, type ViewLine } from "../page/index.js";
import { weighEvidence } from "./evidence.js";

const M = (s: string) => VIEW_MARKS.markup[0] + s + VIEW_MARKS.markup[1];
const E = (ref: string, s: string) => VIEW_MARKS.element[0] + ref + VIEW_MARKS.element[1] + s + VIEW_MARKS.element[0] + VIEW_MARKS.element[1];
const q = (s: string) => M('"') + s + M('"');
const row = (...cells: string[]) => M("| ") + cells.join(M(" | ")) + M(" |");
const line = (t: string, more: Partial<ViewLine> = {}): ViewLine => ({ t, d: 0, h: 0, th: -1, dlg: false, refs: 0, ...more });

/** The check fixture's orders page (tests/fixtures/check/orders.html) as its view marks it. */
const ORDERS: RawPageView = {
  title: "Orders — Acme Shop",
  url: "http://127.0.0.1:4321/orders.html",
  elements: [],
  lines: [
    line("Acme"),
    line(E("e1", M("link ") + q("Orders")) + " " + E("e2", M("link ") + q("Customers"))),
    line(M("status: ") + "Order #1042 placed"),
    line("Your orders"),
    line(row("Customer", "Status", M("-"))),
    line(row("Ada", "Pending", E("e3", M("button ") + q("Edit")) + " " + E("e4", M("button ") + q("Delete"))), { th: 4 }),
    line(row("Grace", "Shipped", E("e5", M("button ") + q("Edit"))), { th: 4 }),
    line(row("Linus", "Pending", E("e6", M("button ") + q("Edit"))), { th: 4 }),
    line(E("e7", M("checkbox ") + q("Terms") + M(" (checked)")) + " Terms"),
    line(E("e8", M("button ") + q("Pay") + M(" (disabled)"))),
    line(M("- ") + "Free shipping over 50 €"),
  ],
};
const source = renderPageView(ORDERS, { purpose: "ask", query: "order", budgetTokens: 10_000, secrets: [] }).source;

describe("weighEvidence: no check holds on these", () => {
  it.each([
    ["a letter", "e", "Ada's order is pending", /not text of the page|too short|only part/],
    ["a word out of a line", "Order", "the order was placed", /only part of the page text "Order #1042 placed"/],
    ["the view's title header", "Page: Orders — Acme Shop", "the page is the orders page", /view's own text/],
    ["the title alone", "Orders — Acme Shop", "the page is the orders page", /view's own text/],
    ["the URL header", "URL: http://127.0.0.1:4321/orders.html", "the page is the orders page", /view's own text/],
    ["a role word", "button", "there is a button", /view's own text/],
    ["a state the view adds", "(disabled)", "the Pay button is disabled", /view's own text/],
    ["text the page does not show", "Ada's order shipped on Monday", "Ada's order has shipped", /not text of the page/],
    ["nothing", "   ", "the page is fine", /empty/],
    ["a cell that does not name the row the statement is about", "Pending", "Grace's order is pending", /does not name "Grace"/],
    ["another row", "Grace Shipped", "Linus's order has shipped", /does not name "Linus"/],
    ["a line that shares no word with the statement", "Free shipping over 50 €", "Ada's order is pending", /does not name "Ada"/],
    ["a line unrelated to the statement", "Free shipping over 50 €", "the cart is empty", /shares no word/],
    ["a number the statement names, missing", "Order #1042 placed", "order #1043 was placed", /does not name "1043"/],
  ])("%s: %j", (_what, evidence, statement, why) => {
    const weight = weighEvidence(evidence, statement, true, source);
    expect(weight.ok).toBe(false);
    if (!weight.ok) expect(weight.why).toMatch(why);
  });
});

describe("weighEvidence: these make a check hold", () => {
  it.each([
    ["two whole cells of the row", "Ada Pending", "Ada's order is still waiting to ship", "Ada Pending"],
    ["the row with its borders", "| Grace | Shipped |", "Grace's order has shipped", "Grace Shipped"],
    ["a whole line", "Order #1042 placed", "the order was placed", "Order #1042 placed"],
    ["a line with the view's prefix", "status: Order #1042 placed", "order #1042 was placed", "Order #1042 placed"],
    ["a whole line of two words", "Your orders", "the page lists your orders", "Your orders"],
    ["an element's name", "Terms", "the Terms are accepted", "Terms"],
    // The state is the view's: only the name counts (a check of a state has its grammar form, `the "Terms" checkbox is checked`).
    ["an element with its role and state", 'checkbox "Terms" (checked)', "the terms are accepted", "Terms"],
    ["several words of a line", "shipping over 50", "shipping is free over 50 €", "shipping over 50"],
    ["curly quotes and case folded", "ADA PENDING", "Ada's order is pending", "Ada Pending"],
  ])("%s: %j", (_what, evidence, statement, text) => {
    expect(weighEvidence(evidence, statement, true, source)).toEqual({ ok: true, text });
  });

  it("does not ask a statement that does not hold to bear on it: what the page shows instead", () => {
    expect(weighEvidence("Free shipping over 50 €", "Ada's order has shipped", false, source)).toMatchObject({ ok: true });
    expect(weighEvidence("Order", "Ada's order has shipped", false, source)).toMatchObject({ ok: false });
  });
});
