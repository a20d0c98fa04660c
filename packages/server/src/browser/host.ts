/**
 * The server's one browser: launched from a system Chromium with playwright-core, or connected
 * over CDP to one that runs elsewhere (`browserEndpoint`). Relaunches (or reconnects) on demand
 * after the browser went away, so one crash doesn't take the service down for good.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { BrowserNotFoundError, HttpProblem } from "../errors.js";

/** Flags for a headless Chromium in containers and CI. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/**
 * Where Playwright's own Chromium lives once `wf install-browser` (`playwright install chromium`)
 * downloaded it: under `PLAYWRIGHT_BROWSERS_PATH`, else `~/.cache/ms-playwright`. The path is
 * returned whether or not the browser is there; `undefined` on a platform Playwright has no build for.
 */
export function playwrightChromiumPath(): string | undefined {
  try {
    return chromium.executablePath() || undefined;
  } catch {
    return undefined;
  }
}

/** Wait the client is told to leave before retrying when the browser is unavailable, in ms. */
export const BROWSER_RETRY_AFTER_MS = 5_000;

/**
 * Longest a new context's page may take to open, in ms, and (for the context opened ahead,
 * {@link BrowserHost.openAhead}) its `prepare` after it. Chromium can leave `newPage` waiting for
 * good: seen when another context's renderer crashed while the page was being made.
 */
export const PAGE_OPEN_TIMEOUT_MS = 15_000;

/** `promise`'s value, or rejects with `Error(message)` once `ms` have passed first. */
async function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link BrowserHost} needs of the server's options (`ResolvedServerOptions` has them all). */
export interface BrowserHostOptions {
  /** The Chromium to launch; undefined: the first of `chromiumCandidates` that exists. */
  chromiumPath: string | undefined;
  chromiumCandidates: string[];
  /** A CDP endpoint to connect to instead of launching. */
  browserEndpoint: string | undefined;
  /** Show the window. @default false */
  headed?: boolean;
  /** Slow each browser operation down by this many ms. @default 0 */
  slowMoMs?: number;
}

/** A browser context and its page, opened ahead of a session ({@link BrowserHost.openAhead}). */
export interface OpenedAhead {
  context: BrowserContext;
  page: Page;
}

/** Who hears of the browser's launches and of it going away (the server's telemetry). */
export interface BrowserObserver {
  /** The browser was launched or connected (a second time: relaunched after it went away). */
  launched(): void;
  /** The browser went away while the host was not closing it (a crash, a kill, a lost remote browser). */
  crashed(): void;
}

/** Owns the browser process (or CDP connection) and makes browser contexts from it. */
export class BrowserHost {
  private browser: Browser | undefined;
  private observer: BrowserObserver | undefined;
  /** Launches made before an observer was set, told to it when it is. */
  private unobservedLaunches = 0;
  private starting: Promise<Browser> | undefined;
  private closed = false;
  /** The plain context and page of {@link openAhead}; undefined before, and once taken. */
  private ahead: Promise<OpenedAhead | undefined> | undefined;
  private aheadAsked = false;
  /** Whether the context of {@link openAhead} got ready; false until it is asked for. */
  private aheadReady: Promise<boolean> = Promise.resolve(false);

  constructor(private readonly options: BrowserHostOptions) {}

  /**
   * Launches or connects the browser.
   * @throws {@link BrowserNotFoundError} (`WF_BROWSER_NOT_FOUND`) when no Chromium is found or it fails to start.
   */
  async start(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.starting ??= this.launch().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async launch(): Promise<Browser> {
    const { browserEndpoint, chromiumPath, chromiumCandidates } = this.options;
    let browser: Browser;
    if (browserEndpoint) {
      try {
        browser = await chromium.connectOverCDP(browserEndpoint);
      } catch (error) {
        throw new BrowserNotFoundError([browserEndpoint], `could not connect over CDP to ${browserEndpoint}: ${(error as Error).message.split("\n")[0]}`, { cause: error });
      }
    } else {
      if (!chromiumPath) throw new BrowserNotFoundError(chromiumCandidates);
      try {
        // The server owns signal handling (main.ts closes sessions, then the browser).
        browser = await chromium.launch({
          executablePath: chromiumPath,
          args: [...CHROMIUM_ARGS],
          headless: !this.options.headed,
          ...(this.options.slowMoMs ? { slowMo: this.options.slowMoMs } : {}),
          handleSIGINT: false,
          handleSIGTERM: false,
          handleSIGHUP: false,
        });
      } catch (error) {
        throw new BrowserNotFoundError([chromiumPath], `it failed to start: ${(error as Error).message.split("\n")[0]}`, { cause: error });
      }
    }
    this.browser = browser;
    browser.on("disconnected", () => {
      if (this.browser === browser) this.browser = undefined;
      if (!this.closed) this.observer?.crashed();
    });
    if (this.observer) this.observer.launched();
    else this.unobservedLaunches += 1;
    return browser;
  }

  /** Tells `observer` of every launch (those made before now included) and of the browser going away. */
  observe(observer: BrowserObserver): void {
    this.observer = observer;
    for (; this.unobservedLaunches > 0; this.unobservedLaunches--) observer.launched();
  }

  /**
   * A new browser context (with its options, e.g. `proxy`).
   * @throws {@link HttpProblem} `WF_BROWSER_UNAVAILABLE` (503) when the browser can't be (re)started or refuses the context.
   */
  async newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    if (this.closed) throw new HttpProblem("WF_BROWSER_UNAVAILABLE", "The server is shutting down; no new session can start.", { retryAfterMs: BROWSER_RETRY_AFTER_MS });
    try {
      const browser = await this.start();
      return await browser.newContext(options);
    } catch (error) {
      throw new HttpProblem("WF_BROWSER_UNAVAILABLE", `The browser is unavailable: ${(error as Error).message.split("\n")[0]} Retry later.`, {
        retryAfterMs: BROWSER_RETRY_AFTER_MS,
        cause: error,
      });
    }
  }

  /**
   * Opens one plain browser context and page (no proxy, service workers allowed) as soon as the
   * browser is up, for the first session that needs no more than that ({@link takeOpenedAhead}).
   * `wf run` asks for it through `prelaunchBrowser`, so Chromium opens the page (its renderer
   * process, the slowest part of a session create) while the rest of the server loads. Once per
   * host; a failure is silent (the session then opens its own). The page and `prepare` have
   * {@link PAGE_OPEN_TIMEOUT_MS} each; past it the context is closed and none is opened ahead.
   *
   * @param prepare - runs on the context once its page is open, before it can be taken (`wf run`:
   *   the session's trace started, `prelaunch.ts`); when it rejects, the context is closed and
   *   none is opened ahead.
   */
  openAhead(prepare?: (context: BrowserContext) => Promise<void>): void {
    if (this.closed || this.aheadAsked) return;
    this.aheadAsked = true;
    let opening: BrowserContext | undefined;
    const ahead = this.newContext().then(async (context) => {
      opening = context;
      const page = await withDeadline(context.newPage(), PAGE_OPEN_TIMEOUT_MS, `The page opened ahead took over ${PAGE_OPEN_TIMEOUT_MS} ms.`);
      if (prepare) await withDeadline(prepare(context), PAGE_OPEN_TIMEOUT_MS, `Preparing the context opened ahead took over ${PAGE_OPEN_TIMEOUT_MS} ms.`);
      return { context, page };
    });
    this.ahead = ahead.catch(() => {
      // Not awaited: a context whose page hung may not close either.
      void opening?.close().catch(() => undefined);
      return undefined;
    });
    this.aheadReady = this.ahead.then((opened) => opened !== undefined);
  }

  /**
   * Resolves once the context of {@link openAhead} is settled: true when it got ready (its page
   * open, `prepare` done, e.g. `wf run`'s trace started), false when it failed or none was asked
   * for. It does not take the context, and a session taking it does not change the answer.
   */
  openedAheadReady(): Promise<boolean> {
    return this.aheadReady;
  }

  /**
   * The context and page of {@link openAhead}, once, waiting for them while they are still being
   * opened (at most the launch and {@link PAGE_OPEN_TIMEOUT_MS} twice: opening a second context
   * meanwhile would only compete with this one for the same browser and CPU). Undefined when none
   * was asked for, it failed or took too long (then closed), or it is no longer usable (then
   * closed). The caller owns what it gets.
   */
  async takeOpenedAhead(): Promise<OpenedAhead | undefined> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (!ahead) return undefined;
    const opened = await ahead;
    if (opened && (opened.page.isClosed() || !opened.context.browser()?.isConnected())) {
      await opened.context.close().catch(() => undefined);
      return undefined;
    }
    return opened;
  }

  /** How many browser contexts are open: the sessions' and the one opened ahead of the next session. 0 before the browser started. */
  get contextCount(): number {
    return this.browser?.contexts().length ?? 0;
  }

  /** Closes the browser (or the CDP connection). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser ?? (await this.starting?.catch(() => undefined));
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
  }
}
