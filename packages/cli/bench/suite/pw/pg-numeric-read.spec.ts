import { expect, test } from "@playwright/test";
import { BIGINT_SIZE } from "../expected.js";

test("pg-numeric-read", async ({ page }) => {
  await page.goto("/pg/datatype-numeric.html");
  const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "bigint", exact: true }) }).first();
  await expect(row.getByRole("cell").nth(1)).toHaveText(BIGINT_SIZE);
});
