import { expect, test } from "@playwright/test";
import { MEMBERS } from "../expected.js";
import { signIn } from "./_sign-in.js";

test("ta-members", async ({ page }) => {
  await signIn(page);
  const rows = page.locator("#members tbody tr");
  await expect(rows).toHaveCount(MEMBERS.length);
  const members = await rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const [Name, Role, Newsletter] = [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim());
      return { Name, Role, Newsletter };
    }),
  );
  expect(members).toEqual(MEMBERS);
});
