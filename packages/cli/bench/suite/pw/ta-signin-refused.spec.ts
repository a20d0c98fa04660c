import { expect, test } from "@playwright/test";

test("ta-signin-refused", async ({ page }) => {
  await page.goto("/team/index.html");
  await expect(page).toHaveTitle("Team admin · sign in");
  await page.getByLabel("Email").fill("admin@example.com");
  await page.getByLabel("Password").fill("wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong email or password.")).toBeVisible();
  await expect(page).toHaveTitle("Team admin · sign in");
});
