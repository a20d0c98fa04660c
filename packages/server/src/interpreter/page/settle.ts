/**
 * When a page is loaded and stable: its load done, no request in flight, and no DOM change for a
 * quiet period ({@link waitForSettled}, `wait for the page to load`; and the grammar's rule that a
 * target still missing from a settled page is not found). Also what a navigation race looks like
 * ({@link isNavigationRace}).
 */
import type { Page } from "playwright-core";
import type { StepSettle } from "@wf/core/protocol";
import type { QuietMark } from "../types.js";
import { describeRequest, trackRequests, waitForRequests, type OpenRequest, type RequestsWait } from "./requests.js";
import { untraced } from "../../browser/tracing.js";

/**
 * How long the page must show no DOM change (with its load done and no request in flight) before
 * a target that is not there is reported as not found, in ms.
 */
export const QUIET_MS = 500;

/**
 * Installs (once per document) a MutationObserver that records when the DOM last changed, in
 * `window.__wfQuiet.last` (a `performance.now()` time), how many changes it saw (`changes`), an id
 * of the document (`id`), and calls the functions waiting for the next change (`wake`). Also run at every document's start once a
 * page has been searched (see {@link watchQuiet}), so the quiet period after a navigation counts
 * from the last real change, not from the first look.
 */
const QUIET_SCRIPT = `(function () {
  if (window.__wfQuiet) return;
  var quiet = { last: performance.now(), changes: 0, id: Math.random(), wake: [] };
  window.__wfQuiet = quiet;
  new MutationObserver(function () {
    quiet.last = performance.now();
    quiet.changes++;
    var wake = quiet.wake;
    quiet.wake = [];
    for (var i = 0; i < wake.length; i++) wake[i]();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;
const watchedPages = new WeakSet<Page>();

/** Registers {@link QUIET_SCRIPT} as an init script of the page, once. */
function watchQuiet(page: Page): void {
  if (watchedPages.has(page)) return;
  watchedPages.add(page);
  page.addInitScript(QUIET_SCRIPT).catch(() => watchedPages.delete(page));
}

/**
 * Counts the requests the page starts from this call on that are still in flight (of every type).
 * The page's request listeners ({@link trackRequests}) are added at its first call and stay: adding
 * and removing them for every step cost six Playwright calls a step (~1.3 ms, with stack capture, in `bench`).
 */
export function watchRequests(page: Page): { inflight(): number } {
  const state = trackRequests(page);
  const since = state.started;
  return {
    inflight: () => {
      let count = 0;
      for (const request of state.open.values()) if (request.seq > since) count += 1;
      return count;
    },
  };
}

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
    state = (await untraced(page, () => page.evaluate(`(${QUIET_SCRIPT}, { ready: document.readyState, quietMs: performance.now() - window.__wfQuiet.last })`))) as typeof state;
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
export function waitForSettled(page: Page, waitMs: number, quietMs: number = QUIET_MS): Promise<boolean> {
  return untraced(page, () => settled(page, waitMs, quietMs));
}

async function settled(page: Page, waitMs: number, quietMs: number): Promise<boolean> {
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

/**
 * Default cap of a step's wait for the page to settle before it reads it, in ms (the server's
 * `settleTimeoutMs`, `WF_SETTLE_TIMEOUT_MS`). See docs/decisions/0059-steps-wait-for-the-page-to-settle.md.
 */
export const DEFAULT_SETTLE_TIMEOUT_MS = 3_000;

/**
 * How long the DOM must have been unchanged before a step reads the page, in ms: counted from the
 * later of the last mutation and the end of the page's last request, so a page already quiet costs
 * nothing (this is not a sleep). When no request ended within that time, two animation frames
 * without a change are enough (decision 0066).
 */
export const READ_QUIET_MS = 100;

/**
 * What a step's wait for the page to settle saw ({@link settleBeforeRead}), summed over a step's
 * waits by {@link addSettle}: `waitedMs`, `capReached` (the page was read as it was at the cap),
 * `pending` (requests in flight at the cap) and `longLived` (requests not waited for: streams, and
 * requests open longer than half the cap).
 */
export interface SettleOutcome extends StepSettle {
  /** False when nothing was waited for: no request in flight, the DOM already quiet. */
  waited: boolean;
  /**
   * The page's {@link DomStamp} as the last look at its DOM's quiet read it (in the same evaluation):
   * what a caller compares with a stamp of its own to know whether the page changed since, with no
   * evaluation more. A page that could not be read (navigating) has a stamp no later one equals.
   */
  stamp: DomStamp;
  /**
   * When the DOM was last found quiet (`Date.now()`, in ms, taken before the read that found it),
   * with {@link SettleOutcome.stamp} then: what a later read may pass to {@link settleBeforeRead} as
   * `since`. Absent when the wait ended without a quiet DOM.
   */
  quiet?: QuietMark;
}

/** Options of {@link settleBeforeRead}. */
export interface SettleOptions {
  /**
   * The DOM as an earlier wait found it quiet ({@link SettleOutcome.quiet}). A DOM that has not
   * changed since, on a page none of whose requests ended since, is quiet at once: the earlier wait
   * already let what the page had scheduled happen, so its two animation frames are not waited for
   * again (a model's page view right after the grammar's look before a hand-over).
   */
  since?: QuietMark;
  /**
   * Longest wait when the step has less time than the cap, in ms: the wait is the lesser of the two.
   * The long-lived threshold stays half the cap: one taken from a shortened wait read a slow API
   * call as a long-poll. @default the cap
   */
  withinMs?: number;
}

/** Most requests a {@link SettleOutcome} names in each list. */
const LISTED_REQUESTS = 5;

/**
 * Waits, for at most `capMs`, until the page has settled enough to be read: its `load` done, no
 * request of its own in flight (fetch, XHR, script; see `requests.ts`: streams and requests open
 * longer than half the cap are not waited for), then a quiet DOM (no change for {@link READ_QUIET_MS},
 * or over two animation frames when no request ended within that time; the MutationObserver
 * measure of {@link QUIET_SCRIPT}, see `waitForDomQuiet`); again while the quiet wait brought new
 * requests. Every wait is for an event (a request's end, a change) or for the rest of a period
 * counted from the last one: a page already quiet is read at once. Never throws: a page that does
 * not settle within the cap is read as it is, and the outcome says so (`capReached`).
 *
 * @param capMs - the server's settle cap (`settleTimeoutMs`), in ms: the longest wait, and twice
 *   the age from which a request is long-lived (decision 0059: one setting, so a server given a
 *   longer cap for slow APIs also waits longer for one request).
 */
export function settleBeforeRead(page: Page, capMs: number, options: SettleOptions = {}): Promise<SettleOutcome> {
  return untraced(page, () => settle(page, capMs, options));
}

async function settle(page: Page, capMs: number, options: SettleOptions): Promise<SettleOutcome> {
  const { since } = options;
  const started = Date.now();
  const deadline = started + Math.max(0, Math.floor(Math.min(capMs, options.withinMs ?? capMs)));
  const left = () => Math.max(1, deadline - Date.now());
  const longLivedMs = Math.max(1, capMs / 2);
  watchQuiet(page);
  await page.waitForLoadState("load", { timeout: left() }).catch(() => undefined);
  const longLived = new Set<OpenRequest>();
  let requests: RequestsWait;
  let quiet = false;
  let waited = false;
  let stamp: DomStamp = UNREAD;
  let quietMark: QuietMark | undefined;
  for (let quietSeen = false; ; quietSeen = true) {
    requests = await waitForRequests(page, deadline, longLivedMs);
    waited ||= requests.waited;
    for (const request of requests.longLived) longLived.add(request);
    // Once the DOM was quiet, requests its last change started are waited for, and the quiet again.
    if (quietSeen && !requests.waited) break;
    const dom = await waitForDomQuiet(page, deadline, since);
    quiet = dom.quiet;
    waited ||= dom.waited;
    stamp = dom.stamp;
    quietMark = dom.quietAt === undefined ? undefined : { stamp, at: dom.quietAt };
    if (Date.now() >= deadline) break;
  }
  const capReached = Date.now() >= deadline && (!requests.done || !quiet);
  return {
    waited,
    waitedMs: Date.now() - started,
    capReached,
    stamp,
    ...(quiet && quietMark ? { quiet: quietMark } : {}),
    pending: capReached ? requests.pending.slice(0, LISTED_REQUESTS).map(describeRequest) : [],
    longLived: [...longLived].slice(0, LISTED_REQUESTS).map(describeRequest),
  };
}

/**
 * Adds a wait's outcome to a step's report (`StepReport.settle`): waits summed, lists joined (at
 * most 5 each). A wait that waited for nothing and left nothing out is not recorded.
 */
export function recordSettle(report: { settle?: StepSettle }, outcome: SettleOutcome): void {
  if (!outcome.waited && !outcome.capReached && outcome.longLived.length === 0) return;
  const before = report.settle;
  const join = (a: string[], b: string[]) => [...new Set([...a, ...b])].slice(0, LISTED_REQUESTS);
  report.settle = {
    waitedMs: (before?.waitedMs ?? 0) + outcome.waitedMs,
    capReached: (before?.capReached ?? false) || outcome.capReached,
    pending: join(before?.pending ?? [], outcome.pending),
    longLived: join(before?.longLived ?? [], outcome.longLived),
  };
}

/**
 * In-page: true when the document has loaded and holds nothing that runs script without a user
 * (no `script` element, of HTML or SVG; no event-handler attribute such as `onload`; no open shadow
 * root, whose content the walk does not see): a page that cannot change its DOM by itself. A
 * `javascript:` link or a handler needs a user's action, which is a step of its own. Answered once
 * per loaded document (kept in `__wfQuiet`, whose {@link QUIET_SCRIPT} runs first): a document with no
 * script cannot gain one, so the walk of a large static page is paid once.
 */
const SCRIPTLESS = `(function () {
  var q = window.__wfQuiet;
  if (q.scriptless !== undefined) return q.scriptless;
  if (document.readyState !== "complete") return false;
  return (q.scriptless = (function () {
    if (document.getElementsByTagName("script").length > 0) return false;
    var all = document.getElementsByTagName("*");
    for (var i = 0; i < all.length; i++) {
      if (all[i].shadowRoot) return false;
      var names = all[i].getAttributeNames();
      for (var j = 0; j < names.length; j++) if (names[j].length > 2 && names[j].charCodeAt(0) === 111 && names[j].charCodeAt(1) === 110) return false;
    }
    return true;
  })());
})()`;

/** In-page, after {@link QUIET_SCRIPT}: how long, in ms, the DOM has been unchanged (`1e9` for a {@link SCRIPTLESS} document). */
const QUIET_FOR_MS = `(${SCRIPTLESS} ? 1e9 : performance.now() - window.__wfQuiet.last)`;

/** In-page, after {@link QUIET_SCRIPT}: the page's {@link DomStamp}, with its count of elements. */
const STAMP = `{ id: window.__wfQuiet.id, changes: window.__wfQuiet.changes, elements: document.getElementsByTagName("*").length }`;

/**
 * In-page: how long ago the DOM last changed, in ms, and the page's {@link DomStamp} then
 * (`[ms, id, changes]`). A loaded document without script ({@link SCRIPTLESS}) is quiet (1e9) at
 * once, however recently it was parsed: nothing in it can change it (decision 0073). On a document
 * whose observer this call installs, first waits one animation frame (at most 50 ms: a page in the
 * background gets none) and answers that it is quiet (1e9) when nothing changed meanwhile.
 */
const QUIET_PROBE = `new Promise(function (resolve) {
  var fresh = !window.__wfQuiet;
  ${QUIET_SCRIPT};
  var q = window.__wfQuiet;
  if (${SCRIPTLESS}) return resolve([1e9, q.id, q.changes]);
  if (!fresh) return resolve([performance.now() - q.last, q.id, q.changes]);
  var done = false;
  function finish() { if (done) return; done = true; resolve([q.changes === 0 ? 1e9 : performance.now() - q.last, q.id, q.changes]); }
  requestAnimationFrame(function () { setTimeout(finish, 0); });
  setTimeout(finish, 50);
})`;

/**
 * In-page: whether the DOM stays unchanged over the next two animation frames (and the task after
 * the second): `true` when no change came meanwhile; with the page's {@link DomStamp} at the end
 * (`[quiet, id, changes]`). Two frames let a change the page already
 * scheduled (a microtask, a `setTimeout(0)`, a `requestAnimationFrame` render) happen first. A page
 * in the background gets no frames: then at most {@link FRAMES_FALLBACK_MS}.
 */
const FRAMES_FALLBACK_MS = 100;
const FRAMES_PROBE = `new Promise(function (resolve) {
  ${QUIET_SCRIPT};
  var q = window.__wfQuiet, id = q.id, changes = q.changes, done = false;
  function finish() { if (done) return; done = true; var now = window.__wfQuiet; resolve([now === q && now.id === id && now.changes === changes, now.id, now.changes]); }
  requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(finish, 0); }); });
  setTimeout(finish, ${FRAMES_FALLBACK_MS});
})`;

/**
 * Waits until the DOM is quiet enough to read, or `deadline`. Quiet is one of (decision 0066,
 * amending 0059):
 * - no change for {@link READ_QUIET_MS}, counted from the later of the last change and the end of
 *   the page's last request (fetch, XHR, script): an answer that just came may still be handled
 *   (`await response.json()`, then a render);
 * - when no such request ended within the last {@link READ_QUIET_MS}: no change over two animation
 *   frames ({@link FRAMES_PROBE}), so a page that is already settled is read after ~2 frames, not
 *   the rest of 100 ms counted from its last re-render.
 * @returns whether it is quiet, and whether it had to wait for a change or an answer to pass.
 */
async function waitForDomQuiet(page: Page, deadline: number, since?: QuietMark): Promise<{ quiet: boolean; waited: boolean; stamp: DomStamp; quietAt?: number }> {
  const requests = trackRequests(page);
  // Each probe answers the page's stamp too (see `SettleOutcome.stamp`); one that fails (navigating) the unread stamp.
  const probe = () => page.evaluate(QUIET_PROBE).then((r) => r as [number, number, number], () => [READ_QUIET_MS, UNREAD.id, UNREAD.changes] as const);
  const framesQuiet = () => page.evaluate(FRAMES_PROBE).then((r) => r as [boolean, number, number], () => [false, UNREAD.id, UNREAD.changes] as const);
  for (let waited = false; ; waited = true) {
    const probedAt = Date.now();
    const [changed, id, changes] = await probe();
    let stamp: DomStamp = { id, changes };
    // Unchanged since an earlier wait found it quiet, and no answer came since: quiet still.
    if (since && !waited && id === since.stamp.id && changes === since.stamp.changes && id !== UNREAD.id && requests.lastEndedAt < since.at) return { quiet: true, waited, stamp, quietAt: since.at };
    const answered = Date.now() - requests.lastEndedAt;
    const quietFor = Math.min(changed, answered);
    if (quietFor >= READ_QUIET_MS) return { quiet: true, waited, stamp, quietAt: probedAt };
    const byFrames = answered >= READ_QUIET_MS;
    if (byFrames) {
      const framesAt = Date.now();
      const [framesQuietNow, framesId, framesChanges] = await framesQuiet();
      stamp = { id: framesId, changes: framesChanges };
      if (framesQuietNow) return { quiet: true, waited, stamp, quietAt: framesAt };
    }
    const left = deadline - Date.now();
    if (left <= 0) return { quiet: false, waited, stamp };
    // The frames probe was itself a wait (two frames): look again at once.
    if (!byFrames) await new Promise((resolve) => setTimeout(resolve, Math.min(left, Math.max(10, READ_QUIET_MS - quietFor))));
  }
}

/** Which document a page shows and how many DOM changes it has seen: what {@link waitForDomChange} compares with. */
export interface DomStamp {
  id: number;
  changes: number;
  /** The elements the document had when read: {@link domStamp}'s only. */
  elements?: number;
}

/** The stamp of a page that could not be read (navigating): no stamp read from a document equals it. */
const UNREAD: DomStamp = { id: -1, changes: -1 };

/**
 * The page's {@link DomStamp} now, with its count of elements (the observer installed when it is
 * not yet). A page navigating answers a stamp no later one equals, and no count.
 */
export async function domStamp(page: Page): Promise<DomStamp> {
  watchQuiet(page);
  return (await untraced(page, () =>
    page.evaluate(`(${QUIET_SCRIPT}, ${STAMP})`),
  ).catch(() => UNREAD)) as DomStamp;
}

/**
 * Waits, at most `ms`, until the page shows a change since `stamp`: a DOM mutation, or another
 * document. @returns true when it changed (a page that navigated or cannot be read counts as changed).
 */
export async function waitForDomChange(page: Page, stamp: DomStamp, ms: number): Promise<boolean> {
  const wait = `new Promise(function (resolve) {
    ${QUIET_SCRIPT};
    var q = window.__wfQuiet;
    if (q.id !== ${stamp.id} || q.changes !== ${stamp.changes}) return resolve(true);
    q.wake.push(function () { resolve(true); });
    setTimeout(function () { resolve(false); }, ${Math.max(0, Math.round(ms))});
  })`;
  return untraced(page, () => page.evaluate(wait)).then(Boolean, () => true);
}

/**
 * {@link domQuietForMs} and {@link domStamp} in one evaluation: how long, in ms, the DOM has been
 * unchanged, and the page's stamp (with its count of elements) at that moment. A page navigating
 * answers 0 and a stamp no later one equals.
 */
export async function domQuietAndStamp(page: Page): Promise<{ quietForMs: number; stamp: DomStamp }> {
  watchQuiet(page);
  const read = untraced(page, () => page.evaluate(`(${QUIET_SCRIPT}, { quietForMs: ${QUIET_FOR_MS}, stamp: ${STAMP} })`));
  return (await read.catch(() => ({ quietForMs: 0, stamp: UNREAD }))) as { quietForMs: number; stamp: DomStamp };
}

/**
 * How long, in ms, the DOM has been unchanged (0 when it cannot be read: a page navigating). A
 * loaded document with no script to change it (no `script` element, no event-handler attribute,
 * no open shadow root) answers `1e9`: however recently it was parsed, nothing will change it
 * before the next action (a static page just opened by `go to` is not "still changing", decision 0073).
 */
export async function domQuietForMs(page: Page): Promise<number> {
  watchQuiet(page);
  return untraced(page, () => page.evaluate(`(${QUIET_SCRIPT}, ${QUIET_FOR_MS})`)).then(Number, () => 0);
}
