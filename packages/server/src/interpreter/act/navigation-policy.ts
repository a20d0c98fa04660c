/**
 * Which addresses a step may open (`go to`, a link, whatever an action lands on): http(s),
 * `about:blank`, `data:`, and local `file:` pages only when the server allows them; and how a
 * written URL is resolved: a relative one against the session's base URL (Playwright's
 * `baseURL`) when it has one, else against the page; a bare host gets a scheme.
 */
import type { BrowserContext, Page } from "playwright-core";
import { InterpreterError } from "../errors.js";
import type { StepClock } from "../_clock.js";

/** What a refusal of a local file says to do about it. */
export const HOW_TO_ALLOW_FILES =
  "This server does not open local files. To allow it, start the server with allowFileUrls " +
  "(`wf serve --allow-file-urls`, or WF_ALLOW_FILE_URLS=1); `wf run`'s embedded server allows them.";

/** True for a `file:` URL. */
export function isFileUrl(url: string): boolean {
  return /^file:/i.test(url.trim());
}

/**
 * Refuses a URL `go to` (or a link) must not open: `file:` unless `allowFileUrls`, and any scheme
 * but http(s), `about:blank` and `data:`.
 * @throws {@link InterpreterError} `WF_NAVIGATION_REFUSED`
 */
export function checkNavigable(url: string, allowFileUrls: boolean): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https" || scheme === "data" || /^about:blank$/i.test(url.trim())) return;
  if (scheme === "file") {
    if (allowFileUrls) return;
    throw new InterpreterError("WF_NAVIGATION_REFUSED", `Refused to open ${url}: ${HOW_TO_ALLOW_FILES}`, { url });
  }
  throw new InterpreterError(
    "WF_NAVIGATION_REFUSED",
    `Refused to open ${url}: only http(s) URLs, about:blank and data: URLs${allowFileUrls ? " and local files (file:)" : ""} are opened. Give an http(s) URL.`,
    { url },
  );
}

/**
 * After an action landed on a `file:` page that is not allowed: go back to the page before
 * (about:blank when there is none), then fail with `WF_NAVIGATION_REFUSED`.
 */
export async function leaveRefusedPage(page: Page, clock: StepClock): Promise<never> {
  const url = page.url();
  await page.goBack({ timeout: clock.left() }).catch(() => null);
  if (page.url() === url) await page.goto("about:blank", { timeout: clock.left() }).catch(() => null);
  throw new InterpreterError("WF_NAVIGATION_REFUSED", `The action led to ${url}, a local file; went back to ${page.url()}. ${HOW_TO_ALLOW_FILES}`, { url });
}

/** The base URL of each session's browser context (`context.baseURL` of the session create). */
const baseURLs = new WeakMap<BrowserContext, string>();

/**
 * Makes `baseURL` what relative addresses of `context`'s pages resolve against, as Playwright's
 * `baseURL` context option does for `page.goto("/login")`. Set once, when the session opens.
 */
export function setBaseURL(context: BrowserContext, baseURL: string): void {
  baseURLs.set(context, baseURL);
}

/**
 * Resolves `url`: a full URL as it is; a relative one (`/login`, `./next`, `?page=2`, `#top`)
 * against the session's base URL when it has one (`new URL(url, baseURL)`, Playwright's rule), else
 * against the page's URL; a bare host (`example.com/x`) gets `https://` (`http://` for a local one).
 * @throws {@link InterpreterError} `WF_NAVIGATION_FAILED` for a relative URL with neither a base
 *   URL nor a page address to resolve against.
 */
export function resolveUrl(page: Page, url: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(?:localhost|[\w.-]+):\d+/i.test(url)) return url;
  if (/^[/?#.]/.test(url)) {
    const baseURL = baseURLs.get(page.context());
    if (baseURL) return new URL(url, baseURL).href;
    const base = page.url();
    if (/^(?:https?|file):/i.test(base)) return new URL(url, base).href;
    throw new InterpreterError(
      "WF_NAVIGATION_FAILED",
      `Cannot open the relative URL ${JSON.stringify(url)}: the page has no address yet (${base}) and the session has no base URL. Give a full URL, or set the app's base URL (use: { baseURL } in wf.config.ts, --app-url).`,
      { url },
    );
  }
  const local = /^(?:localhost|127\.|\d{1,3}(?:\.\d{1,3}){3})/i.test(url);
  return `${local ? "http" : "https"}://${url}`;
}
