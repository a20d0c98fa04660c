import { expect, test } from "@playwright/test";

test("todo-delete", async ({ page }) => {
  await page.goto("/model/todo.html");
  await page.getByRole("button", { name: "Delete Walk the dog" }).click();
  await expect(page.getByText("Walk the dog")).toBeHidden();
  await expect(page.getByText("4 items left")).toBeVisible();
});
