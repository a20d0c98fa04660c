import { expect, test } from "@playwright/test";
import { signIn } from "./_sign-in.js";

test("ta-signin", async ({ page }) => {
  await signIn(page);
  await expect(page.getByText("Signed in as admin@example.com")).toBeVisible();
  await expect(page).toHaveTitle("Team admin · members");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Remove" })).toHaveCount(2);
});
