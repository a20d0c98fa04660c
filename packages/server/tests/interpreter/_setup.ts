/** Shared set-up of the interpreter tests: one Chromium per test file, the fixtures served from disk. */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { InterpreterError } from "../../src/interpreter/index.js";
import { CHROMIUM_ARGS } from "../../src/browser/host.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/interpreter/", import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_ARGS],
  });
}

export async function serveFixtures(): Promise<StaticServer> {
  return startStaticServer(FIXTURES);
}

/** A context for one step: the page, its time budget and an abort signal that never fires. */
export function step(page: Page, instruction: string, timeoutMs = 10_000) {
  return { page, instruction, timeoutMs, signal: new AbortController().signal, secrets: [], report: {} };
}

/** Awaits a step that must fail and returns its {@link InterpreterError} (the test fails on any other outcome). */
export async function rejection(promise: Promise<unknown>): Promise<InterpreterError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InterpreterError);
  return error as InterpreterError;
}

/** What {@link usePages} hands each test: the fixture server, and a fresh context and page. */
export interface PageTest {
  server: StaticServer;
  context: BrowserContext;
  page: Page;
}

/**
 * Registers the hooks of a file of page tests: one Chromium and one fixture server for the file, a
 * new browser context and page for each test (on `startPage` of the fixtures when given), closed
 * after it. `onPage` receives them before each test.
 */
export function usePages(onPage: (test: PageTest) => void, startPage?: string): void {
  let browser: Browser;
  let server: StaticServer;
  let context: BrowserContext | undefined;
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
    const page = await context.newPage();
    if (startPage) await page.goto(`${server.url}/${startPage}`);
    onPage({ server, context, page });
  });
  afterEach(async () => {
    await context?.close();
  });
}
