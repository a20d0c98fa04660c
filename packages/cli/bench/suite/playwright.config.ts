/**
 * The Playwright Test side of `bench:suite`, set as wf's defaults are: 2 workers, the trace kept
 * only for a failed test (`retain-on-failure`), a screenshot only of a failure, the system
 * Chromium, headless. `SUITE_BASE_URL` (the fixture pages' server) and `SUITE_OUTPUT_DIR` come
 * from the bench.
 */
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./pw",
  workers: 2,
  retries: 0,
  reporter: "dot",
  outputDir: process.env.SUITE_OUTPUT_DIR ?? "test-results",
  use: {
    baseURL: process.env.SUITE_BASE_URL,
    headless: true,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
  },
});
