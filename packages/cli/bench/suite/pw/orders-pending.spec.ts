import { expect, test } from "@playwright/test";
import { PENDING_ORDERS } from "../expected.js";

test("orders-pending", async ({ page }) => {
  await page.goto("/model/read-orders.html");
  const rows = page.getByRole("row").filter({ hasText: "Pending" });
  await expect(rows).toHaveCount(PENDING_ORDERS.length);
  const pending = await rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const [order, customer, , total] = [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim());
      return { order, customer, total: Number(total!.replace(/[$,]/g, "")) };
    }),
  );
  expect(pending).toEqual(PENDING_ORDERS);
});
