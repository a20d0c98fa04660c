/**
 * When a page is loaded and stable: its load done, no request in flight, and no DOM change for a
 * quiet period ({@link waitForSettled}, `wait for the page to load`; and the grammar's rule that a
 * target still missing from a settled page is not found). Also what a navigation race looks like
 * ({@link isNavigationRace}).
 */
import type { Page } from "playwright-core";

/**
 * How long the page must show no DOM change (with its load done and no request in flight) before
 * a target that is not there is reported as not found, in ms.
 */
export const QUIET_MS = 500;

/**
 * Installs (once per document) a MutationObserver that records when the DOM last changed, in
 * `window.__wfQuiet.last` (a `performance.now()` time). Also run at every document's start once a
 * page has been searched (see {@link watchQuiet}), so the quiet period after a navigation counts
 * from the last real change, not from the first look.
 */
const QUIET_SCRIPT = `(function () {
  if (window.__wfQuiet) return;
  var quiet = { last: performance.now() };
  window.__wfQuiet = quiet;
  new MutationObserver(function () { quiet.last = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;
const watchedPages = new WeakSet<Page>();

/** Registers {@link QUIET_SCRIPT} as an init script of the page, once. */
function watchQuiet(page: Page): void {
  if (watchedPages.has(page)) return;
  watchedPages.add(page);
  page.addInitScript(QUIET_SCRIPT).catch(() => watchedPages.delete(page));
}

/**
 * Counts the requests the page starts from this call on that are still in flight. The page's
 * request listeners are added at its first call and stay: adding and removing them for every
 * step cost six Playwright calls a step (~1.3 ms, with stack capture, in `bench`).
 */
export function watchRequests(page: Page): { inflight(): number } {
  let watched = pageRequests.get(page);
  if (!watched) {
    const state: PageRequests = { started: 0, open: new Map() };
    const end = (request: unknown) => state.open.delete(request);
    page.on("request", (request) => {
      // A page whose requests never end (streams) holds at most this many; the oldest go first.
      if (state.open.size >= MAX_TRACKED_REQUESTS) state.open.delete(state.open.keys().next().value);
      state.open.set(request, ++state.started);
    });
    page.on("requestfinished", end);
    page.on("requestfailed", end);
    pageRequests.set(page, state);
    watched = state;
  }
  const { open } = watched;
  const since = watched.started;
  return {
    inflight: () => {
      let count = 0;
      for (const started of open.values()) if (started > since) count += 1;
      return count;
    },
  };
}

/** A page's requests in flight, each with the number of requests the page had started with it. */
interface PageRequests {
  started: number;
  open: Map<unknown, number>;
}
const pageRequests = new WeakMap<Page, PageRequests>();
const MAX_TRACKED_REQUESTS = 1_000;

/**
 * True when the page is loaded and stable: `load` done, network idle (Playwright's `networkidle`
 * for the document, and no request started since we began looking still in flight), and no DOM
 * change for `quietMs` (a MutationObserver the first call installs in the document).
 */
export async function isSettled(page: Page, quietMs: number, inflight: number): Promise<boolean> {
  if (inflight > 0) return false;
  let state: { ready: string; quietMs: number };
  try {
    watchQuiet(page);
    state = (await page.evaluate(`(${QUIET_SCRIPT}, { ready: document.readyState, quietMs: performance.now() - window.__wfQuiet.last })`)) as typeof state;
  } catch {
    return false; // navigating
  }
  if (state.ready !== "complete" || state.quietMs < quietMs) return false;
  return page
    .waitForLoadState("networkidle", { timeout: 1 })
    .then(() => true)
    .catch(() => false);
}

/**
 * Waits until the page is loaded and stable (see {@link isSettled}): `load`, network idle, no DOM
 * change for `quietMs`. Polls every 100 ms.
 * @returns true when it settled, false when `waitMs` ran out first.
 */
export async function waitForSettled(page: Page, waitMs: number, quietMs: number = QUIET_MS): Promise<boolean> {
  const deadline = Date.now() + Math.max(0, waitMs);
  const network = watchRequests(page);
  await page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
  for (;;) {
    if (await isSettled(page, quietMs, network.inflight())) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await page.waitForTimeout(Math.min(left, 100));
  }
}
/** True for errors of an evaluation cut short by a navigation; looking again on the new document is right. */
export function isNavigationRace(error: unknown): boolean {
  return error instanceof Error && /Execution context was destroyed|frame was detached|Cannot find context with specified id|navigation/i.test(error.message);
}
