/**
 * A match found among several roles (`click the second "Next"` on a pager of links and buttons) is
 * acted on through the one role's locator when Playwright's role for every match is certain, and
 * through the union of roles otherwise (an element with an explicit `role`): the element clicked is
 * the one the ordinal names, either way, and the step reports it as before.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { step, usePages } from "./_setup.js";

let server: StaticServer;
let page: Page;
const interpreter = createDeterministicInterpreter({ findTimeoutMs: 300 });

usePages((test) => ({ server, page } = test));

async function clicked(instruction: string): Promise<string> {
  await page.locator("#clicked").evaluate((el) => (el.textContent = ""));
  const result = await interpreter.act(step(page, instruction));
  expect(result.action).toBe("click");
  return (await page.locator("#clicked").textContent()) ?? "";
}

describe("an ordinal among matches of several roles", () => {
  it("clicks the element the ordinal names when every match has a plain HTML role", async () => {
    await page.goto(`${server.url}/pager-roles.html`);
    expect(await clicked('click the first "Next"')).toBe("top link;");
    expect(await clicked('click the second "Next"')).toBe("top button;");
    expect(await clicked('click the third "Next"')).toBe("bottom input;");
    expect(await clicked('click the fourth "Next"')).toBe("bottom link;");
    expect(await clicked('click the last "Next"')).toBe("bottom link;");
    expect(await clicked('click the second "Next" button')).toBe("bottom input;");
    const result = await interpreter.act(step(page, 'click the second "Next"'));
    expect(result).toMatchObject({ target: 'button "Next"', element: { role: "button", name: "Next" } });
  });

  it("clicks the element the ordinal names when one match has an explicit role", async () => {
    await page.goto(`${server.url}/pager-roles.html?custom`);
    expect(await clicked('click the second "Next"')).toBe("top button;");
    expect(await clicked('click the fourth "Next"')).toBe("bottom link;");
    expect(await clicked('click the fifth "Next"')).toBe("custom button;");
    expect(await clicked('click the last "Next" button')).toBe("custom button;");
  });
});
