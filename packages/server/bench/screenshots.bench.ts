/**
 * Benchmark (not a test): ways of capturing the page after a step, side by side in one run on the
 * same page (the bench form), interleaved round-robin so a loaded machine weighs on all alike.
 * Prints, for each way, the median and p90 capture time and the image size, next to the median
 * time of the action itself (what a plain Playwright script pays per step).
 *
 * Run: `pnpm --filter @wf/server bench:screenshots` (`WF_BENCH_ROUNDS=100` for more rounds).
 */
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { chromium, type Page } from "playwright-core";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { MASK_COLOR, MASKED_SELECTOR } from "../src/sessions/secrets.js";

const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 40);

type Capture = (page: Page, cdp: CdpSession) => Promise<Buffer>;
type CdpSession = Awaited<ReturnType<ReturnType<Page["context"]>["newCDPSession"]>>;

const viaCdp =
  (format: "png" | "jpeg", quality?: number, scale?: number): Capture =>
  async (page, cdp) => {
    const size = page.viewportSize()!;
    const clip = scale !== undefined ? { clip: { x: 0, y: 0, width: size.width, height: size.height, scale } } : {};
    const { data } = await cdp.send("Page.captureScreenshot", { format, ...(quality !== undefined ? { quality } : {}), ...clip, optimizeForSpeed: true });
    return Buffer.from(data, "base64");
  };

const WAYS: Record<string, Capture> = {
  "png (before)": (page) => page.screenshot({ type: "png" }),
  "png, caret initial": (page) => page.screenshot({ type: "png", caret: "initial" }),
  "png, animations disabled": (page) => page.screenshot({ type: "png", animations: "disabled" }),
  "jpeg q80": (page) => page.screenshot({ type: "jpeg", quality: 80 }),
  "jpeg q60, caret initial": (page) => page.screenshot({ type: "jpeg", quality: 60, caret: "initial" }),
  "jpeg q60, scale css, caret initial": (page) => page.screenshot({ type: "jpeg", quality: 60, scale: "css", caret: "initial" }),
  "cdp png, optimizeForSpeed": viaCdp("png"),
  "cdp jpeg q80, optimizeForSpeed": viaCdp("jpeg", 80),
  "cdp jpeg q60, optimizeForSpeed": viaCdp("jpeg", 60),
  "cdp jpeg q60, scale 0.5, optimizeForSpeed": viaCdp("jpeg", 60, 0.5),
  "cdp png, scale 0.5, optimizeForSpeed": viaCdp("png", undefined, 0.5),
  // What wf does now (sessions/secrets.ts): look for fields to mask, then CDP when there are none…
  "wf: mask check, none found, cdp png": async (page, cdp) => {
    if ((await page.locator(MASKED_SELECTOR).count()) > 0) throw new Error("the bench form has no field to mask");
    return viaCdp("png")(page, cdp);
  },
  // …or page.screenshot({ mask }) over the field a secret was typed into.
  "wf: mask check, 1 field masked, png": async (page) => {
    await page.locator("#item").evaluate((el) => el.setAttribute("data-wf-secret", ""));
    const mask = page.locator(MASKED_SELECTOR);
    await mask.count();
    const png = await page.screenshot({ type: "png", mask: [mask], maskColor: MASK_COLOR });
    await page.locator("#item").evaluate((el) => el.removeAttribute("data-wf-secret"));
    return png;
  },
};

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/server/", import.meta.url)));
  const browser = await chromium.launch({ executablePath: process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium" });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await page.goto(`${pages.url}/form.html`);
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(WAYS).map((k) => [k, []]));
    const sizes: Record<string, number[]> = Object.fromEntries(Object.keys(WAYS).map((k) => [k, []]));
    const actions: number[] = [];
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, capture] of Object.entries(WAYS)) {
        n += 1;
        const a = performance.now();
        if (n % 2) await page.getByLabel("Item name").fill(`item ${n}`);
        else await page.getByRole("button", { name: "Add item" }).click();
        actions.push(performance.now() - a);
        const start = performance.now();
        const image = await capture(page, cdp);
        times[name]!.push(performance.now() - start);
        sizes[name]!.push(image.length);
      }
    }
    const action = quantile(actions, 0.5);
    const lines = [`${ROUNDS} rounds on form.html (viewport 1280×720); the action itself: median ${action.toFixed(1)} ms`, ""];
    lines.push(`${"way".padEnd(44)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"KiB".padStart(7)}  (action + capture) / action`);
    for (const name of Object.keys(WAYS)) {
      const m = quantile(times[name]!, 0.5);
      lines.push(
        `${name.padEnd(44)} ${`${m.toFixed(1)} ms`.padStart(8)} ${`${quantile(times[name]!, 0.9).toFixed(1)} ms`.padStart(8)} ${(quantile(sizes[name]!, 0.5) / 1024).toFixed(1).padStart(7)}  ${((action + m) / action).toFixed(2)}×`,
      );
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await browser.close();
    await pages.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
