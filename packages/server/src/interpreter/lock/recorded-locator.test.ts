import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../../../tests/interpreter/_setup.js";
import { recordedFrames, recordedLocator } from "./recorded-locator.js";

describe("recordedLocator", { timeout: 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setContent(`<label>Email <input name="email"></label><button data-testid="go">Sign 'in'</button><button>Sign 'in'</button><a href="#">It's "here"</a><p>hello</p>`);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("reads back what locator.normalize() writes, to the same element", async () => {
    for (const css of ["input[name=email]", "[data-testid=go]", "button >> nth=1", "a", "p"]) {
      const written = (await page.locator(css).normalize()).toString();
      const read = recordedLocator(page, written);
      expect(read, written).toBeDefined();
      expect(await read!.count(), written).toBe(1);
      expect(await read!.evaluate((el) => el.outerHTML), written).toBe(await page.locator(css).evaluate((el) => el.outerHTML));
    }
  });

  it("reads options, chains and double quotes", async () => {
    expect(await recordedLocator(page, `getByRole("button", { name: "Sign 'in'", exact: true }).first()`)!.getAttribute("data-testid")).toBe("go");
    expect(await recordedLocator(page, "locator('button').last()")!.getAttribute("data-testid")).toBeNull();
  });

  it("reads text filters (a nameless control identified by its list item)", async () => {
    await page.setContent(`<ul><li><input type="checkbox" value="a"> Buy milk</li><li><input type="checkbox" value="b"> Pay rent</li></ul>`);
    const written = (await page.locator("li >> nth=1 >> input").normalize()).toString();
    expect(written).toContain(".filter(");
    expect(await recordedLocator(page, written)!.getAttribute("value")).toBe("b");
    expect(await recordedLocator(page, "getByRole('listitem').filter({ hasNotText: 'milk' }).getByRole('checkbox')")!.getAttribute("value")).toBe("b");
    expect(recordedLocator(page, "getByRole('listitem').filter({ has: getByText('x') })")).toBeUndefined();
    expect(recordedLocator(page, "filter({ hasText: 'x' })")).toBeUndefined();
  });

  it("reads back the frame forms normalize() writes for an element inside an iframe, nested ones too", async () => {
    const framed = await browser.newPage();
    await framed.setContent(`<button>Pay</button><iframe title="Payment" srcdoc="<button>Pay</button><iframe name='promo' srcdoc='<label>Code <input></label>'></iframe>"></iframe>`);
    const outer = framed.locator("iframe").contentFrame();
    await outer.locator("iframe").contentFrame().getByLabel("Code").waitFor();
    for (const loc of [outer.getByRole("button"), outer.locator("iframe").contentFrame().getByLabel("Code")]) {
      const written = (await loc.normalize()).toString();
      expect(written).toContain(".contentFrame()");
      const read = recordedLocator(framed, written);
      expect(read, written).toBeDefined();
      expect(await read!.count(), written).toBe(1);
      expect(await read!.evaluate((el) => el.outerHTML), written).toBe(await loc.evaluate((el) => el.outerHTML));
    }
    expect(await recordedLocator(framed, `frameLocator('iframe[title="Payment"]').getByRole('button', { name: 'Pay' })`)!.count()).toBe(1);
    expect(recordedFrames(`locator('iframe[title="Payment"]').contentFrame().locator('iframe[name="promo"]').contentFrame().getByLabel('Code')`)).toEqual(["Payment", "promo"]);
    expect(recordedFrames(`locator('#checkout').contentFrame().locator('iframe').nth(1).contentFrame().getByRole('button')`)).toEqual(["checkout", ""]);
    expect(recordedFrames("getByRole('button', { name: 'Pay' })")).toEqual([]);
    // A chain that ends on a frame names no element.
    expect(recordedLocator(framed, `locator('iframe').contentFrame()`)).toBeUndefined();
    await framed.close();
  });

  it("gives undefined for anything it does not read, never a guess", () => {
    for (const text of ["getByText(/hello/)", "page.evaluate('x')", "getByRole('button', { name: `${x}` })", "nth(1)", "getByRole('button'", "", "getByTestId('a') trailing", "frameLocator('iframe')"]) {
      expect(recordedLocator(page, text), text).toBeUndefined();
    }
  });
});
