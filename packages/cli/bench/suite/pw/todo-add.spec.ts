import { expect, test } from "@playwright/test";

test("todo-add", async ({ page }) => {
  await page.goto("/model/todo.html");
  await expect(page.getByText("5 items left")).toBeVisible();
  await page.getByLabel("New to-do").fill("Buy bread");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Buy bread")).toBeVisible();
  await expect(page.getByText("6 items left")).toBeVisible();
  await expect(page.getByLabel("New to-do")).toHaveValue("");
});
