import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createDeterministicInterpreter, InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { FIXTURES, launchBrowser, serveFixtures, step } from "./_setup.js";

let browser: Browser;
let server: StaticServer;
let context: BrowserContext;
let page: Page;
const interpreter = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 300 });

async function act(instruction: string, timeoutMs?: number) {
  return interpreter.act(step(page, instruction, timeoutMs));
}

async function failure(instruction: string): Promise<InterpreterError> {
  const error = await act(instruction).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InterpreterError);
  return error as InterpreterError;
}

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
  await page.goto(`${server.url}/form.html`);
});
afterEach(async () => {
  await context.close();
});

describe("navigation", () => {
  it("goes to a URL, follows a link, goes back and forward, reloads", async () => {
    const opened = await act(`go to "${server.url}/nav-a.html"`);
    expect(opened).toMatchObject({ action: "goto", url: `${server.url}/nav-a.html` });
    await expect(page.title()).resolves.toBe("Page A");

    await act('click "Go to page B"');
    expect(page.url()).toBe(`${server.url}/nav-b.html`);

    expect((await act("go back")).url).toBe(`${server.url}/nav-a.html`);
    expect((await act("Go forward.")).url).toBe(`${server.url}/nav-b.html`);
    await act("navigate to /nav-a.html");
    const loads = async () => Number((await page.locator("#loads").textContent())?.match(/\d+/)?.[0]);
    const before = await loads();
    expect((await act("refresh the page")).action).toBe("reload");
    expect(await loads()).toBe(before + 1);
  });

  it("fails with WF_NAVIGATION_FAILED on an unreachable URL and on back without history", async () => {
    const unreachable = await failure('open "http://127.0.0.1:1/nowhere"');
    expect(unreachable.code).toBe("WF_NAVIGATION_FAILED");
    expect(unreachable.message).toContain("http://127.0.0.1:1/nowhere");

    const fresh = await context.newPage();
    const noHistory = await interpreter.act(step(fresh, "go back")).catch((e: unknown) => e as InterpreterError);
    expect(noHistory.code).toBe("WF_NAVIGATION_FAILED");
    expect(noHistory.message).toMatch(/no previous page/);
  });
});
