import { expect, test } from "@playwright/test";

test("pg-limits-nav", async ({ page }) => {
  await page.goto("/pg/index.html");
  await page.getByRole("link", { name: "K. PostgreSQL Limits" }).click();
  await expect(page).toHaveTitle("Appendix K. PostgreSQL Limits");
  await expect(page.getByText("Table K.1. PostgreSQL Limitations")).toBeVisible();
});
