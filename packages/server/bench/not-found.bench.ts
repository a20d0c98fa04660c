/**
 * Benchmark (not a test): how long a not-found takes on a page that is loaded and stable. For each
 * of a few pages (the fixtures shaped after real sites, and the PostgreSQL docs when installed),
 * clicks a target that is not there N times (default 5) with the interpreter's default find
 * timeout (5 000 ms) and prints the median time to WF_ELEMENT_NOT_FOUND, per page and overall:
 * "fresh" right after the page loaded (the DOM-quiet period starts with the first look), and
 * "settled" on a page already looked at.
 *
 * Run: `node --import tsx bench/not-found.bench.ts` from packages/server (`WF_BENCH_RUNS=10` for more runs).
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../src/browser/host.js";
import { createDeterministicInterpreter, isInterpreterError } from "../src/interpreter/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { median } from "./_service.js";

const RUNS = Number(process.env.WF_BENCH_RUNS ?? 5);
const PG = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";


async function main(): Promise<void> {
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/interpreter/", import.meta.url)));
  const browser = await chromium.launch({ executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
  const interpreter = createDeterministicInterpreter({ allowFileUrls: true });
  const urls = ["app.html", "constants.html", "search-results.html", "data.html"].map((p) => `${pages.url}/${p}`);
  if (existsSync(PG)) urls.push(pathToFileURL(PG).href);
  const all: number[] = [];
  const allSettled: number[] = [];
  try {
    const page = await browser.newPage();
    const notFound = async (url: string): Promise<number> => {
      const start = performance.now();
      const outcome = await interpreter
        .act({ page, instruction: 'click "Nothing by this name"', timeoutMs: 30_000, signal: new AbortController().signal, secrets: [], report: {} })
        .then(() => "found?!", (e: unknown) => (isInterpreterError(e) ? e.code : String(e)));
      const ms = performance.now() - start;
      if (outcome !== "WF_ELEMENT_NOT_FOUND") throw new Error(`${url}: expected WF_ELEMENT_NOT_FOUND, got ${outcome}`);
      return ms;
    };
    for (const url of urls) {
      const fresh: number[] = [];
      const settled: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        await page.goto(url, { waitUntil: "load" });
        fresh.push(await notFound(url));
        settled.push(await notFound(url));
      }
      all.push(...fresh);
      allSettled.push(...settled);
      console.log(`${url.split("/").pop()!.padEnd(28)} fresh median ${median(fresh).toFixed(0).padStart(5)} ms, settled median ${median(settled).toFixed(0).padStart(5)} ms over ${RUNS} runs`);
    }
    console.log(`${"all pages".padEnd(28)} fresh median ${median(all).toFixed(0).padStart(5)} ms, settled median ${median(allSettled).toFixed(0).padStart(5)} ms (find timeout 5000 ms)`);
  } finally {
    await browser.close();
    await pages.close();
  }
}

await main();
