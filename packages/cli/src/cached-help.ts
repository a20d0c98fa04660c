/**
 * `wf --help` without loading yargs: the installed launcher (`bin/wf.js`) prints a text rendered
 * by yargs at build time (`scripts/write-help.ts` writes `dist/help-table.js`), when it is the
 * text yargs would print now. Imports nothing, so printing it costs Node's start and two small
 * modules (issue 14's goal: `wf --help` ≤ 150 ms).
 */

/** Help texts rendered at build time: `wf --help`'s output (with its final newline) by wrap width in columns. */
export type HelpTable = Readonly<Record<string, string>>;

/**
 * Widths the build renders the help at: 100 (what `wf` wraps to off a terminal), 110 (the widest:
 * terminals of 110 columns and more) and 80 (a default terminal). Other widths go through yargs.
 */
export const CACHED_HELP_WIDTHS = [80, 100, 110] as const;

/**
 * The width `wf`'s help wraps to: the terminal's columns up to 110, 100 off a terminal. `cli.ts`
 * passes this to yargs's `.wrap()`.
 */
export function helpWidth(columns: number | undefined): number {
  return Math.min(110, columns ?? 100);
}

/**
 * The cached `wf --help` text for this invocation, or undefined when yargs must render it: the
 * arguments are not exactly `--help` or `-h`; the width was not rendered at build time; yargs would
 * translate its headings (it follows `LC_ALL`, `LC_MESSAGES`, `LANG`, `LANGUAGE`, in that order, and
 * has no English-only default: the cache holds English only, so any locale other than `en`/`en_*`,
 * `C` and `POSIX` goes through yargs); or a `.env` file is present (`wf` loads it first, and it may
 * set those variables).
 *
 * @param args - the arguments after `wf`.
 * @param columns - `process.stdout.columns` (undefined off a terminal).
 * @param env - the process environment.
 * @param hasEnvFile - whether `.env` exists in the working directory.
 */
export function cachedHelp(args: ReadonlyArray<string>, columns: number | undefined, env: NodeJS.ProcessEnv, hasEnvFile: boolean, table: HelpTable): string | undefined {
  if (args.length !== 1 || (args[0] !== "--help" && args[0] !== "-h")) return undefined;
  if (hasEnvFile) return undefined;
  // yargs's own guess (yargs-factory.js, guessLocale): the first set variable, cut at "." or ":".
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || env.LANGUAGE || "en_US").replace(/[.:].*/, "");
  if (!(locale === "en" || locale.startsWith("en_") || locale === "C" || locale === "POSIX")) return undefined;
  return table[String(helpWidth(columns))];
}
