/** Shared set-up of the interpreter tests: one Chromium per test file, the fixtures served from disk. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
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

/** A call a step sent to the page, as Playwright's trace records it: `method` (`evaluateExpression`, `queryCount`…) and its `expression`, if any. */
export interface PageCall {
  method: string;
  expression?: string;
}

/**
 * The calls `run` sends to the page (evaluations, queries, counts), as the context's trace records
 * them: counted, where a test would otherwise time a look. A wait for a load state the page has
 * reached is answered without the page (`__waitInfo__`), and is left out.
 */
export async function pageCalls(context: BrowserContext, run: () => Promise<unknown>): Promise<PageCall[]> {
  const dir = await mkdtemp(join(tmpdir(), "wf-page-calls-"));
  try {
    await context.tracing.start({ snapshots: false, screenshots: false });
    try {
      await run();
    } finally {
      await context.tracing.stop({ path: join(dir, "trace.zip") });
    }
    const files = unzipSync(await readFile(join(dir, "trace.zip")));
    const events = new TextDecoder()
      .decode(files["trace.trace"]!)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; class?: string; method?: string; params?: { expression?: string } });
    return events
      .filter((e) => e.type === "before" && e.class === "Frame" && !e.method!.startsWith("__"))
      .map((e) => ({ method: e.method!, ...(typeof e.params?.expression === "string" ? { expression: e.params.expression } : {}) }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
