import { expect, test } from "@playwright/test";
import { signIn } from "./_sign-in.js";

test("ta-invite-refused", async ({ page }) => {
  await signIn(page);
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByRole("button", { name: "Send invite" }).click();
  await expect(page.getByText("A name and a role are needed.")).toBeVisible();
  await expect(page.getByText("2 members")).toBeVisible();
});
