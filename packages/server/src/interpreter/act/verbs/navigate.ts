/** `go to <url>`, `go back`, `go forward`, `reload`: navigations of the current page. */
import type { Page, Response } from "playwright-core";
import { TIMED_OUT, within, type StepClock } from "../../_clock.js";
import { InterpreterError } from "../../errors.js";
import { checkNavigable, resolveUrl } from "../navigation-policy.js";
import { firstLine, type VerbHandler } from "../verb.js";

/**
 * Time a navigation leaves of the step's, in ms: its own timeout comes first and names how far it
 * got (`WF_NAVIGATION_TIMEOUT`), rather than the step's, which knows nothing of it.
 */
const NAVIGATION_MARGIN_MS = 500;

/** Raised by {@link navigating} when the navigation's own time ran out. */
class NavigationTimedOut extends Error {
  override name = "TimeoutError";
}

/**
 * `navigation` (a Playwright call given `timeoutMs`), failing with a `TimeoutError` after
 * `timeoutMs` by a timer of this thread as well. Playwright's own timeout reaches us through a
 * message (a `setImmediate`): when the thread was held up past the step's deadline too, the
 * step's timer would fire first and hide how far the page got. This timer fires in deadline order.
 */
async function navigating<T>(navigation: Promise<T>, timeoutMs: number): Promise<T> {
  const done = await within(navigation, timeoutMs);
  if (done === TIMED_OUT) throw new NavigationTimedOut(`navigation timed out after ${timeoutMs} ms`);
  return done;
}

export const goto: VerbHandler<"goto"> = {
  acts: "page",
  async run(action, { page, clock, options }) {
    const url = resolveUrl(page, action.url);
    checkNavigable(url, options.allowFileUrls);
    let status: number | undefined;
    const progress = watchLoad(page);
    const timeoutMs = navigationTimeoutMs(clock);
    try {
      status = (await navigating(page.goto(url, { timeout: timeoutMs, waitUntil: "load" }), timeoutMs))?.status();
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") throw timedOut(`open ${url}`, url, progress.state(), timeoutMs, clock, error);
      throw new InterpreterError(
        "WF_NAVIGATION_FAILED",
        `Could not open ${url}: ${firstLine(error)}. Check the URL and that the site is reachable from the service.`,
        { url },
        { cause: error },
      );
    } finally {
      progress.stop();
    }
    // An HTTP error page is still a page (a workflow may want to read it); the message says so.
    return { action: "goto", message: `Opened ${url}${status !== undefined && status >= 400 ? ` (HTTP ${status})` : ""}` };
  },
};

export const history: VerbHandler<"back" | "forward" | "reload"> = {
  acts: "page",
  async run(action, { page, clock }) {
    const before = page.url();
    const progress = watchLoad(page);
    const timeout = navigationTimeoutMs(clock);
    let response;
    try {
      response = await navigating(action.verb === "back" ? page.goBack({ timeout }) : action.verb === "forward" ? page.goForward({ timeout }) : page.reload({ timeout }), timeout);
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") {
        throw timedOut(action.verb === "reload" ? `reload ${before}` : `go ${action.verb} from ${before}`, before, progress.state(), timeout, clock, error);
      }
      throw new InterpreterError("WF_NAVIGATION_FAILED", `Could not ${action.verb === "reload" ? "reload" : `go ${action.verb}`}: ${firstLine(error)}.`, { url: before }, { cause: error });
    } finally {
      progress.stop();
    }
    if (response === null && action.verb !== "reload" && page.url() === before) {
      throw new InterpreterError(
        "WF_NAVIGATION_FAILED",
        `Could not go ${action.verb}: there is no ${action.verb === "back" ? "previous" : "next"} page in this session's history.`,
        { url: before },
      );
    }
    return { action: action.verb, message: action.verb === "reload" ? `Reloaded ${page.url()}` : `Went ${action.verb} to ${page.url()}` };
  },
};

/** The step's time left less {@link NAVIGATION_MARGIN_MS} (never less than half of what is left). */
function navigationTimeoutMs(clock: StepClock): number {
  const left = clock.left();
  return Math.max(1, Math.max(Math.floor(left / 2), left - NAVIGATION_MARGIN_MS));
}

type LoadState = "none" | "response" | "domcontentloaded";

/** Follows how far the main frame's navigation gets: its response's headers, then `domcontentloaded`. */
function watchLoad(page: Page): { state(): LoadState; stop(): void } {
  let state: LoadState = "none";
  const onResponse = (response: Response) => {
    if (state === "none" && response.frame() === page.mainFrame() && response.request().isNavigationRequest()) state = "response";
  };
  const onDom = () => (state = "domcontentloaded");
  page.on("response", onResponse);
  page.on("domcontentloaded", onDom);
  return {
    state: () => state,
    stop() {
      page.off("response", onResponse);
      page.off("domcontentloaded", onDom);
    },
  };
}

/** `WF_NAVIGATION_TIMEOUT` for a navigation that did not finish loading, naming how far it got. */
function timedOut(doing: string, url: string, loadState: LoadState, timeoutMs: number, clock: StepClock, cause: unknown): InterpreterError {
  // The step itself was aborted (its deadline, a close): that is the step's failure, not the site's.
  if (clock.signal.aborted) return clock.timeoutError(cause);
  const reached =
    loadState === "none"
      ? "the server did not answer"
      : loadState === "response"
        ? "the server sent the page's headers but its body never finished arriving"
        : "the page's document was read (domcontentloaded) but its resources never finished loading (no load event)";
  return new InterpreterError(
    "WF_NAVIGATION_TIMEOUT",
    `Could not ${doing} within ${timeoutMs} ms: ${reached}. Check that the site answers, or raise the step's timeoutMs.`,
    { url, loadState, timeoutMs },
    { cause },
  );
}
