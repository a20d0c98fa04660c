/**
 * ACT on an app-shaped page (issue 9): negative answers that name the right thing and come as soon
 * as the page is stable, loose text, twins, scopes, labels by proximity, sentences people write.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createDeterministicInterpreter, type InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { launchBrowser, rejection, serveFixtures, step } from "./_setup.js";

let browser: Browser;
let server: StaticServer;
let context: BrowserContext;
let page: Page;
// A find timeout far longer than any step here: a not-found must come from the page being stable.
const interpreter = createDeterministicInterpreter({ findTimeoutMs: 60_000 });

function act(instruction: string) {
  return interpreter.act(step(page, instruction, 20_000));
}
function failure(instruction: string): Promise<InterpreterError> {
  return rejection(act(instruction));
}
const log = async () => (await page.locator("#log").textContent()) ?? "";

beforeAll(async () => {
  browser = await launchBrowser();
  server = await serveFixtures();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  await page.goto(`${server.url}/app.html`);
});
afterEach(async () => {
  await context.close();
});

describe("negative answers name the right thing, as soon as the page is stable", () => {
  it("a missing option of a <select> lists the options, not 'not found'", async () => {
    const error = await failure('select "Huge" from "Size"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('has no option "Huge"');
    expect(error.message).toContain('Options: "Small", "Medium", "Large"');
    expect(error.details.candidates?.map((c) => c.name)).toEqual(["Small", "Medium", "Large"]);
  });

  it("a missing option of a custom dropdown lists what it shows once open", async () => {
    await act('select "Green" from "Colour"');
    expect(await log()).toContain("colour green");
    await page.reload();
    const error = await failure('select "Blue" from "Colour"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('has no option "Blue"');
    expect(error.message).toContain('Options: "Red", "Green"');
  });

  it("a target that is not there fails once the page is stable, not after the find timeout", async () => {
    // The step has 20 s and the find timeout is 60 s: only the settled page can end the search.
    const error = await failure('click "Frobnicate"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
  });

  it("still waits for a target an app renders after a fetch", async () => {
    await page.goto(`${server.url}/late.html`);
    expect((await act('click "Continue"')).target).toBe('button "Continue"');
  });
});
