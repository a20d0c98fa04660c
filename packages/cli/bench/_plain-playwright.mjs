// The plain playwright-core script `bench:e2e` measures wf against (not a test): what a user would
// write instead of the pg-numeric-types workflow. Launches Chromium with the server's flags, opens
// the page, reads the rows of its first table with $$eval, prints them as JSON and closes.
// Usage: node _plain-playwright.mjs <chromium> <page url> <JSON array of Chromium flags>
// With WF_TIMING=1 it writes the same `wf timing: <epoch ms> <label>` lines as wf, for the breakdown.
const timing = process.env.WF_TIMING === "1";
const mark = (label) => timing && process.stderr.write(`wf timing: ${(performance.timeOrigin + performance.now()).toFixed(1)} ${label}\n`);
if (timing) process.stderr.write(`wf timing: ${performance.timeOrigin.toFixed(1)} process start\n`);
const { chromium } = await import("playwright-core");
mark("Node started, playwright-core imported");

const [executablePath, url, flags] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath, args: JSON.parse(flags), headless: true });
mark("browser launched");
const page = await browser.newPage();
mark("page opened");
await page.goto(url);
mark("page loaded: goto");
const rows = await page.$$eval("table tbody tr", (trs) => trs.map((tr) => Array.from(tr.cells, (cell) => cell.textContent.trim())));
mark("table read: $$eval");
await browser.close();
mark("browser closed");
process.stdout.write(JSON.stringify(rows) + "\n");
