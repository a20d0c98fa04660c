import { expect, test } from "@playwright/test";
import { LIMITS } from "../expected.js";

test("pg-limits-read", async ({ page }) => {
  await page.goto("/pg/limits.html");
  const rows = page.locator("table", { has: page.getByRole("columnheader", { name: "Upper Limit" }) }).locator("tbody tr");
  const limits = await rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const [item, upperLimit] = [...tr.querySelectorAll("td")].map((td) => td.textContent!.replace(/\s+/g, " ").trim());
      return { item, upperLimit };
    }),
  );
  expect(limits).toEqual(LIMITS);
});
