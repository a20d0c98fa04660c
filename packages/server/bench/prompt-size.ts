/**
 * Script (not a test): for each page the examples and tests use, the size of the prompt an ASK and
 * an ACT would send to the model (characters and estimated tokens, characters ÷ 4), whether the
 * page was reduced to fit the budget, and the size of the page view (the ASK's) beside Playwright's
 * ai-mode aria snapshot of the same page. No model is called.
 *
 * Run: `pnpm --filter @wf/server bench:prompt` (`WF_MODEL_MAX_PROMPT_TOKENS=6000` for another budget).
 */
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../src/browser/host.js";
import { estimateTokens, readPageView } from "../src/interpreter/index.js";
import { ACT_SYSTEM_PROMPT, ASK_SYSTEM_PROMPT, DEFAULT_MAX_PROMPT_TOKENS } from "../src/interpreter/model/index.js";

const BUDGET = Number(process.env.WF_MODEL_MAX_PROMPT_TOKENS ?? DEFAULT_MAX_PROMPT_TOKENS);
const DOCS = "/usr/share/doc/postgresql-doc-15/html";
const FIXTURES = fileURLToPath(new URL("../tests/fixtures/", import.meta.url));

/** A question and an instruction per page, as a user might write them. */
const ASK = "List every row of the main table on this page";
const ACT = "open the next page";

function pages(): string[] {
  const docs = ["datatype-numeric.html", "limits.html", "glossary.html", "index.html", "errcodes-appendix.html"].map((f) => join(DOCS, f)).filter((f) => existsSync(f));
  const fixtures = ["interpreter", "server", "model"].flatMap((dir) =>
    readdirSync(join(FIXTURES, dir))
      .filter((f) => f.endsWith(".html"))
      .map((f) => join(FIXTURES, dir, f)),
  );
  return [...docs, ...fixtures];
}

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
  const page = await browser.newPage();
  const docsRatios: number[] = [];
  console.log(`prompt budget: ${BUDGET} estimated tokens (WF_MODEL_MAX_PROMPT_TOKENS); tokens are estimates (characters ÷ 4)\n`);
  console.log(["page", "ASK chars", "ASK tokens", "ACT chars", "ACT tokens", "reduced", "page view tokens", "ai snapshot tokens", "view ÷ snapshot"].join("\t"));
  for (const file of pages()) {
    await page.goto(pathToFileURL(file).href);
    const row: string[] = [file.replace(DOCS + "/", "pg-docs/").replace(FIXTURES, "fixtures/")];
    let reduced = false;
    let viewTokens = 0;
    for (const [purpose, system, text] of [
      ["ask", ASK_SYSTEM_PROMPT, `Question: ${ASK}`],
      ["act", ACT_SYSTEM_PROMPT, `Instruction: ${ACT}`],
    ] as const) {
      const fixed = system + text;
      const view = await readPageView(page, { purpose, query: text, budgetTokens: Math.max(200, BUDGET - estimateTokens(fixed) - 300), secrets: [] }, () => 10_000);
      const prompt = `${system}\n${text}\n\nThe page:\n${view.text}`;
      row.push(String(prompt.length), String(estimateTokens(prompt)));
      if (purpose === "ask") viewTokens = estimateTokens(view.text);
      reduced ||= view.reduced;
    }
    const snapshot = await page.ariaSnapshot({ mode: "ai" });
    row.push(reduced ? "yes" : "no", String(viewTokens), String(estimateTokens(snapshot)), (viewTokens / estimateTokens(snapshot)).toFixed(2));
    console.log(row.join("\t"));
    if (file.startsWith(DOCS)) docsRatios.push(viewTokens / estimateTokens(snapshot));
  }
  await browser.close();
  if (docsRatios.length) console.log(`\ndocumentation pages: page view ÷ ai snapshot ${Math.min(...docsRatios).toFixed(3)}–${Math.max(...docsRatios).toFixed(3)} (goal ≤ 0.5)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
