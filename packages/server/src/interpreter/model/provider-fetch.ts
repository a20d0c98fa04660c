/**
 * The `fetch` the openai SDK sends each HTTP request of one completion through (the SDK's `fetch`
 * option, given per completion with `client.withOptions`). The SDK keeps its own retry loop
 * (`maxRetries`: 408, 409, 429, 5xx, connection errors, its per-request `timeout`); this adds what
 * that loop cannot do, and nothing else (docs/decisions/0047-provider-requests-counted-and-named.md):
 *
 * - **Counts every request as it is sent** (`onRequest`): the SDK's retries and the `json_object`
 *   fallback are calls in the step's books, even when the step ends before the answer.
 * - **Reads the whole body before handing the answer over**, so a connection cut after the headers
 *   fails inside `fetch`, where the SDK retries it like a reset (the SDK reads bodies after its
 *   loop, where a cut is not retried), and the SDK's per-request timeout covers the body too.
 * - **Refuses a `Retry-After` longer than the time left**: the SDK sleeps out any wait it is asked
 *   for (no cap); such an answer is marked with the SDK's own `x-should-retry: false`, so the call
 *   fails at once, and the wait asked for is noted for the error ({@link RequestBook.refusedWaitMs}).
 * - **Gives error answers the `{ error: { message } }` body the SDK reads**, so its error carries the
 *   provider's own words (old vLLM's `{ object: "error", message }`, FastAPI's `{ detail }`, LM
 *   Studio's `{ error: "…" }`; otherwise the SDK says "status code (no body)").
 */

/** What the requests of one completion did, read by the provider's error handling. */
export interface RequestBook {
  /** HTTP requests sent so far. */
  requests: number;
  /** The wait (ms) a retryable answer asked for with `Retry-After` that was longer than the time left, when one did. */
  refusedWaitMs?: number;
  /** The time the completion had left when that answer came, in ms. */
  leftWhenRefusedMs?: number;
  /** The HTTP status of that answer. */
  refusedStatus?: number;
}

/** Statuses whose answer has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Statuses the SDK retries (its `shouldRetry`), which may carry `Retry-After`. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait a `Retry-After-Ms` or `Retry-After` header asks for, in ms, read as the SDK reads it
 * (milliseconds first; then seconds, or an HTTP date); undefined without one.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (!Number.isNaN(seconds)) return seconds * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date - now;
}

/**
 * Creates the `fetch` of one completion.
 * @param options.deadline - when the completion's time runs out, in `performance.now()` ms.
 * @param options.onRequest - called as each request is sent.
 * @param options.book - filled in as requests are sent and answered.
 */
export function createRequestFetch(options: { deadline: number; onRequest: () => void; book: RequestBook }): typeof fetch {
  const { deadline, onRequest, book } = options;
  return async (input, init) => {
    book.requests += 1;
    onRequest();
    const response = await fetch(input, init);
    // The whole body, under the same signal (the SDK's per-request timeout, the step's abort).
    const body = await response.arrayBuffer();
    const headers = new Headers(response.headers);
    // A status that cannot carry a body (204, 304) is handed over without one.
    if (response.ok) return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers });
    if (retryable(response.status)) {
      const wait = retryAfterMs(response.headers);
      const left = deadline - performance.now();
      if (wait !== undefined && wait > left) {
        headers.set("x-should-retry", "false");
        book.refusedWaitMs = wait;
        book.leftWhenRefusedMs = Math.max(0, left);
        book.refusedStatus = response.status;
      }
    }
    return new Response(withErrorMessage(new TextDecoder().decode(body)), { status: response.status, statusText: response.statusText, headers });
  };
}

/** An error body with `{ error: { message } }`: as it is when it has one, else rewritten to it. */
function withErrorMessage(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: unknown } | undefined)?.error;
  const hasMessage = error !== null && typeof error === "object" && typeof (error as { message?: unknown }).message === "string";
  if (hasMessage) return text;
  const b = (body ?? {}) as { message?: unknown; detail?: unknown };
  const said = typeof error === "string" ? error : typeof b.message === "string" ? b.message : b.detail !== undefined ? (typeof b.detail === "string" ? b.detail : JSON.stringify(b.detail)) : text;
  return said ? JSON.stringify({ error: { ...(error && typeof error === "object" ? error : {}), message: said } }) : text;
}
