// Signs in to the team admin app, as the wf workflows' first four steps do.
import type { Page } from "@playwright/test";

export async function signIn(page: Page): Promise<void> {
  await page.goto("/team/index.html");
  await page.getByLabel("Email").fill("admin@example.com");
  await page.getByLabel("Password").fill("correct horse");
  await page.getByRole("button", { name: "Sign in" }).click();
}
