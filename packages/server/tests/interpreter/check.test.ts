/**
 * Checks in the grammar's forms, with no model, on a messy page in a real Chromium: each form that
 * holds passes with its evidence, each that does not fails `WF_CHECK_FAILED` with the reason and
 * what was seen; a statement in no form is `WF_INSTRUCTION_NOT_UNDERSTOOD`; a check retries until
 * the page shows what it says.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { parseCheck } from "../../src/interpreter/check/index.js";
import type { CheckContext } from "../../src/interpreter/index.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";
import { launchBrowser, rejection } from "./_setup.js";

const interpreter = createDeterministicInterpreter();
let browser: Browser;
let server: StaticServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startStaticServer(fileURLToPath(new URL("../fixtures/check/", import.meta.url)));
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function check(statement: string, checkTimeoutMs = 0): CheckContext {
  return { page, statement, checkTimeoutMs, timeoutMs: 15_000, signal: new AbortController().signal, secrets: [], report: {} };
}

describe("grammar forms on the orders page", () => {
  beforeEach(async () => {
    if (!page.url().endsWith("/orders.html")) await page.goto(`${server.url}/orders.html`);
  });

  it.each([
    ['the page shows "Order #1042 placed"', /Order #1042 placed/],
    ['the page does not show "Session expired"', /closest text/],
    ['"Delete" is visible', /button "Delete"/],
    ['"Session expired" is not visible', /no (visible )?element/],
    ['the URL contains "/orders.html"', /URL: http:\/\/127\.0\.0\.1/],
    ['the title is "Orders — Acme Shop"', /title: "Orders — Acme Shop"/],
    ['the "Terms" checkbox is checked', /checkbox "Terms" is checked/],
    ['the "Newsletter" checkbox is not checked', /checkbox "Newsletter" is not checked/],
    ['the "Email" field is "ada@example.com"', /= "ada@example.com"/],
    ['the "Country" field is "France"', /"France" \(value "fr"\)/],
    ['the "Coupon" field is empty', /= ""/],
    ['"Save draft" is enabled', /is enabled/],
    ['the "Pay" button is disabled', /button "Pay" is disabled/],
    ['there are 2 "Pending" rows', /2 visible: "Ada Pending/],
    ['there are 3 rows', /3 visible/],
    ['there are 3 "Edit" buttons', /3 visible/],
    ['there are 2 buttons in the "Ada" row', /2 visible: "Edit", "Delete"/],
    ['there are 2 items', /"Free shipping over 50 €"/],
    ['there are 3 links', /"Orders", "Customers", "Settings"/],
    ['the page shows "This cannot be undone" in the "Delete order" dialog', /This cannot be undone/],
    ['"Confirm" is visible in the "Delete order" dialog', /button "Confirm" in the "Delete order" dialog is visible/],
    ['"Delete" is visible in the "Ada" row', /button "Delete" in the "Ada" row/],
    ['"Delete" is not visible in the "Grace" row', /no element matches/],
  ])("%s holds", async (statement, evidence) => {
    expect(parseCheck(statement), statement).toBeDefined();
    const result = await interpreter.check!(check(statement));
    expect(result).toMatchObject({ holds: true, interpreter: "grammar", attempts: 1 });
    expect(result.evidence).toMatch(evidence);
  });

  it.each([
    ['the page shows "order #1042 placed"', /does not show "order #1042 placed"/, /closest text on the page: "Order #1042 placed"/],
    ['"Session expired" is visible', /"Session expired" is not visible/, /only hidden ones/],
    ['the URL contains "/checkout"', /does not contain "\/checkout"/, /URL: /],
    ['the title is "Orders"', /does not equal "Orders"/, /title: "Orders — Acme Shop"/],
    ['the "Newsletter" checkbox is checked', /checkbox "Newsletter" is not checked/, /is not checked/],
    ['the "Email" field is "grace@example.com"', /is not "grace@example.com"/, /= "ada@example.com"/],
    ['the "Email" field is empty', /is not empty/, /= "ada@example.com"/],
    ['"Pay" is enabled', /button "Pay" is disabled/, /is disabled/],
    ['there are 3 "Pending" rows', /there are 2 visible "Pending" rows, not 3/, /"Ada Pending/],
    ['the page shows "Confirm" in the "Settings" dialog', /does not show "Confirm" in the "Settings" dialog/, /outside it/],
  ])("%s fails WF_CHECK_FAILED with the reason and what was seen", async (statement, reason, evidence) => {
    const error = await rejection(interpreter.check!(check(statement)));
    expect(error.code).toBe("WF_CHECK_FAILED");
    expect(error.details.reason).toMatch(reason);
    expect(error.details.evidence).toMatch(evidence);
    expect(error.message).toContain(JSON.stringify(statement));
    expect(error.message).toContain("Seen:");
  });

  it("a statement in no grammar form is not understood without a model, and the message lists the forms", async () => {
    const error = await rejection(interpreter.check!(check("the cart looks right")));
    expect(error.code).toBe("WF_INSTRUCTION_NOT_UNDERSTOOD");
    expect(error.message).toContain('the page shows "Order placed"');
    expect(error.message).toContain("needs a model");
    // An unquoted target is no grammar form either (it would be a guess at a field named "cart total").
    expect(parseCheck('the cart total is "$42"')).toBeUndefined();
  });

  it("fails once its time is up, having evaluated more than once", async () => {
    const error = await rejection(interpreter.check!(check('the page shows "Refunded"', 600)));
    expect(error.code).toBe("WF_CHECK_FAILED");
    expect(error.message).toMatch(/within 600 ms \(\d+ evaluations\)/);
    expect(error.details.attempts).toBeGreaterThan(1);
  });
});

describe("retry until true", () => {
  it("passes once the receipt appears, about a second after load", async () => {
    await page.goto(`${server.url}/late.html`);
    const result = await interpreter.check!(check('the page shows "Receipt #77 ready"', 5_000));
    expect(result.holds).toBe(true);
    expect(result.attempts).toBeGreaterThan(1);
    expect(result.evidence).toContain("Receipt #77 ready");
  });

  it('"Loading…" is not visible, once it has gone', async () => {
    await page.goto(`${server.url}/late.html`);
    const result = await interpreter.check!(check('"Loading…" is not visible', 5_000));
    expect(result.holds).toBe(true);
    expect(result.attempts).toBeGreaterThan(1);
  });
});
