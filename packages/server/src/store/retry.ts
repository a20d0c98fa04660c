/**
 * Writes that must reach the store eventually (a step's outcome, a session's end), retried while
 * the store reports itself unavailable (`WF_STORAGE_UNAVAILABLE`: a full disk, the database
 * gone), and never silently: the first retry logs a warning, then at most one warning per
 * `warnEveryMs` for all writes waiting together (a full disk stalls every session at once; one
 * line a minute says so, with how many writes wait), and one line when they are all written.
 */
import { isHttpProblem } from "../errors.js";
import { STORAGE_RETRY_AFTER_MS } from "./sql-store.js";

/** Where {@link StoreRetry} reports. */
export interface StoreRetryLog {
  warn(context: Record<string, unknown>, message: string): void;
  info(context: Record<string, unknown>, message: string): void;
}

/** Options of {@link StoreRetry}. */
export interface StoreRetryOptions {
  log: StoreRetryLog;
  /** Where the records are, for messages (`Store.location`). */
  location: string;
  /** Wait between tries, in ms. @default {@link STORAGE_RETRY_AFTER_MS} (5,000) */
  retryAfterMs?: number;
  /** Least time between two warnings, in ms. @default 60_000 */
  warnEveryMs?: number;
  /** Called at each retry (the server's metrics count them). */
  onRetry?: () => void;
  /** For tests: the clock (ms) and the wait. @default Date.now, setTimeout */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Retries store writes; one per server (its warnings are rate-limited across every write it retries). */
export class StoreRetry {
  private readonly retryAfterMs: number;
  private readonly warnEveryMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Writes being retried now, by what they write. */
  private readonly waiting = new Set<string>();
  private lastWarnAt: number | undefined;
  private since: number | undefined;

  constructor(private readonly options: StoreRetryOptions) {
    this.retryAfterMs = options.retryAfterMs ?? STORAGE_RETRY_AFTER_MS;
    this.warnEveryMs = options.warnEveryMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Runs `write` until it succeeds, retrying every `retryAfterMs` while it fails with
   * `WF_STORAGE_UNAVAILABLE`, until `giveUp()` says the write no longer matters (the server
   * stops, the session ended).
   * @param what - what is written, for the log, e.g. `the outcome of step 3f2a…`.
   * @throws any other error of `write` at once; the last `WF_STORAGE_UNAVAILABLE` when it gave up.
   */
  async write(what: string, write: () => Promise<void>, giveUp: () => boolean): Promise<void> {
    let tries = 0;
    try {
      for (;;) {
        try {
          await write();
          return;
        } catch (error) {
          if (giveUp() || !isHttpProblem(error) || error.code !== "WF_STORAGE_UNAVAILABLE") throw error;
          tries += 1;
          this.options.onRetry?.();
          this.waiting.add(what);
          this.since ??= this.now();
          this.maybeWarn(what, error);
          await this.sleep(this.retryAfterMs);
        }
      }
    } finally {
      if (tries > 0) this.done(what, tries);
    }
  }

  private maybeWarn(what: string, error: Error): void {
    const now = this.now();
    if (this.lastWarnAt !== undefined && now - this.lastWarnAt < this.warnEveryMs) return;
    this.lastWarnAt = now;
    const count = this.waiting.size;
    const others = count > 1 ? ` (and ${count - 1} other write${count > 2 ? "s" : ""})` : "";
    this.options.log.warn(
      { waiting: count, location: this.options.location, forMs: now - this.since!, err: error },
      `wf server: ${what}${others} could not be written to ${this.options.location} and is retried every ${Math.round(this.retryAfterMs / 1000)} s until it is: ${error.message} ` +
        `Until then the step shows RUNNING and the session's next steps wait. Free disk space or bring the database back.`,
    );
  }

  private done(what: string, tries: number): void {
    this.waiting.delete(what);
    if (this.waiting.size > 0 || this.since === undefined) return;
    const forMs = this.now() - this.since;
    this.since = undefined;
    this.lastWarnAt = undefined;
    this.options.log.info({ location: this.options.location, forMs, tries }, `wf server: no write waits for ${this.options.location} any more (${what} was the last; writes waited ${Math.round(forMs / 1000)} s).`);
  }
}

/** A {@link StoreRetryLog} writing lines to stderr (a server without a logger). */
export const stderrLog: StoreRetryLog = {
  warn: (_context, message) => void process.stderr.write(`${message}\n`),
  info: (_context, message) => void process.stderr.write(`${message}\n`),
};
