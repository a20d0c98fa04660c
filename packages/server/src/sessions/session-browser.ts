/**
 * The browser side of a session: its browser context and page (proxy, private-network guard,
 * watchers for a context that closes or a page that crashes), carrying out one step's interpreter
 * call on that page, the screenshots taken after steps (CDP capture, PNG files), and the
 * session's Playwright trace (started at creation, saved before the context closes; the zip
 * itself: `browser/tracing.ts`).
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext, BrowserContextOptions, CDPSession, Locator, Page } from "playwright-core";
import { DEFAULT_CHECK_TIMEOUT_MS, normalizeStepSchema, type CheckRecipe, type ReadRecipe, type ReplayAction, type SessionContextOptions, type StepFile, type StepType, type WireError } from "@wf/core/protocol";
import { BROWSER_RETRY_AFTER_MS, PAGE_OPEN_TIMEOUT_MS, type BrowserHost } from "../browser/host.js";
import { StepExecutionError } from "../errors.js";
import { blockPrivateNetworkRequests } from "../browser/network-guard.js";
import { MASK_COLOR } from "./secrets.js";
import type { ResolvedServerOptions } from "../config/options.js";
import type { ActContext, StepInterpreter, StepReport } from "../interpreter/index.js";
import { SessionTabs } from "./tabs.js";
import { SessionUploads } from "./uploads.js";
import { SessionDialogs } from "./dialogs.js";
import { SessionDownloads } from "./downloads.js";
import { answerErrors, setBaseURL, trackRequests } from "../interpreter/index.js";
import { replayActions, replayCheck, replayOptions, replayRead } from "../interpreter/index.js";
import type { TraceScrubber } from "../browser/trace-scrub.js";
import { discardTrace, enterTraceGroups, saveTrace, startTracing, tracePath, tracingTitle } from "../browser/tracing.js";
import { BrowserUnavailableError } from "./errors.js";
import { settlesWithin, TIMED_OUT, within } from "../browser/deadline.js";

/** Longest a screenshot after a step may take, in ms. */
const SCREENSHOT_TIMEOUT_MS = 5_000;

/**
 * Longest the look-up of the fields a picture masks may take, in ms: as long as the capture may
 * (a count of the masked fields per frame takes a few ms, but seconds on a loaded machine). A page
 * that does not answer it gets no picture (an unmasked one could show a secret).
 */
const MASK_TIMEOUT_MS = SCREENSHOT_TIMEOUT_MS;

/** Longest closing a page or the session's browser context may take, in ms; past it, it is left to the browser. */
export const CLOSE_TIMEOUT_MS = 5_000;

/**
 * How long a page has to answer a liveness probe (an evaluation of `true` in its main frame), in
 * ms. One that does not is unresponsive: its main thread is stuck (a script spinning forever, a
 * dialog nothing closes).
 */
export const PROBE_TIMEOUT_MS = 2_000;

/** How long a failed navigation waits for the renderer's crash event that may follow it, in ms. */
const CRASH_EVENT_WAIT_MS = 300;



/** What a step's interpreter call needs from the request. */
export interface BrowserStepInput {
  type: StepType;
  step: string;
  schema?: Record<string, unknown>;
  currentDom?: string;
  currentPageURL?: string;
  replay?: ReplayAction[];
  /** With `replay`: look again for a recorded element its instruction no longer finds. @default false */
  refind?: boolean;
  /** ASK only: a recorded read recipe to run instead of interpreting `step` (see `interpreter/lock/read-recipe.ts`). */
  recipe?: ReadRecipe;
  /** A check only: a recorded check recipe to evaluate instead of the statement (see `interpreter/lock/check-recipe.ts`). */
  checkRecipe?: CheckRecipe;
  /** ASK: derive a read recipe from the model's answer, or a check recipe from the model's verdict (one more page read). @default false */
  deriveRecipe?: boolean;
  /** Whether the step may call the model; false makes a step that needs it fail `WF_MODEL_FORBIDDEN`. @default true */
  allowModel?: boolean;
  /** ACT: files the step brought (a remote client's upload bytes). */
  files?: StepFile[];
  /** ASK: the step is a check of the statement `step` (see `interpreter/check/`). */
  check?: { timeoutMs?: number };
  /** The step groups (`step()`) the step runs in, outermost first: opened in the trace (`browser/tracing.ts`). */
  groups?: ReadonlyArray<{ id: string; title: string }>;
}

/**
 * The options of `browser.newContext` a session's `context` asks for (all but `baseURL`, which wf
 * applies itself: see `navigation-policy.ts`), or undefined when it asks for none.
 */
export function contextOptionsOf(use: SessionContextOptions | undefined): BrowserContextOptions | undefined {
  if (!use) return undefined;
  const { baseURL: _baseURL, ...rest } = use;
  const options = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as BrowserContextOptions;
  return Object.keys(options).length > 0 ? options : undefined;
}

/** The browser context and page of one session. Open with {@link SessionBrowser.open}. */
export class SessionBrowser {
  /** One CDP session per page, for screenshots (opened at the first one). */
  private readonly cdpSessions = new WeakMap<Page, Promise<CDPSession>>();

  /** The session's tabs: the current one is {@link SessionBrowser.page}. */
  readonly tabs: SessionTabs;
  /** Files steps brought with them, deleted at {@link SessionBrowser.close}. */
  private readonly uploads = new SessionUploads();

  /** The session's JavaScript dialogs, answered by its rule (see `dialogs.ts`). */
  readonly dialogs: SessionDialogs;
  /** The files its steps download (see `downloads.ts`). */
  readonly downloads: SessionDownloads;
  /** Pages of the context whose renderer crashed. */
  private readonly crashedPages = new WeakSet<Page>();
  /** Called once when the session can't go on (see {@link SessionBrowser.watch}). */
  private onEnd: ((error: WireError) => void) | undefined;

  private constructor(
    readonly context: BrowserContext,
    page: Page,
    maxDownloadBytes: number,
  ) {
    this.tabs = new SessionTabs(context, page);
    this.dialogs = new SessionDialogs(context, "accept");
    this.downloads = new SessionDownloads(context, page, maxDownloadBytes);
    const noteCrash = (crashed: Page) => crashed.once("crash", () => this.crashedPages.add(crashed));
    noteCrash(page);
    context.on("page", noteCrash);
    // What a step waits for before it reads a page: the requests each page has in flight, from its start.
    trackRequests(page);
    context.on("page", (opened) => void trackRequests(opened));
  }

  /** The session's current page: its current tab (a tab a step opened or switched to). */
  get page(): Page {
    return this.tabs.current;
  }

  /**
   * Opens a context (behind `proxy` when given; with the private-network guard when
   * `options.blockPrivateNetworks`) and its page.
   * @throws what `browser.newContext` throws (`WF_BROWSER_UNAVAILABLE` when the browser is down);
   *   {@link BrowserUnavailableError} `WF_BROWSER_UNAVAILABLE` when the page takes over 15 s to open.
   */
  static async open(
    browser: BrowserHost,
    options: ResolvedServerOptions,
    proxy?: string | NonNullable<BrowserContextOptions["proxy"]>,
    use?: SessionContextOptions,
  ): Promise<SessionBrowser> {
    const guarded = options.blockPrivateNetworks;
    const own = contextOptionsOf(use);
    // The plain context and page the host opened while the server loaded (`wf run`), when this
    // session needs nothing more: no proxy, no context options, no private-network guard (it blocks service workers).
    // Waited for while it is still opening (its trace starting): a second context would compete with it.
    const ahead = proxy || guarded || own ? undefined : await browser.takeOpenedAhead();
    if (ahead) return new SessionBrowser(ahead.context, ahead.page, options.maxDownloadBytes).withBaseURL(use?.baseURL);
    const context = await browser.newContext({
      ...own,
      ...(proxy ? { proxy: toProxySettings(proxy) } : {}),
      // A service worker's requests would bypass the guard's route.
      ...(guarded ? { serviceWorkers: "block" as const } : {}),
    });
    try {
      if (guarded) await blockPrivateNetworkRequests(context);
      const page = await within(context.newPage(), PAGE_OPEN_TIMEOUT_MS);
      if (page === TIMED_OUT) {
        throw new BrowserUnavailableError(`The browser did not open a page within ${PAGE_OPEN_TIMEOUT_MS} ms. Retry the session create.`, BROWSER_RETRY_AFTER_MS);
      }
      return new SessionBrowser(context, page, options.maxDownloadBytes).withBaseURL(use?.baseURL);
    } catch (error) {
      // Not awaited: a context whose page hung may not close either.
      void context.close().catch(() => undefined);
      throw error;
    }
  }

  /** Makes `baseURL` what relative addresses of this context's steps resolve against (`go to /login`). @returns this */
  withBaseURL(baseURL: string | undefined): this {
    if (baseURL) setBaseURL(this.context, baseURL);
    return this;
  }

  /** Whether the context and page can still take a session: open, connected, not crashed. */
  get usable(): boolean {
    return !this.crashedPages.has(this.page) && !this.page.isClosed() && this.context.browser()?.isConnected() !== false;
  }

  /**
   * Calls `onEnd` once with the reason when the context closes on its own (the browser crashed or
   * a remote browser went away: `WF_BROWSER_CLOSED`), the session's page crashes
   * (`WF_PAGE_CRASHED`; every later step would fail, so the session should end at once), or a page
   * that stopped responding could not be closed ({@link SessionBrowser.closeUnresponsivePage}).
   */
  watch(onEnd: (error: WireError) => void): void {
    let ended = false;
    this.onEnd = (error) => {
      if (ended) return;
      ended = true;
      onEnd(error);
    };
    this.context.once("close", () =>
      this.onEnd?.({ code: "WF_BROWSER_CLOSED", message: "The session's browser context closed unexpectedly (the browser crashed or disconnected). Create a new session." }),
    );
    const onCrash = (crashed: Page) => {
      if (crashed !== this.page) return;
      this.onEnd?.(crashedError(crashed));
    };
    this.page.on("crash", onCrash);
    this.context.on("page", (opened) => opened.on("crash", onCrash));
  }

  /** The page's URL, or undefined when it is closed. */
  currentUrl(): string | undefined {
    return this.page.isClosed() ? undefined : this.page.url();
  }

  /**
   * The liveness probe: whether the current page's main thread answers an evaluation within
   * `timeoutMs` (an answer that is an error, a page mid-navigation or closed, counts as an answer).
   * @returns false when it does not: a script spins, or a dialog is left open.
   */
  async responds(timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
    const page = this.page;
    if (page.isClosed() || this.crashedPages.has(page)) return true;
    return settlesWithin(page.evaluate(() => true), timeoutMs);
  }

  /**
   * Closes the current page, which stopped responding (its renderer is stopped with it), so the
   * session carries on: in the tab that was current before it, or, with no tab left, in a new blank
   * one the next step opens. When even the close does not answer within 5 s, the session ends
   * (`WF_PAGE_UNRESPONSIVE`, through {@link SessionBrowser.watch}'s `onEnd`).
   * @returns whether the page was closed.
   */
  async closeUnresponsivePage(error: WireError): Promise<boolean> {
    const page = this.page;
    const closed = await settlesWithin(page.close({ runBeforeUnload: false }), CLOSE_TIMEOUT_MS);
    if (!closed || !page.isClosed()) {
      this.onEnd?.({ ...error, message: `${error.message} The page could not be closed either, so the session ended. Create a new session.` });
      return false;
    }
    this.dialogs.reset();
    return true;
  }

  /**
   * Carries out one step with the interpreter: an ACT on the page (or the replay of recorded
   * actions), an ASK on the page or, with `currentDom`, on a scratch page of the same context.
   * An ASK's answer is checked against its schema. A step during which the page's renderer
   * crashed fails `WF_PAGE_CRASHED`, whatever the interpreter saw of it (a navigation `net::ERR_ABORTED`).
   * @throws what the interpreter throws; {@link StepExecutionError} `WF_ANSWER_INVALID`, `WF_PAGE_CRASHED`.
   */
  async interpret(
    interpreter: StepInterpreter,
    options: ResolvedServerOptions,
    input: BrowserStepInput,
    base: { timeoutMs: number; signal: AbortSignal; secrets: string[]; report: StepReport; allowModel?: boolean },
  ): Promise<unknown> {
    if (this.page.isClosed()) {
      const reopened = await within(this.tabs.reopen(), PAGE_OPEN_TIMEOUT_MS);
      if (reopened === TIMED_OUT) throw new StepExecutionError("WF_BROWSER_UNAVAILABLE", `The browser did not open a new tab within ${PAGE_OPEN_TIMEOUT_MS} ms. Create a new session.`);
    }
    await enterTraceGroups(this.context, input.groups ?? []);
    const page = this.page;
    try {
      return await this.carryOut(interpreter, options, input, base);
    } catch (error) {
      const crashed = await this.crashedDuring(page, error);
      if (crashed) throw new StepExecutionError("WF_PAGE_CRASHED", crashedError(crashed).message, { cause: error });
      throw error;
    }
  }

  /**
   * The page (`page`, or the current one) whose renderer crashed during a step that failed with
   * `error`, or undefined. Chromium may report the crash just after the navigation it broke
   * failed, so a failure that can be one is given {@link CRASH_EVENT_WAIT_MS} for it.
   */
  private async crashedDuring(page: Page, error: unknown): Promise<Page | undefined> {
    for (const candidate of [page, this.page]) if (this.crashedPages.has(candidate)) return candidate;
    const code = (error as { code?: unknown })?.code;
    const mayBeCrash = code === "WF_NAVIGATION_FAILED" || code === undefined || code === "WF_STEP_FAILED";
    if (!mayBeCrash || page.isClosed()) return undefined;
    const crash = new Promise<Page>((resolve) => page.once("crash", resolve));
    const crashed = await within(crash, CRASH_EVENT_WAIT_MS);
    return crashed === TIMED_OUT ? undefined : crashed;
  }

  private async carryOut(
    interpreter: StepInterpreter,
    options: ResolvedServerOptions,
    input: BrowserStepInput,
    base: { timeoutMs: number; signal: AbortSignal; secrets: string[]; report: StepReport; allowModel?: boolean; settleTimeoutMs?: number },
  ): Promise<unknown> {
    if (input.allowModel === false) base = { ...base, allowModel: false };
    base = { ...base, settleTimeoutMs: options.settleTimeoutMs };
    if (input.type === "ACT") {
      const started = performance.now();
      await this.tabs.ready();
      const uploads = input.files?.length ? await this.uploads.save(input.files) : undefined;
      const tabs = this.tabs;
      // The page follows the current tab: an action that opens a tab makes the next one act on it.
      const context: ActContext = {
        get page() {
          return tabs.current;
        },
        instruction: input.step,
        ...base,
        tabs,
        ...(uploads ? { uploads } : {}),
      };
      // What is left of the step's time once the page and its files are ready.
      context.timeoutMs = Math.max(1, base.timeoutMs - (performance.now() - started));
      try {
        const result = input.replay
          ? await replayActions(context, input.replay, { ...replayOptions(options, input.refind), tabs, ...(uploads ? { uploads } : {}) })
          : await interpreter.act(context);
        return await tabs.finishStep(result, base.timeoutMs - (performance.now() - started));
      } catch (error) {
        tabs.takeChanges();
        throw error;
      }
    }
    this.tabs.takeChanges();
    if (input.check) {
      if (!interpreter.check) throw new StepExecutionError("WF_CHECK_UNSUPPORTED", "This server's interpreter does not take checks.");
      const context = { page: this.page, statement: input.step, checkTimeoutMs: input.check.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, ...(input.deriveRecipe ? { deriveRecipe: true } : {}), ...base };
      return input.checkRecipe ? replayCheck(context, input.checkRecipe) : interpreter.check(context);
    }
    const schema = normalizeStepSchema(input.schema);
    let answer: unknown;
    if (input.currentDom !== undefined) {
      const scratch = await this.tabs.openScratch();
      try {
        await scratch.setContent(withBaseHref(input.currentDom, input.currentPageURL), { timeout: base.timeoutMs, waitUntil: "domcontentloaded" });
        const context = { page: scratch, question: input.step, ...(schema ? { schema } : {}), ...(input.deriveRecipe ? { deriveRecipe: true } : {}), ...base };
        answer = input.recipe ? await replayRead(context, input.recipe) : await interpreter.ask(context);
      } finally {
        await scratch.close().catch(() => undefined);
      }
    } else {
      const context = { page: this.page, question: input.step, ...(schema ? { schema } : {}), ...(input.deriveRecipe ? { deriveRecipe: true } : {}), ...base };
      answer = input.recipe ? await replayRead(context, input.recipe) : await interpreter.ask(context);
    }
    if (schema) validateAnswer(answer, schema.schema);
    return answer;
  }

  /**
   * Captures the page as a PNG through CDP `Page.captureScreenshot` with `optimizeForSpeed`
   * (faster encoding, larger file); see docs/benchmarks.md ("Server: screenshots") for the figures behind this choice.
   * When `mask` names elements on the page, Playwright's `page.screenshot({ mask })` paints
   * {@link MASK_COLOR} boxes over them instead (slower; see docs/server/security.md, "Secrets").
   * Never throws.
   * @returns `{ png }`, or `{ skipped }` saying why there is no picture: the page closed or crashed,
   *   the look-up of the fields to mask took over {@link MASK_TIMEOUT_MS}, or the capture over
   *   {@link SCREENSHOT_TIMEOUT_MS}.
   */
  async capture(mask?: (page: Page) => Promise<Locator[]>): Promise<{ png: Buffer } | { skipped: string }> {
    if (this.page.isClosed()) return { skipped: "the page was closed" };
    const page = this.page;
    try {
      // Elements a secret was typed into and password fields are painted over (see secrets.ts).
      // A page that does not say which gets no picture: an unmasked one could show a secret.
      const masked = mask ? await within(mask(page), MASK_TIMEOUT_MS) : [];
      if (masked === TIMED_OUT) return { skipped: `the page did not say within ${MASK_TIMEOUT_MS} ms which fields to mask` };
      if (masked.length > 0) return { png: await page.screenshot({ type: "png", mask: masked, maskColor: MASK_COLOR, timeout: SCREENSHOT_TIMEOUT_MS }) };
      let cdp = this.cdpSessions.get(page);
      if (!cdp) {
        cdp = page.context().newCDPSession(page);
        this.cdpSessions.set(page, cdp);
      }
      const shot = await within((await cdp).send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true }), SCREENSHOT_TIMEOUT_MS);
      if (shot === TIMED_OUT) throw new Error(`the capture took over ${SCREENSHOT_TIMEOUT_MS} ms`);
      return { png: Buffer.from(shot.data, "base64") };
    } catch (error) {
      this.cdpSessions.delete(page);
      return { skipped: error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error) };
    }
  }

  /**
   * Makes the context record the session's Playwright trace titled `title`, or none (`undefined`).
   * A context opened ahead may already record it (`browser/prelaunch.ts`): that trace is kept when its
   * title is the session's, and stopped unsaved otherwise (then started again under `title`).
   * Starting one: see `browser/tracing.ts`, `startTracing`. On failure the context is closed and the
   * error rethrown: a session that asked for a trace never runs without one.
   */
  async trace(title: string | undefined): Promise<void> {
    const recording = tracingTitle(this.context);
    if (recording === title) return;
    if (recording !== undefined) await discardTrace(this.context);
    if (title === undefined) return;
    await startTracing(this.context, title).catch(async (error: unknown) => {
      await this.close();
      throw error;
    });
  }

  /**
   * Saves the trace, when the context records one, to `<dataDir>/traces/<sessionId>.zip`,
   * scrubbed of the session's `secrets` (see `browser/tracing.ts`, `saveTrace`); call it before
   * {@link SessionBrowser.close}. Never throws: a trace that can't be saved is missing.
   */
  async saveTrace(dataDir: string, sessionId: string, secrets: TraceScrubber & { any: boolean }): Promise<void> {
    await saveTrace(this.context, tracePath(dataDir, sessionId), secrets);
  }

  /** Stops the trace unsaved, when the context records one (a client that will not keep it). Never throws. */
  async discardTrace(): Promise<void> {
    await discardTrace(this.context);
  }

  /**
   * Closes the context (and its pages) and deletes the files its steps brought. Never throws.
   * @returns false when the context did not close within 5 s (it is left to the browser).
   */
  async close(): Promise<boolean> {
    this.downloads.close();
    const closed = await settlesWithin(this.context.close(), CLOSE_TIMEOUT_MS);
    await this.uploads.close();
    return closed;
  }
}

/** The error of a session whose page crashed. */
function crashedError(page: Page): WireError {
  return { code: "WF_PAGE_CRASHED", message: `The session's page crashed (its renderer process died) at ${page.url() || "about:blank"}. Create a new session.` };
}

/** The file of a step's screenshot: `<dir>/<stepId>.png`. */
export function screenshotFile(dir: string, stepId: string): string {
  return join(dir, `${stepId}.png`);
}

/** Writes a captured PNG to `<dir>/<stepId>.png`. @returns whether it did (a full or read-only disk: false). */
export async function saveScreenshot(dir: string, stepId: string, png: Buffer): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    // Written aside and renamed: a failed write (a full disk) leaves no empty or partial picture.
    const file = screenshotFile(dir, stepId);
    const partial = `${file}.${process.pid}-${Date.now()}.tmp`;
    try {
      await writeFile(partial, png);
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true }).catch(() => undefined);
      throw error;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks an ASK's answer against the step's JSON Schema (converted with zod 4's
 * `z.fromJSONSchema`). A schema zod can't convert is not checked.
 * @throws {@link StepExecutionError} `WF_ANSWER_INVALID` listing each mismatch as a JSON Pointer.
 */
export function validateAnswer(answer: unknown, schema: Record<string, unknown>): void {
  const errors = answerErrors(answer, schema);
  if (errors.length > 0) {
    throw new StepExecutionError(
      "WF_ANSWER_INVALID",
      `The answer does not match the step's schema: ${errors.map((e) => `${e.path || "(root)"} ${e.message}`).join("; ")}`,
      { details: { errors, answer } },
    );
  }
}

/** Puts `<base href>` into HTML so its relative links resolve against `baseUrl`. */
export function withBaseHref(html: string, baseUrl: string | undefined): string {
  if (!baseUrl) return html;
  const base = `<base href="${baseUrl.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">`;
  if (/<head[^>]*>/i.test(html)) return html.replace(/<head[^>]*>/i, (head) => head + base);
  return base + html;
}

function toProxySettings(proxy: string | NonNullable<BrowserContextOptions["proxy"]>): NonNullable<BrowserContextOptions["proxy"]> {
  if (typeof proxy !== "string") return proxy;
  const url = new URL(proxy);
  const settings: NonNullable<BrowserContextOptions["proxy"]> = { server: `${url.protocol}//${url.host}` };
  if (url.username) settings.username = decodeURIComponent(url.username);
  if (url.password) settings.password = decodeURIComponent(url.password);
  return settings;
}

/**
 * One browser context and page opened ahead of the next session, so creating a session does not
 * wait for Chromium to make them. Only for sessions without a proxy (a proxy is set when the
 * context is made). The context is new and unused until it is taken: no cookie, storage or
 * history of another session can be in it. After each take the next one is opened in the
 * background, unless `options.warmSessions` is `"first"` (then only the first session gets one).
 */
export class WarmSessionBrowser {
  private next: Promise<SessionBrowser | undefined> | undefined;
  private closed = false;

  constructor(
    private readonly browser: BrowserHost,
    private readonly options: ResolvedServerOptions,
  ) {}

  /** Starts opening one, unless one is open or opening. */
  fill(): void {
    if (this.closed || this.next) return;
    this.next = SessionBrowser.open(this.browser, this.options).catch(() => undefined);
  }

  /**
   * The context and page opened ahead, then starts opening the next (with `warmSessions: "first"`,
   * none: no more are opened). One still opening is waited for rather than a second one opened
   * beside it, which on a loaded machine would only slow both (its page has 15 s to open,
   * {@link SessionBrowser.open}). @returns undefined when there is none, it failed, or it is no
   * longer usable (it is then closed).
   */
  async take(): Promise<SessionBrowser | undefined> {
    const next = this.next;
    this.next = undefined;
    const opened = await next;
    if (this.options.warmSessions === "first") this.closed = true;
    else this.fill();
    if (opened && !opened.usable) {
      await opened.close();
      return undefined;
    }
    return opened;
  }

  /** Closes the one opened ahead; no more are opened. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const next = this.next;
    this.next = undefined;
    await (await next)?.close();
  }
}
