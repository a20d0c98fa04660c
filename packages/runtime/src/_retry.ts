/**
 * Retry policy helpers of the service client: backoff delays, `Retry-After` parsing, and which
 * connection errors prove a request never left the client.
 */

/** Retry settings. Delays in ms. */
export interface RetryOptions {
  /** Extra attempts after the first. @default 4 */
  retries: number;
  /** Base delay of the exponential backoff, in ms. @default 200 */
  minDelayMs: number;
  /** Ceiling of one backoff delay, in ms. @default 5_000 */
  maxDelayMs: number;
  /**
   * Longest `Retry-After` the client waits for, in ms; a longer one ends the retries at once (the
   * caller gets the 429/503 as a `ServiceError`). @default 60_000
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 4, minDelayMs: 200, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

/**
 * Delay before retry number `retry` (from 0): "full jitter" (AWS Architecture Blog, "Exponential
 * Backoff And Jitter"): a uniform random value in `[0, min(maxDelayMs, minDelayMs · 2^retry)]`.
 */
export function backoffDelayMs(retry: number, options: Pick<RetryOptions, "minDelayMs" | "maxDelayMs">): number {
  const ceiling = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** retry);
  return Math.round(Math.random() * ceiling);
}

/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
 *
 * @returns the delay in ms (0 for a date in the past), or `undefined` when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const CONNECTION_ERROR_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** Codes that mean the connection was never made, so the request cannot have reached the service. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** The `code` of an error or of its causes (undici wraps socket errors). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    const errors = (current as { errors?: unknown }).errors; // AggregateError of happy-eyeballs connects
    if (Array.isArray(errors)) for (const e of errors) codes.push(...errorCodes(e));
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** True for a network failure (refused, reset, closed socket, undici timeouts). */
export function isConnectionError(error: unknown): boolean {
  return errorCodes(error).some((code) => CONNECTION_ERROR_CODES.has(code));
}

/** True when the error proves the request never reached the service (the connection was never made). */
export function provesNotSent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.length > 0 && codes.some((code) => NOT_SENT_CODES.has(code)) && !codes.some((c) => c === "ECONNRESET" || c === "UND_ERR_SOCKET");
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
