import { expect, test } from "@playwright/test";
import { signIn } from "./_sign-in.js";

test("ta-remove", async ({ page }) => {
  await signIn(page);
  await page.getByRole("row", { name: "Alan Turing" }).getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove member" });
  await expect(dialog.getByText("Remove Alan Turing from the team?")).toBeVisible();
  await dialog.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByText("Alan Turing was removed.")).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("1 members")).toBeVisible();
});
