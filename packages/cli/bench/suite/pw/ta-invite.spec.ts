import { expect, test } from "@playwright/test";
import { signIn } from "./_sign-in.js";

test("ta-invite", async ({ page }) => {
  await signIn(page);
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByLabel("Role").selectOption("Editor");
  await page.getByLabel("Subscribe to the newsletter").check();
  await expect(page.getByLabel("Role")).toHaveValue("Editor");
  await expect(page.getByLabel("Subscribe to the newsletter")).toBeChecked();
  await page.getByRole("button", { name: "Send invite" }).click();
  await expect(page.getByText("Invite sent to Grace Hopper.")).toBeVisible();
  await expect(page.getByRole("row", { name: "Grace Hopper" })).toHaveCount(1);
  await expect(page.getByLabel("Name")).toHaveValue("");
  await expect(page.getByText("3 members")).toBeVisible();
});
