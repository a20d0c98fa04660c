import { expect, test } from "@playwright/test";

test("todo-complete", async ({ page }) => {
  await page.goto("/model/todo.html");
  await page.getByRole("checkbox", { name: "Buy milk" }).check();
  await expect(page.getByRole("checkbox", { name: "Buy milk" })).toBeChecked();
  await expect(page.getByText("4 items left")).toBeVisible();
  await page.getByRole("button", { name: "Clear completed" }).click();
  await expect(page.getByText("Buy milk")).toBeHidden();
  await expect(page.getByText("4 items left")).toBeVisible();
});
