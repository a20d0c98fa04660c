/**
 * Whether output goes to a terminal, and whether it wants colours: the one rule every reporter
 * and command of `wf` follows.
 */

/** A stream as far as these rules read it. */
export interface TerminalStream {
  isTTY?: boolean;
}

/** True on a terminal that can redraw lines (not `TERM=dumb`): live progress lines, a clear screen. */
export function isLiveTerminal(stream: TerminalStream, env: Record<string, string | undefined>): boolean {
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

/**
 * True when colours are wanted on `stream`, after https://no-color.org and the `FORCE_COLOR`
 * convention: never when `NO_COLOR` is set to a non-empty value; always when `FORCE_COLOR` is set
 * and not `0`; else on a live terminal ({@link isLiveTerminal}).
 */
export function wantsColor(stream: TerminalStream, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0") return true;
  return isLiveTerminal(stream, env);
}
