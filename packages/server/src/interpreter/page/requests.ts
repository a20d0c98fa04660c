/**
 * The requests a page has in flight, told by Playwright's `request`, `requestfinished` and
 * `requestfailed` events: what a step waits for before it reads the page ({@link waitForRequests},
 * used by `settle.ts`), and the count the grammar's not-found rule looks at (`watchRequests`).
 * The listeners are added once per page, as early as possible (the session adds them when a page
 * opens, `performAction` before each action), so a request an action starts is always seen.
 */
import type { Page, Request } from "playwright-core";

/** One request the page has in flight. */
export interface OpenRequest {
  method: string;
  /** Origin and path only: a query string may carry a token. */
  url: string;
  /** Playwright's resource type: `fetch`, `xhr`, `script`, `eventsource`, `image`, … */
  type: string;
  /** When it started (`Date.now()`). */
  startedAt: number;
  /** Its place among the page's requests, from 1. */
  seq: number;
}

/** The requests of one page, kept by {@link trackRequests}. */
export interface PageRequests {
  /** Requests the page has started since it was tracked. */
  started: number;
  /** Requests still in flight. */
  readonly open: Map<Request, OpenRequest>;
  /** Called (then dropped) at the next request that ends. */
  readonly wake: Set<() => void>;
  /**
   * When the last request of a waited-for type (fetch, XHR, script) ended (`Date.now()`), 0 before
   * any: the page may still be handling its answer (`settle.ts` then asks a longer DOM quiet).
   */
  lastEndedAt: number;
}

const tracked = new WeakMap<Page, PageRequests>();

/** A page whose requests never end (streams) holds at most this many; the oldest go first. */
const MAX_TRACKED_REQUESTS = 1_000;

/** The resource types of the page's own work a step waits for: its API calls and the code it loads for a view. */
const WAITED_TYPES = new Set(["fetch", "xhr", "script"]);

/** Resource types that stay open by design: never waited for. */
const STREAM_TYPES = new Set(["eventsource", "websocket"]);

/**
 * Starts keeping the page's requests in flight, once per page (later calls return the same
 * record). Adding the listeners costs three Playwright calls; they stay for the page's life.
 */
export function trackRequests(page: Page): PageRequests {
  const known = tracked.get(page);
  if (known) return known;
  const state: PageRequests = { started: 0, open: new Map(), wake: new Set(), lastEndedAt: 0 };
  const wake = () => {
    if (state.wake.size === 0) return;
    const waiting = [...state.wake];
    state.wake.clear();
    for (const fn of waiting) fn();
  };
  const end = (request: Request) => {
    const open = state.open.get(request);
    if (!open) return;
    state.open.delete(request);
    if (WAITED_TYPES.has(open.type)) state.lastEndedAt = Date.now();
    wake();
  };
  page.on("request", (request) => {
    if (state.open.size >= MAX_TRACKED_REQUESTS) state.open.delete(state.open.keys().next().value!);
    state.open.set(request, { method: request.method(), url: shortUrl(request.url()), type: request.resourceType(), startedAt: Date.now(), seq: ++state.started });
  });
  page.on("requestfinished", end);
  page.on("requestfailed", end);
  tracked.set(page, state);
  return state;
}

/** `GET http://host/path`: a request as a step report names it (no query string: it may carry a token). */
export function describeRequest(request: OpenRequest): string {
  return `${request.method} ${request.url}`;
}

function shortUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "data:" ? "data:…" : `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.slice(0, 200);
  }
}

/** What {@link waitForRequests} saw. */
export interface RequestsWait {
  /** True when every request waited for ended (or turned long-lived) before `deadline`. */
  done: boolean;
  /** True when there was a request to wait for (false: it returned at once). */
  waited: boolean;
  /** Requests still in flight at the deadline that were waited for. */
  pending: OpenRequest[];
  /** Requests in flight that were not waited for: streams, and requests open longer than `longLivedMs`. */
  longLived: OpenRequest[];
}

/**
 * Waits until the page has no request of its own in flight (fetch, XHR, script) that is younger
 * than `longLivedMs`, or until `deadline` (a `Date.now()` time). Requests that stay open by design
 * (EventSource, WebSocket) and requests open longer than `longLivedMs` (long-polls, streamed
 * responses) are not waited for. Every wait is for a request's end or for the moment a request
 * turns long-lived: a page with nothing in flight returns at once.
 */
export async function waitForRequests(page: Page, deadline: number, longLivedMs: number): Promise<RequestsWait> {
  const state = trackRequests(page);
  for (let waited = false; ; waited = true) {
    const now = Date.now();
    const inFlight: OpenRequest[] = [];
    const longLived: OpenRequest[] = [];
    for (const request of state.open.values()) {
      if (STREAM_TYPES.has(request.type) || (WAITED_TYPES.has(request.type) && now - request.startedAt >= longLivedMs)) longLived.push(request);
      else if (WAITED_TYPES.has(request.type)) inFlight.push(request);
    }
    if (inFlight.length === 0) return { done: true, waited, pending: [], longLived };
    if (now >= deadline || page.isClosed()) return { done: false, waited, pending: inFlight, longLived };
    // Until a request ends, the oldest waited-for one turns long-lived, or the deadline.
    const turns = Math.min(...inFlight.map((r) => r.startedAt + longLivedMs));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(1, Math.min(deadline, turns) - now));
      function done() {
        clearTimeout(timer);
        state.wake.delete(done);
        resolve();
      }
      state.wake.add(done);
    });
  }
}
