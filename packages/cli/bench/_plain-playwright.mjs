// The plain playwright-core script `bench:e2e` measures wf against (not a test): what a user would
// write instead of the pg-numeric-types workflow. Launches Chromium with the server's flags, opens
// the page, reads the rows of its first table with $$eval, prints them as JSON and closes.
// Usage: node _plain-playwright.mjs <chromium> <page url> <JSON array of Chromium flags>
import { chromium } from "playwright-core";

const [executablePath, url, flags] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath, args: JSON.parse(flags), headless: true });
const page = await browser.newPage();
await page.goto(url);
const rows = await page.$$eval("table tbody tr", (trs) => trs.map((tr) => Array.from(tr.cells, (cell) => cell.textContent.trim())));
await browser.close();
process.stdout.write(JSON.stringify(rows) + "\n");
