import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter, InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { launchBrowser, rejection, serveFixtures } from "./_setup.js";

const PG_PAGE = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";

let browser: Browser;
let server: StaticServer;
let context: BrowserContext;
let page: Page;
// The PostgreSQL docs are read from disk: local files allowed, as `wf run`'s embedded server does.
const interpreter = createDeterministicInterpreter({ allowFileUrls: true });

/** Asks like the runtime does: the zod schema goes through the response format, the answer back through decodeAnswer. */
async function ask<S extends z.ZodType>(question: string, schema: S): Promise<z.infer<S>> {
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  const raw = await interpreter.ask({ page, question, schema: normalized, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
  return decodeAnswer(schema, raw) as z.infer<S>;
}

function askFailure(question: string, schema: z.ZodType): Promise<InterpreterError> {
  return rejection(ask(question, schema));
}

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("ASK on a real page nobody on the project wrote", () => {
  const pgTest = existsSync(PG_PAGE) ? it : it.skip;
  const pgTitle = existsSync(PG_PAGE)
    ? "reads Table 8.2 of the PostgreSQL docs"
    : `reads Table 8.2 of the PostgreSQL docs — SKIPPED: ${PG_PAGE} is absent (apt-get install postgresql-doc-15)`;
  pgTest(pgTitle, async () => {
    await interpreter.act({ page, instruction: `go to "file://${PG_PAGE}"`, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
    const rows = await ask(
      "the table of numeric types",
      z.array(z.object({ name: z.string(), storageSize: z.string(), description: z.string(), range: z.string() })),
    );
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ name: "smallint", storageSize: "2 bytes", description: "small-range integer", range: "-32768 to +32767" });
    expect(rows.map((r) => r.name)).toEqual(["smallint", "integer", "bigint", "decimal", "numeric", "real", "double precision", "smallserial", "serial", "bigserial"]);
  });
});

describe("ASK on a page whose own script changed how JSON is written", () => {
  const Article = z.array(z.object({ article: z.string(), price: z.number(), inStock: z.boolean() }));
  const rows = [
    { article: "Brass hinge", price: 3.5, inStock: true },
    { article: "Oak shelf", price: 24, inStock: false },
  ];

  it("reads the table as shown where arrays have their own toJSON (Prototype.js)", async () => {
    await page.goto(`${server.url}/legacy-json.html`);
    expect(await page.evaluate(() => JSON.stringify([1]))).toBe('"[1]"');
    expect(await ask("the price list", Article)).toEqual(rows);
  });

  it("reads the table as shown where JSON.stringify was replaced", async () => {
    await page.goto(`${server.url}/legacy-json.html?polyfill`);
    expect(await page.evaluate(() => JSON.stringify(["a"]))).toBe('["A"]');
    expect(await ask("the price list", Article)).toEqual(rows);
    expect(await ask("the page title", z.string())).toBe("Price list – Old Shop");
  });
});

describe("ASK with a schema", () => {
  beforeAll(async () => {
    await page.goto(`${server.url}/data.html`);
  });

  it("reads labelled values: definition lists, label + field, th/td rows, Name: value text", async () => {
    const answer = await ask(
      "order details",
      z.object({
        orderDate: z.string(),
        status: z.enum(["Pending", "Shipped", "Delivered"]),
        totalPrice: z.number(),
        giftWrap: z.boolean(),
        customer: z.string(),
        trackingNumber: z.string(),
        quantity: z.number().int(),
        expressDelivery: z.boolean(),
        carrier: z.string(),
        weight: z.string(),
      }),
    );
    expect(answer).toEqual({
      orderDate: "2026-11-02",
      status: "Shipped",
      totalPrice: 1234.5,
      giftWrap: true,
      customer: "Ada Lovelace",
      trackingNumber: "ZX-99-1234",
      quantity: 3,
      expressDelivery: true,
      carrier: "Parcel Co",
      weight: "2.5 kg",
    });
  });

  it("reads the page's title, URL and headings", async () => {
    const answer = await ask("about the page", z.object({ title: z.string(), url: z.string(), h1: z.string(), headings: z.array(z.string()) }));
    expect(answer.title).toBe("Order #1042 – Shop");
    expect(answer.url).toBe(`${server.url}/data.html`);
    expect(answer.h1).toBe("Order #1042");
    expect(answer.headings).toEqual(["Order #1042", "Summary", "Items", "Shipping history", "Recommended", "Desk lamp", "Chair", "Footrest", "Features", "Team"]);
  });

  it("reads a table into an array of objects, headers matched loosely, numbers and booleans parsed", async () => {
    const items = await ask(
      "the ordered items",
      z.array(z.object({ productName: z.string(), unitPrice: z.number(), qty: z.number().int(), inStock: z.boolean() })),
    );
    expect(items).toEqual([
      { productName: "Keyboard", unitPrice: 49.9, qty: 1, inStock: true },
      { productName: "Mouse", unitPrice: 19, qty: 2, inStock: false },
      { productName: "Monitor", unitPrice: 1099, qty: 1, inStock: true },
    ]);
  });

  it("picks among tables by headers and the question's words", async () => {
    const events = await ask("the shipping history", z.array(z.object({ date: z.string(), event: z.string(), place: z.string() })));
    expect(events).toEqual([
      { date: "2026-11-02", event: "Packed", place: "Lyon" },
      { date: "2026-11-03", event: "Shipped", place: "Lyon" },
    ]);
  });

  it("reads repeated cards into an array of objects, with nullable fields null where a card lacks them", async () => {
    const cards = await ask(
      "the recommended products",
      z.object({ products: z.array(z.object({ title: z.string(), price: z.number(), description: z.string(), rating: z.number().nullable() })) }),
    );
    expect(cards.products).toEqual([
      { title: "Desk lamp", price: 24.99, description: "Warm light, three levels.", rating: 4.5 },
      { title: "Chair", price: 129, description: "Ergonomic office chair.", rating: 4.8 },
      { title: "Footrest", price: 19.5, description: "Adjustable height.", rating: null },
    ]);
  });

  it("reads a definition list into an array of terms and definitions", async () => {
    const summary = await ask("the order summary", z.array(z.object({ term: z.string(), definition: z.string() })));
    expect(summary).toEqual([
      { term: "Order date", definition: "2026-11-02" },
      { term: "Status", definition: "Shipped" },
      { term: "Total price", definition: "1,234.50 €" },
      { term: "Gift wrap", definition: "Yes" },
    ]);
  });

  it("reads list items made of Key: value lines", async () => {
    const team = await ask("the team", z.array(z.object({ name: z.string(), role: z.enum(["Analyst", "Engineer"]), since: z.number().int() })));
    expect(team).toEqual([
      { name: "Ada Lovelace", role: "Analyst", since: 1843 },
      { name: "Charles Babbage", role: "Engineer", since: 1822 },
    ]);
  });

  it("answers a wrapped scalar from the question, and a list of strings", async () => {
    await expect(ask("What is the total price?", z.number())).resolves.toBe(1234.5);
    await expect(ask("the tracking number", z.string())).resolves.toBe("ZX-99-1234");
    await expect(ask("the features", z.array(z.string()))).resolves.toEqual(["Free returns", "Two-year warranty"]);
  });

  it("gives null for a nullable field the page does not show", async () => {
    const answer = await ask("order", z.object({ status: z.string(), couponCode: z.string().nullable() }));
    expect(answer).toEqual({ status: "Shipped", couponCode: null });
  });

  it("fails with WF_ANSWER_NOT_FOUND naming every required field it could not find, never guessing", async () => {
    const error = await askFailure("order", z.object({ status: z.string(), couponCode: z.string(), invoiceNumber: z.number() }));
    expect(error.code).toBe("WF_ANSWER_NOT_FOUND");
    expect(error.details.fields).toEqual(["couponCode", "invoiceNumber"]);
    expect(error.message).toContain('"couponCode", "invoiceNumber"');

    const rows = await askFailure("items", z.array(z.object({ productName: z.string(), sku: z.string() })));
    expect(rows.code).toBe("WF_ANSWER_NOT_FOUND");
    expect(rows.details.fields).toEqual(["value[].sku"]);

    // Text where a number is wanted is not found, not coerced.
    const notANumber = await askFailure("order", z.object({ customer: z.number() }));
    expect(notANumber.details.fields).toEqual(["customer"]);
  });
});

describe("ASK with a hand-written strict JSON Schema", () => {
  it("resolves $defs/$ref, reads both nullable forms, and matches enums loosely", async () => {
    await page.goto(`${server.url}/data.html`);
    const schema = {
      type: "object",
      additionalProperties: false,
      required: ["order", "items", "coupon", "note"],
      properties: {
        order: { $ref: "#/$defs/Order" },
        items: { type: "array", items: { $ref: "#/$defs/Item" } },
        coupon: { type: ["string", "null"] },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      $defs: {
        Order: {
          type: "object",
          additionalProperties: false,
          required: ["status", "carrier"],
          properties: { status: { type: "string", enum: ["pending", "shipped", "delivered"] }, carrier: { type: "string" } },
        },
        Item: {
          type: "object",
          additionalProperties: false,
          required: ["product_name", "qty"],
          properties: { product_name: { type: "string" }, qty: { type: "integer" } },
        },
      },
    };
    const answer = await interpreter.ask({ page, question: "the order", schema: { name: "order", schema }, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
    expect(answer).toEqual({
      order: { status: "shipped", carrier: "Parcel Co" },
      items: [
        { product_name: "Keyboard", qty: 1 },
        { product_name: "Mouse", qty: 2 },
        { product_name: "Monitor", qty: 1 },
      ],
      coupon: null,
      note: null,
    });
  });
});

describe("choosing among tables", () => {
  it("picks, among tables with the same headers, the one whose caption the question names", async () => {
    await page.goto(`${server.url}/tables.html`);
    const schema = z.array(z.object({ example: z.string(), description: z.string() }));
    expect((await ask("the time input examples", schema))[0]).toEqual({ example: "04:05:06", description: "ISO 8601" });
    expect((await ask("date input", schema))[0]).toEqual({ example: "1999-01-08", description: "ISO 8601" });
    expect(await ask("examples of time zone input", schema)).toEqual([{ example: "PST", description: "Pacific Standard Time" }]);
    // Headers decide first: only one table has Size and Bytes (a first row of <th>, no <thead>).
    expect(await ask("sizes", z.array(z.object({ size: z.string(), bytes: z.number().int() })))).toEqual([
      { size: "small", bytes: 2 },
      { size: "large", bytes: 8 },
    ]);
  });
});

describe("ASK without a schema", () => {
  it("answers the title, the URL, the main heading, a labelled value, the main text when asked for it, and nothing it does not name", async () => {
    await page.goto(`${server.url}/data.html`);
    const text = (question: string) => interpreter.ask({ page, question, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
    await expect(text("What is the page title?")).resolves.toBe("Order #1042 – Shop");
    await expect(text("current URL")).resolves.toBe(`${server.url}/data.html`);
    await expect(text("the main heading")).resolves.toBe("Order #1042");
    await expect(text("What is the tracking number?")).resolves.toBe("ZX-99-1234");
    // A question that names nothing the page shows is not answered with the whole page (issue 31).
    await expect(text("Summarise the order")).rejects.toMatchObject({ code: "WF_ANSWER_NOT_FOUND" });
    const main = (await text("the page text")) as string;
    expect(main).toContain("Order #1042");
    expect(main).toContain("Two-year warranty");
    expect(main).not.toContain("Orders"); // the nav is outside <main>
  });
});

describe("ASK on HTML sent as currentDom", () => {
  it("reads a page the server set from HTML", async () => {
    const scratch = await context.newPage();
    await scratch.setContent(`<title>Scratch</title><table><tr><th>Name</th><th>Age</th></tr><tr><td>Ada</td><td>36</td></tr></table>`);
    const answer = await interpreter.ask({
      page: scratch,
      question: "people",
      schema: normalizeStepSchema(toResponseFormat(z.array(z.object({ name: z.string(), age: z.number() })), "people") as unknown as Record<string, unknown>),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      secrets: [],
      report: {},
    });
    expect(answer).toEqual({ value: [{ name: "Ada", age: 36 }] });
    await scratch.close();
  });
});
