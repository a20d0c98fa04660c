import { expect, test } from "@playwright/test";
import { ACCOUNT } from "../expected.js";

test("orders-account", async ({ page }) => {
  await page.goto("/model/read-orders.html");
  const value = (label: string) => page.locator(".summary .row", { hasText: label }).locator(".v").innerText();
  const manager = await value("Account manager:");
  const balance = Number((await value("Balance due:")).replace(/[$,]/g, ""));
  expect({ manager, balance }).toEqual(ACCOUNT);
});
