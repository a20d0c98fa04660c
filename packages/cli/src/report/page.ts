/**
 * The fixed files of the HTML report page, shipped in this package (`assets/report/`): `index.html`
 * (markup and style) and `report.js` (renders `window.wfReport`, which the run's `report-data.js`
 * sets). They are copied into each report folder as they are; the run's data never enters them.
 */
import { existsSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The page's files, copied into every report folder. */
export const REPORT_PAGE_FILES = ["index.html", "report.js"] as const;

/**
 * Where the page's files are: `assets/report/` beside the built module (the build copies them to
 * `dist/assets/report/`), else the package's own `assets/report/` (running from `src/report/`).
 * @throws Error when neither holds `index.html`: the installed package lacks its files.
 */
export function reportAssetDir(moduleUrl: string = import.meta.url): string {
  const candidates = [new URL("./assets/report/", moduleUrl), new URL("../../assets/report/", moduleUrl)].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(join(dir, "index.html")));
  if (!found) throw new Error(`The HTML report's page files are missing (looked for index.html in ${candidates.join(" and ")}): reinstall @wf/cli.`);
  return found;
}

/** Copies the page's files into the report folder `dir` (which exists). */
export async function writeReportPage(dir: string): Promise<void> {
  const from = reportAssetDir();
  for (const name of REPORT_PAGE_FILES) await copyFile(join(from, name), join(dir, name));
}
