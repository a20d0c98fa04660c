/**
 * Build step after tsdown (`pnpm build`, `prepack`): renders `wf --help` with yargs, from the
 * sources the build was made of, at each of `CACHED_HELP_WIDTHS`, and writes the texts to
 * `dist/help-table.js` for the installed launcher's fast path (`src/cached-help.ts`).
 * Run: node --import tsx scripts/write-help.ts
 */
import { writeFileSync } from "node:fs";
import { CACHED_HELP_WIDTHS } from "../src/cached-help.js";
import { runCli } from "../src/cli.js";

// The cache holds English: render with yargs's default locale, whatever this shell's.
for (const name of ["LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"]) delete process.env[name];

const table: Record<string, string> = {};
for (const columns of CACHED_HELP_WIDTHS) {
  let text = "";
  const code = await runCli(["--help"], { stdout: { columns, write: (chunk) => (text += chunk) }, env: {} });
  if (code !== 0 || !text.includes("wf run")) throw new Error(`wf --help at ${columns} columns exited ${code}: ${text}`);
  table[String(columns)] = text;
}
const out = new URL("../dist/help-table.js", import.meta.url);
writeFileSync(out, `// Written by scripts/write-help.ts at build time: wf --help by wrap width (see src/cached-help.ts).\nexport default ${JSON.stringify(table, null, 2)};\n`);
console.log(`wrote ${out.pathname} (${CACHED_HELP_WIDTHS.join(", ")} columns)`);
