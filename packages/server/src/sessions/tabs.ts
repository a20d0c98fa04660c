/**
 * The tabs of a session: the pages of its browser context in opening order, which one is current,
 * and what changed during a step. A tab or popup the page opens (a `target=_blank` link,
 * `window.open`) is followed at once: it becomes the current page, as a person's browser would
 * show it. A closed current tab falls back to the tab that was current before it. Interpreters
 * drive it through the {@link TabsController} of their `ActContext` (`switch to the "…" tab`,
 * `close this tab`).
 */
import type { BrowserContext, Page } from "playwright-core";
import { InterpreterError } from "../interpreter/index.js";
import type { ActResult, TabChange, TabInfo, TabSelector, TabsController } from "../interpreter/index.js";

/** Longest a tab's title may take to read, in ms (a busy page answers late; its URL still names it). */
const TITLE_TIMEOUT_MS = 1_000;

/**
 * Longest an action waits for a tab the browser announced (`Page.windowOpen`) to arrive, in ms.
 * It arrives ~10 ms after the click returns; a `window.open` into a window that is already open
 * announces one that never arrives.
 */
const OPENING_WAIT_MS = 3_000;

/** The tabs of one session's browser context. */
export class SessionTabs implements TabsController {
  /** Open tabs, in opening order. */
  private readonly pages: Page[] = [];
  /** Tabs in the order they were last current, most recent last: where a closed current tab falls back to. */
  private readonly history: Page[] = [];
  /** Pages the session opens for itself (an ASK's scratch page): not tabs. */
  private readonly own = new WeakSet<Page>();
  /** Pages the session is opening for itself right now (their `page` event comes before `newPage` resolves). */
  private opening = 0;
  /** Changes since the last {@link SessionTabs.finishStep}. */
  private changes: Array<TabChange["change"]> = [];
  private currentPage: Page;
  /** Tabs the browser announced (`Page.windowOpen`) that have not arrived yet. */
  private announced = 0;
  /** Called when a tab arrives. */
  private arrived: Array<() => void> = [];
  /** The `Page.windowOpen` watcher of each tab, set up when it is tracked. */
  private readonly watchers = new WeakMap<Page, Promise<unknown>>();

  constructor(
    private readonly context: BrowserContext,
    first: Page,
  ) {
    this.currentPage = first;
    this.track(first);
    this.history.push(first);
    context.on("page", (page) => {
      if (this.opening > 0 || this.own.has(page)) {
        this.own.add(page);
        return;
      }
      if (this.pages.includes(page)) return;
      this.track(page);
      // Followed at once, as a browser shows a new tab: the next action acts on it.
      this.makeCurrent(page);
      this.changes.push("opened");
      this.announced = Math.max(0, this.announced - 1);
      for (const done of this.arrived.splice(0)) done();
    });
  }

  /** Resolves once the current tab's watcher for tabs it opens is set up (before an ACT acts). */
  async ready(): Promise<void> {
    await this.watchers.get(this.currentPage);
  }

  /**
   * After an action: when the browser announced a tab the action opened (a `target=_blank` link,
   * `window.open`) that has not arrived yet, waits for it (up to 3 s, within `timeoutMs`), so the
   * next action, or the step's result, is on it. Returns at once otherwise.
   */
  async settle(timeoutMs: number): Promise<void> {
    if (this.announced === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.arrived.push(resolve);
      timer = setTimeout(resolve, Math.max(1, Math.min(timeoutMs, OPENING_WAIT_MS)));
    });
    clearTimeout(timer);
    this.announced = 0;
    await this.currentPage.waitForLoadState("domcontentloaded", { timeout: Math.max(1, Math.min(timeoutMs, OPENING_WAIT_MS)) }).catch(() => undefined);
  }

  /** The session's current page. */
  get current(): Page {
    return this.currentPage;
  }

  /** Opens a page of the context that is not a tab (an ASK's scratch page); the caller closes it. */
  async openScratch(): Promise<Page> {
    this.opening += 1;
    try {
      const page = await this.context.newPage();
      this.own.add(page);
      return page;
    } finally {
      this.opening -= 1;
    }
  }

  /** Opens a new tab and makes it current (when every tab was closed). */
  async reopen(): Promise<Page> {
    this.opening += 1;
    let page: Page;
    try {
      page = await this.context.newPage();
    } finally {
      this.opening -= 1;
    }
    this.track(page);
    this.makeCurrent(page);
    return page;
  }

  async list(): Promise<TabInfo[]> {
    return Promise.all(this.pages.map(async (page, i) => ({ index: i + 1, title: await titleOf(page), url: page.url(), current: page === this.currentPage })));
  }

  async switchTo(which: TabSelector, timeoutMs: number): Promise<TabChange> {
    const page = await this.find(which, "switch to");
    this.makeCurrent(page);
    this.changes.push("switched");
    await page.bringToFront().catch(() => undefined);
    await page.waitForLoadState("domcontentloaded", { timeout: Math.max(1, timeoutMs) }).catch(() => undefined);
    return this.describe();
  }

  async close(which: TabSelector, timeoutMs: number): Promise<TabChange> {
    const page = await this.find(which, "close");
    if (this.pages.length === 1) {
      throw new InterpreterError(
        "WF_TAB_CLOSE_REFUSED",
        `Refused to close ${await label(page, 1)}: it is the session's only tab, and a session keeps one. Go to another page instead (\`go to "…"\`), or close the session.`,
      );
    }
    this.forget(page);
    this.changes.push("closed");
    await page.close({ runBeforeUnload: false }).catch(() => undefined);
    await this.currentPage.bringToFront().catch(() => undefined);
    await this.currentPage.waitForLoadState("domcontentloaded", { timeout: Math.max(1, timeoutMs) }).catch(() => undefined);
    return this.describe();
  }

  /**
   * Ends an ACT: when the tabs changed during it (or since the last step), waits for the current
   * tab's `domcontentloaded` (within `timeoutMs`) and adds `tab` (the current tab after the last
   * change), its URL and a note to the result.
   */
  async finishStep(result: ActResult, timeoutMs: number): Promise<ActResult> {
    const changes = this.takeChanges();
    if (changes.length === 0) return result;
    await this.currentPage.waitForLoadState("domcontentloaded", { timeout: Math.max(1, timeoutMs) }).catch(() => undefined);
    const tab = await this.describe(changes[changes.length - 1]!);
    const said = changes.includes("opened") && tab.change !== "switched" ? `${changes.filter((c) => c === "opened").length > 1 ? "tabs opened" : "a new tab opened"}` : `tab ${tab.change}`;
    // An action that switched or closed tabs says so in its own message already.
    const note = result.action === "switch" || result.action === "close" ? "" : ` (${said}; now on tab ${tab.index} of ${tab.count}: ${JSON.stringify(tab.title)} at ${tab.url})`;
    return { ...result, message: result.message + note, url: tab.url, tab };
  }

  /** Forgets the changes noted so far (a failed step, an ASK). @returns them, oldest first. */
  takeChanges(): Array<TabChange["change"]> {
    const changes = this.changes;
    this.changes = [];
    return changes;
  }

  /** The current tab, as a step result reports it. */
  private async describe(change: TabChange["change"] = this.changes[this.changes.length - 1] ?? "switched"): Promise<TabChange> {
    const page = this.currentPage;
    return { change, index: this.pages.indexOf(page) + 1, count: this.pages.length, url: page.url(), title: await titleOf(page) };
  }

  private track(page: Page): void {
    this.pages.push(page);
    // Chromium says a page is opening a window (`Page.windowOpen`) before the click that opened it
    // returns; Playwright's `page` event comes ~10 ms after. Without a CDP session (another
    // browser) tabs are still followed, only not waited for.
    this.watchers.set(
      page,
      this.context
        .newCDPSession(page)
        .then(async (cdp) => {
          cdp.on("Page.windowOpen", () => (this.announced += 1));
          await cdp.send("Page.enable");
        })
        .catch(() => undefined),
    );
    page.once("close", () => {
      if (!this.pages.includes(page)) return;
      this.forget(page);
      this.changes.push("closed");
    });
  }

  private makeCurrent(page: Page): void {
    this.currentPage = page;
    const at = this.history.indexOf(page);
    if (at >= 0) this.history.splice(at, 1);
    this.history.push(page);
  }

  /** Drops a tab that is closing; a current one falls back to the tab current before it. */
  private forget(page: Page): void {
    this.pages.splice(this.pages.indexOf(page), 1);
    const at = this.history.indexOf(page);
    if (at >= 0) this.history.splice(at, 1);
    if (page === this.currentPage) {
      const previous = this.history[this.history.length - 1] ?? this.pages[this.pages.length - 1];
      // With no tab left the closed page stays current; the next step opens a new one.
      if (previous) this.currentPage = previous;
    }
  }

  /** The tab a selector names. @throws {@link InterpreterError} `WF_TAB_NOT_FOUND`, `WF_TAB_AMBIGUOUS` */
  private async find(which: TabSelector, doing: string): Promise<Page> {
    if ("current" in which) return this.currentPage;
    const tabs = await this.list();
    const open = () => tabs.map((t) => `${t.index}. ${JSON.stringify(t.title)} (${t.url})${t.current ? " (current)" : ""}`).join("; ");
    const details = { tabs: tabs.map(({ index, title, url }) => ({ index, title, url })) };
    if ("index" in which) {
      const i = which.index === -1 ? tabs.length : which.index;
      const page = this.pages[i - 1];
      if (i >= 1 && page) return page;
      throw new InterpreterError("WF_TAB_NOT_FOUND", `Cannot ${doing} tab ${which.index}: the session has ${tabs.length} tab${tabs.length === 1 ? "" : "s"} open: ${open()}.`, details);
    }
    const wanted = fold(which.text);
    const levels: Array<(t: TabInfo) => boolean> = [(t) => fold(t.title) === wanted, (t) => fold(t.title).includes(wanted), (t) => fold(t.url).includes(wanted)];
    for (const matches of levels) {
      const found = wanted ? tabs.filter(matches) : [];
      if (found.length === 1) return this.pages[found[0]!.index - 1]!;
      if (found.length > 1) {
        throw new InterpreterError(
          "WF_TAB_AMBIGUOUS",
          `Cannot ${doing} the ${JSON.stringify(which.text)} tab: ${found.length} tabs match it: ${found.map((t) => `${t.index}. ${JSON.stringify(t.title)} (${t.url})`).join("; ")}. Name it more precisely, or by position (\`${doing} the second tab\`).`,
          details,
        );
      }
    }
    throw new InterpreterError(
      "WF_TAB_NOT_FOUND",
      `Cannot ${doing} the ${JSON.stringify(which.text)} tab: no open tab has it in its title or URL. Open tabs: ${open()}. ` +
        `(To click a tab of the page itself, write \`click the "${which.text}" tab\`.)`,
      details,
    );
  }
}

/** A tab's title, or "" when the page does not answer within 1 s (busy, closing). */
async function titleOf(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(""), TITLE_TIMEOUT_MS)));
  try {
    return await Promise.race([page.title().catch(() => ""), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function label(page: Page, index: number): Promise<string> {
  return `tab ${index} (${JSON.stringify(await titleOf(page))}, ${page.url()})`;
}

function fold(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}
