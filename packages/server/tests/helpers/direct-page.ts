/**
 * The set-up of the tests that drive an interpreter directly (no server): a double of the model
 * provider, a static server for the fixture pages, and one Chromium page.
 */
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "../../src/browser/host.js";
import { startModelDouble, type ModelDouble } from "./model-double.js";
import { startStaticServer, type StaticServer } from "./static-server.js";

/** A running {@link startDirectPage}. */
export interface DirectPage {
  model: ModelDouble;
  pages: StaticServer;
  browser: Browser;
  page: Page;
  /** Closes the browser, the pages and the double. */
  close(): Promise<void>;
}

/** Starts the double, serves `fixtures` (a folder) and opens a page in a new Chromium. */
export async function startDirectPage(fixtures: string): Promise<DirectPage> {
  const model = await startModelDouble();
  const pages = await startStaticServer(fixtures);
  const browser = await chromium.launch({ executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
  const page = await browser.newPage();
  return {
    model,
    pages,
    browser,
    page,
    close: async () => {
      await browser.close();
      await pages.close();
      await model.close();
    },
  };
}
