/**
 * The deterministic step interpreter: plain instructions, no model, no network. ACT parses the
 * instruction with the grammar of `./grammar.ts` and drives the page with Playwright; ASK reads the
 * page once and builds the answer with `./ask.ts`.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { z } from "zod";
import { redactText } from "@wf/core";
import { InterpreterError } from "./errors.js";
import { parseInstructions, type ParsedAction, type TargetSpec } from "./grammar.js";
import { childRoots, framePhrase } from "./frames.js";
import { isNavigationRace, locateTarget, QUIET_MS, waitForSettled, type FoundElement, type TargetPurpose } from "./locate.js";
import { answerFromPage, answerTextFromPage } from "./ask.js";
import { extractPage, listSelectOptions, scrollPage, type PageData } from "./_page-scripts.js";
import { words } from "./_text.js";
import type { ActContext, ActResult, AskContext, ElementIdentity, StepInterpreter, TabsController } from "./types.js";
import { StepClock } from "./_clock.js";
import { grammarCheck } from "./check.js";

/** Options of {@link createDeterministicInterpreter}; all optional. */
export interface DeterministicInterpreterOptions {
  /**
   * Directory that `upload "path" to "field"` resolves paths against; a path that resolves
   * outside it (also through a symlink) is refused with `WF_UPLOAD_REFUSED`. @default process.cwd()
   */
  uploadRoot?: string;
  /**
   * How long an ACT waits for its target element to appear before failing with
   * `WF_ELEMENT_NOT_FOUND`, in ms; capped by the step's time left. @default 5_000
   */
  findTimeoutMs?: number;
  /**
   * Whether steps may open local files (`file:` URLs): `go to "file:///…"`, and a click (or any
   * action) that lands on a `file:` page. When false, such a step fails with
   * `WF_NAVIGATION_REFUSED`; a server that others reach must not read its own disk for them.
   * `wf run`'s embedded server turns it on (the examples read the PostgreSQL docs from disk).
   * Whatever this says, `go to` opens only http(s), `about:blank`, `data:` (and `file:` when allowed).
   * @default false
   */
  allowFileUrls?: boolean;
}

/**
 * Creates the deterministic interpreter.
 *
 * @example
 * const interpreter = createDeterministicInterpreter({ uploadRoot: "/srv/uploads" });
 * await interpreter.act({ page, instruction: 'click "Sign in"', timeoutMs: 30_000, signal });
 * @throws (from `act`/`ask`) {@link InterpreterError} with codes `WF_INSTRUCTION_NOT_UNDERSTOOD`,
 *   `WF_ELEMENT_NOT_FOUND`, `WF_ELEMENT_AMBIGUOUS`, `WF_ANSWER_NOT_FOUND`, `WF_ANSWER_UNCERTAIN`, `WF_NAVIGATION_FAILED`,
 *   `WF_NAVIGATION_REFUSED`, `WF_STEP_TIMEOUT`, `WF_UPLOAD_REFUSED`.
 */
export function createDeterministicInterpreter(options: DeterministicInterpreterOptions = {}): StepInterpreter {
  const uploadRoot = path.resolve(options.uploadRoot ?? process.cwd());
  const findTimeoutMs = options.findTimeoutMs ?? 5_000;
  const allowFileUrls = options.allowFileUrls ?? false;

  return {
    async act(context: ActContext): Promise<ActResult> {
      context.report.interpreter = "grammar";
      const actions = parseInstructions(context.instruction);
      context.report.resolved = context.instruction;
      const clock = new StepClock(context.timeoutMs, context.signal);
      const done = await clock.guard(async () => {
        const results: ActionDone[] = [];
        for (const [index, action] of actions.entries()) {
          const findMs = index === 0 ? Math.min(findTimeoutMs, context.firstFindTimeoutMs ?? Infinity) : findTimeoutMs;
          results.push(
            await performAction(context.page, action, clock, {
              uploadRoot,
              findTimeoutMs: findMs,
              allowFileUrls,
              ...(context.tabs ? { tabs: context.tabs } : {}),
              ...(context.uploads ? { uploads: context.uploads } : {}),
            }).catch((error: unknown) => {
              // Says how far a chained instruction got: a policy may only hand over a step nothing has changed yet.
              if (error instanceof InterpreterError && actions.length > 1) error.details.actionIndex = index;
              throw error;
            }),
          );
          // Whatever navigated (a link, Enter in a form, the page's own script), a refused local file is not left open.
          if (!allowFileUrls && isFileUrl(context.page.url())) await leaveRefusedPage(context.page, clock);
        }
        return results;
      });
      // A chained instruction reports its last action, and every action's message.
      const last = done[done.length - 1]!;
      return { ...last, message: done.map((d) => d.message).join("; "), url: context.page.url() };
    },

    async ask(context: AskContext): Promise<unknown> {
      context.report.interpreter = "grammar";
      const clock = new StepClock(context.timeoutMs, context.signal);
      return clock.guard(async () => {
        const read = async () => {
          await context.page.waitForLoadState("domcontentloaded", { timeout: clock.left() }).catch(() => undefined);
          return readFrames(context.page, (await context.page.evaluate(extractPage)) as PageData);
        };
        // A page still navigating destroys the evaluation's context; read again once it has loaded.
        const data = await read().catch((error: unknown) => (isNavigationRace(error) ? read() : Promise.reject(error)));
        try {
          if (!context.schema) return answerTextFromPage(data, context.question);
          const answer = answerFromPage(data, context.question, context.schema.schema);
          checkAnswer(answer, context.schema.schema);
          return answer;
        } catch (error) {
          throw scrubSecrets(error, context.secrets);
        }
      });
    },

    check: grammarCheck,
  };
}

/**
 * Adds what the page's shown iframes show (same-origin and cross-origin, nested ones too) to what
 * its main frame shows: each frame is read with {@link extractPage} on its own and appended after
 * the main frame's data, frames in document order. A table or list without a caption or heading
 * of its own takes its frame's name as its context. A frame that cannot be read (navigating,
 * detached) is left out. The page's own data, unchanged, when it has no frames.
 */
async function readFrames(page: Page, data: PageData): Promise<PageData> {
  const roots = await childRoots(page).catch(() => []);
  for (const root of roots) {
    const inner = (await root.frame!.evaluate(extractPage).catch(() => undefined)) as PageData | undefined;
    if (!inner) continue;
    const where = root.frames[0]!.label || framePhrase(root.frames);
    data.headings.push(...inner.headings);
    data.pairs.push(...inner.pairs);
    data.tables.push(...inner.tables.map((t) => ({ ...t, context: t.context || where })));
    data.groups.push(...inner.groups.map((g) => ({ ...g, context: g.context || where })));
    data.counters = [...(data.counters ?? []), ...(inner.counters ?? [])];
    data.checklists = [...(data.checklists ?? []), ...(inner.checklists ?? []).map((c) => ({ ...c, context: c.context || where }))];
    if (inner.mainText) data.mainText = `${data.mainText}\n${inner.mainText}`.slice(0, 20_000);
  }
  return data;
}

/**
 * An ASK error quotes parts of the question; a secret the workflow interpolated there must not
 * leave in another form than the server redacts (its words lower-cased and re-joined). Replaces
 * each secret, as written and as normalised words, with `[secret]` in the message and details.
 */
function scrubSecrets(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof InterpreterError) || !secrets.some((s) => s.length > 0)) return error;
  const forms = secrets.filter((s) => s.length > 0).flatMap((s) => [s, words(s).join(" ")]).filter((f) => f.length > 0);
  const scrub = (text: string) => redactText(text, forms);
  const details = { ...error.details, ...(error.details.part !== undefined ? { part: scrub(error.details.part) } : {}) };
  return new InterpreterError(error.code, scrub(error.message), details, { cause: error.cause });
}

/** Validates the answer against the JSON Schema (zod's `fromJSONSchema`); a mismatch is a bug here, reported as such. */
function checkAnswer(answer: unknown, schema: Record<string, unknown>): void {
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return; // A construct zod cannot read back: the answer was still built from the schema.
  }
  const result = validator.safeParse(answer);
  if (!result.success) {
    throw new InterpreterError(
      "WF_ANSWER_NOT_FOUND",
      `The answer read from the page does not fit the schema: ${result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}.`,
      { fields: result.error.issues.map((i) => i.path.join(".") || "(root)") },
    );
  }
}

/** How {@link performAction} runs: the interpreter's options, and how a target is found. */
export interface PerformOptions {
  uploadRoot: string;
  findTimeoutMs: number;
  allowFileUrls: boolean;
  /**
   * Finds the element a target names. @default the grammar's {@link locateTarget}. The model
   * interpreter passes one that returns the element the model referred to.
   */
  locate?: (target: TargetSpec, purpose: TargetPurpose, waitMs: number) => Promise<FoundElement>;
  /** The step's tabs (`switch to the … tab`, `close this tab`); without it those verbs fail `WF_TAB_NOT_FOUND`. */
  tabs?: TabsController;
  /** Files the step brought (path as the instruction names it → local file); `upload` looks here before `uploadRoot`. */
  uploads?: ReadonlyMap<string, string>;
}

const HOW_TO_ALLOW_FILES =
  "This server does not open local files. To allow it, start the server with allowFileUrls " +
  "(`wf serve --allow-file-urls`, or WF_ALLOW_FILE_URLS=1); `wf run`'s embedded server allows them.";

function isFileUrl(url: string): boolean {
  return /^file:/i.test(url.trim());
}

/**
 * Refuses a URL `go to` (or a link) must not open: `file:` unless `allowFileUrls`, and any scheme
 * but http(s), `about:blank` and `data:`.
 * @throws {@link InterpreterError} `WF_NAVIGATION_REFUSED`
 */
function checkNavigable(url: string, allowFileUrls: boolean): void {
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
async function leaveRefusedPage(page: Page, clock: StepClock): Promise<never> {
  const url = page.url();
  await page.goBack({ timeout: clock.left() }).catch(() => null);
  if (page.url() === url) await page.goto("about:blank", { timeout: clock.left() }).catch(() => null);
  throw new InterpreterError("WF_NAVIGATION_REFUSED", `The action led to ${url}, a local file; went back to ${page.url()}. ${HOW_TO_ALLOW_FILES}`, { url });
}

/** What one action did; `url` is added by the caller once every action ran. */
export type ActionDone = Omit<ActResult, "url">;

/**
 * Carries out one parsed action on the page with Playwright: the grammar's verbs, shared by every
 * interpreter so an action means the same whoever resolved it.
 * @throws {@link InterpreterError} (every code but `WF_INSTRUCTION_NOT_UNDERSTOOD`).
 */
export async function performAction(page: Page, action: ParsedAction, clock: StepClock, options: PerformOptions): Promise<ActionDone> {
  const waitMs = () => Math.min(options.findTimeoutMs, clock.left());
  const notes: string[] = [];
  const find = async (target: TargetSpec, purpose: TargetPurpose) => {
    const el = await (options.locate ? options.locate(target, purpose, waitMs()) : locateTarget(page, target, purpose, waitMs(), clock.signal));
    if (el.note) notes.push(el.note);
    return el;
  };
  const done = await perform(page, action, clock, options, find);
  // A tab the action opened (a target=_blank link, window.open) is where the next action happens.
  await options.tabs?.settle(clock.left());
  return notes.length ? { ...done, message: `${done.message} (${notes.join("; ")})` } : done;
}

type Find = (target: TargetSpec, purpose: TargetPurpose) => Promise<FoundElement>;

async function perform(page: Page, action: ParsedAction, clock: StepClock, options: PerformOptions, find: Find): Promise<ActionDone> {
  const settle = () => page.waitForLoadState("domcontentloaded", { timeout: clock.left() }).catch(() => undefined);

  switch (action.verb) {
    case "goto": {
      const url = resolveUrl(page, action.url);
      checkNavigable(url, options.allowFileUrls);
      let status: number | undefined;
      try {
        status = (await page.goto(url, { timeout: clock.left(), waitUntil: "load" }))?.status();
      } catch (error) {
        if (error instanceof Error && error.name === "TimeoutError") throw clock.timeoutError(error);
        throw new InterpreterError(
          "WF_NAVIGATION_FAILED",
          `Could not open ${url}: ${firstLine(error)}. Check the URL and that the site is reachable from the service.`,
          { url },
          { cause: error },
        );
      }
      // An HTTP error page is still a page (a workflow may want to read it); the message says so.
      return { action: "goto", message: `Opened ${url}${status !== undefined && status >= 400 ? ` (HTTP ${status})` : ""}` };
    }
    case "back":
    case "forward":
    case "reload": {
      const before = page.url();
      let response;
      try {
        response =
          action.verb === "back"
            ? await page.goBack({ timeout: clock.left() })
            : action.verb === "forward"
              ? await page.goForward({ timeout: clock.left() })
              : await page.reload({ timeout: clock.left() });
      } catch (error) {
        if (error instanceof Error && error.name === "TimeoutError") throw clock.timeoutError(error);
        throw new InterpreterError("WF_NAVIGATION_FAILED", `Could not ${action.verb === "reload" ? "reload" : `go ${action.verb}`}: ${firstLine(error)}.`, { url: before }, { cause: error });
      }
      if (response === null && action.verb !== "reload" && page.url() === before) {
        throw new InterpreterError(
          "WF_NAVIGATION_FAILED",
          `Could not go ${action.verb}: there is no ${action.verb === "back" ? "previous" : "next"} page in this session's history.`,
          { url: before },
        );
      }
      return { action: action.verb, message: action.verb === "reload" ? `Reloaded ${page.url()}` : `Went ${action.verb} to ${page.url()}` };
    }
    case "click":
    case "dblclick":
    case "rightclick":
    case "hover": {
      const el = await find(action.target, action.verb === "hover" ? "any" : "click");
      // A link to a local file is refused before the click (the check after the action catches the rest).
      if (action.verb !== "hover" && !options.allowFileUrls && isFileUrl(el.href)) {
        throw new InterpreterError("WF_NAVIGATION_REFUSED", `Refused to click ${el.description}: it links to ${el.href}. ${HOW_TO_ALLOW_FILES}`, { url: el.href });
      }
      const timeout = clock.left();
      try {
        if (action.verb === "click") await el.locator.click({ timeout });
        else if (action.verb === "dblclick") await el.locator.dblclick({ timeout });
        else if (action.verb === "rightclick") await el.locator.click({ timeout, button: "right" });
        else await el.locator.hover({ timeout });
      } catch (error) {
        // A popup's "Done" button that closes its own window (window.close()): the click did its work.
        if (!page.isClosed()) throw error;
        return { action: action.verb, target: el.description, element: identity(el), message: `Clicked ${el.description}; the tab closed itself` };
      }
      await settle();
      const done = { click: "Clicked", dblclick: "Double-clicked", rightclick: "Right-clicked", hover: "Hovered over" }[action.verb];
      return { action: action.verb, target: el.description, element: identity(el), message: `${done} ${el.description}` };
    }
    case "fill": {
      const el = await find(action.target, "fill");
      await el.locator.fill(action.text, { timeout: clock.left() });
      return { action: action.typed ? "type" : "fill", target: el.description, element: identity(el), message: `Filled ${el.description} with ${JSON.stringify(action.text)}` };
    }
    case "type-focused": {
      await page.keyboard.type(action.text);
      return { action: "type", message: `Typed ${JSON.stringify(action.text)} into the focused element` };
    }
    case "clear": {
      const el = await find(action.target, "fill");
      await el.locator.clear({ timeout: clock.left() });
      return { action: "clear", target: el.description, element: identity(el), message: `Cleared ${el.description}` };
    }
    case "press": {
      if (action.target) {
        const el = await find(action.target, "key");
        await el.locator.press(action.key, { timeout: clock.left() });
        await settle();
        return { action: "press", target: el.description, element: identity(el), message: `Pressed ${action.key} in ${el.description}` };
      }
      await page.keyboard.press(action.key);
      await settle();
      return { action: "press", message: `Pressed ${action.key}` };
    }
    case "select": {
      const el = await find(action.target, "select");
      const options = await el.locator.evaluate(listSelectOptions, undefined, { timeout: clock.left() });
      if (!options) {
        const editable = await el.locator.evaluate((node) => node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement || (node as HTMLElement).isContentEditable);
        if (editable) {
          // `set "Name" to "Ada"` on a text field: fill it.
          await el.locator.fill(action.option, { timeout: clock.left() });
          return { action: "fill", target: el.description, element: identity(el), message: `Filled ${el.description} with ${JSON.stringify(action.option)}` };
        }
        // A custom dropdown (an ARIA combobox or button): open it, then click the option.
        await el.locator.click({ timeout: clock.left() });
        const optionRoles = ["option", "menuitem", "menuitemradio", "treeitem"];
        const option = await find({ text: action.option, roles: optionRoles, roleWord: "option", quoted: true }, "click").catch(async (error: unknown) => {
          if (!(error instanceof InterpreterError) || error.code !== "WF_ELEMENT_NOT_FOUND") throw error;
          // Name what the dropdown offers, not the page's closest buttons.
          const shown = await visibleOptions(page, optionRoles);
          throw new InterpreterError(
            "WF_ELEMENT_NOT_FOUND",
            `${el.description} has no option ${JSON.stringify(action.option)}. ` +
              (shown.length ? `Options: ${shown.slice(0, 12).map((o) => JSON.stringify(o)).join(", ")}.` : "It showed no options once opened."),
            { target: action.option, candidates: shown.map((name) => ({ role: "option", name })) },
          );
        });
        await option.locator.click({ timeout: clock.left() });
        await settle();
        return { action: "select", target: el.description, element: identity(el), message: `Selected ${option.description} in ${el.description}` };
      }
      const option = pickOption(options, action.option);
      if (!option) {
        throw new InterpreterError(
          "WF_ELEMENT_NOT_FOUND",
          `${el.description} has no option ${JSON.stringify(action.option)}. Options: ${options.slice(0, 12).map((o) => JSON.stringify(o.label)).join(", ")}.`,
          { target: action.option, candidates: options.map((o) => ({ role: "option", name: o.label })) },
        );
      }
      await el.locator.selectOption({ value: option.value }, { timeout: clock.left() });
      return { action: "select", target: el.description, element: identity(el), message: `Selected ${JSON.stringify(option.label)} in ${el.description}` };
    }
    case "check":
    case "uncheck": {
      let el = await find(action.target, "check");
      if (!CHECKABLE.has(el.role)) el = await checkboxOfItem(el);
      if (action.verb === "check") await el.locator.check({ timeout: clock.left() });
      else await el.locator.uncheck({ timeout: clock.left() });
      return { action: action.verb, target: el.description, element: identity(el), message: `${action.verb === "check" ? "Checked" : "Unchecked"} ${el.description}` };
    }
    case "scroll": {
      const { dy, what } = await page.evaluate(scrollPage, [action.direction, action.pixels ?? null] as [typeof action.direction, number | null]);
      return { action: "scroll", message: `Scrolled the ${what === "page" ? "page" : `element ${what}`} ${action.direction} by ${Math.abs(dy)} px` };
    }
    case "scroll-edge": {
      const { what } = await page.evaluate(scrollPage, [action.edge, null] as [typeof action.edge, null]);
      return { action: "scroll", message: `Scrolled the ${what === "page" ? "page" : `element ${what}`} to the ${action.edge}` };
    }
    case "scroll-to": {
      const el = await find(action.target, "scroll");
      await el.locator.scrollIntoViewIfNeeded({ timeout: clock.left() });
      return { action: "scroll", target: el.description, element: identity(el), message: `Scrolled ${el.description} into view` };
    }
    case "wait-gone": {
      await page.getByText(action.text).first().waitFor({ state: "hidden", timeout: clock.left() });
      return { action: "wait", message: `${JSON.stringify(action.text)} is gone` };
    }
    case "wait-text": {
      const exact = page.getByText(action.text, { exact: true });
      const loose = page.getByText(action.text);
      await exact
        .or(loose)
        .first()
        .waitFor({ state: "visible", timeout: clock.left() })
        .catch((error: unknown) => {
          if (!(error instanceof Error && error.name === "TimeoutError")) throw error;
          throw new InterpreterError(
            "WF_STEP_TIMEOUT",
            `The page did not show ${JSON.stringify(action.text)} within the step's ${clock.timeoutMs} ms. ` +
              `Check the text as the page writes it; to wait for a page to finish loading, write \`wait for the page to load\` (or \`wait for the results\`).`,
            {},
            { cause: error },
          );
        });
      return { action: "wait", message: `${JSON.stringify(action.text)} is shown` };
    }
    case "wait-settled": {
      if (!(await waitForSettled(page, clock.left() - 50))) {
        throw new InterpreterError(
          "WF_STEP_TIMEOUT",
          `The page did not settle within the step's ${clock.timeoutMs} ms: it kept loading, sending requests or changing. ` +
            `Wait for what it shows when done instead (\`wait for "12 results"\`, \`wait until "Loading…" disappears\`).`,
        );
      }
      return { action: "wait", message: `The page is loaded and stable (network idle, no change for ${QUIET_MS} ms)` };
    }
    case "search": {
      // The page's search box: a field named "search" (a searchbox, or a text field labelled so), else any searchbox.
      const box = await find({ text: "search", roles: ["searchbox", "textbox", "combobox"], roleWord: "search box", quoted: false }, "fill").catch(
        (error: unknown) => {
          if (error instanceof InterpreterError && error.code === "WF_ELEMENT_NOT_FOUND") {
            return find({ text: "", roles: ["searchbox"], roleWord: "search box", quoted: false }, "fill").catch(() => Promise.reject(error));
          }
          throw error;
        },
      );
      await box.locator.fill(action.text, { timeout: clock.left() });
      await box.locator.press("Enter", { timeout: clock.left() });
      await settle();
      return { action: "search", target: box.description, element: identity(box), message: `Searched for ${JSON.stringify(action.text)} in ${box.description}` };
    }
    case "wait-time": {
      if (action.ms >= clock.left()) {
        throw new InterpreterError(
          "WF_STEP_TIMEOUT",
          `Waiting ${action.ms} ms does not fit in the step's time left (${clock.left()} ms of ${clock.timeoutMs} ms). Raise the step's timeoutMs or wait less.`,
        );
      }
      await clock.sleep(action.ms);
      return { action: "wait", message: `Waited ${action.ms} ms` };
    }
    case "upload": {
      const file = options.uploads?.get(action.path) ?? resolveUpload(options.uploadRoot, action.path);
      const el = await find(action.target, "upload");
      // A file input, or a label of one (Playwright sets the files on its control); otherwise a
      // button that opens the file chooser (a drop zone's "browse"): click it and answer the chooser.
      const takesFiles = await el.locator.evaluate(
        (node) => (node instanceof HTMLInputElement && node.type === "file") || (node instanceof HTMLLabelElement && node.control instanceof HTMLInputElement && node.control.type === "file"),
        undefined,
        { timeout: clock.left() },
      );
      if (takesFiles) {
        await el.locator.setInputFiles(file, { timeout: clock.left() });
      } else {
        const chooser = page.waitForEvent("filechooser", { timeout: Math.min(clock.left(), CHOOSER_WAIT_MS) });
        chooser.catch(() => undefined);
        await el.locator.click({ timeout: clock.left() });
        const opened = await chooser.catch(() => undefined);
        if (!opened) {
          throw new InterpreterError(
            "WF_ELEMENT_NOT_FOUND",
            `${el.description} is not a file input, and clicking it opened no file chooser within ${CHOOSER_WAIT_MS} ms. Name the file input, its label, or the button that opens the file chooser.`,
            { target: action.target.text, candidates: [{ role: el.role, name: el.name }] },
          );
        }
        await opened.setFiles(file, { timeout: clock.left() });
      }
      await settle();
      return { action: "upload", target: el.description, element: identity(el), message: `Uploaded ${path.basename(file)} to ${el.description}` };
    }
    case "switch-tab":
    case "close-tab": {
      if (!options.tabs) throw new InterpreterError("WF_TAB_NOT_FOUND", "This step has no tabs to switch between or close (it runs on a single page).");
      let tab;
      try {
        tab = action.verb === "switch-tab" ? await options.tabs.switchTo(action.tab, clock.left()) : await options.tabs.close(action.tab, clock.left());
      } catch (error) {
        // `switch to the "History" tab` on a page with a tab of that name (a tab list), and no browser tab by it: that one.
        if (!(error instanceof InterpreterError && error.code === "WF_TAB_NOT_FOUND" && action.verb === "switch-tab" && "text" in action.tab)) throw error;
        const pageTab = await pageTabNamed(page, action.tab.text);
        if (!pageTab) throw error;
        await pageTab.click({ timeout: clock.left() });
        await settle();
        const description = `tab ${JSON.stringify(action.tab.text)}`;
        return { action: "click", target: description, element: { role: "tab", name: action.tab.text }, message: `Clicked ${description} of the page (no browser tab has that name)` };
      }
      const where = `tab ${tab.index} of ${tab.count}: ${JSON.stringify(tab.title)} at ${tab.url}`;
      return action.verb === "switch-tab"
        ? { action: "switch", message: `Switched to ${where}` }
        : { action: "close", message: `Closed the tab; now on ${where}` };
    }
  }
}

/** The one visible tab of the page (role `tab`) named `name`, exactly then loosely; undefined when none or several. */
async function pageTabNamed(page: Page, name: string): Promise<ReturnType<Page["getByRole"]> | undefined> {
  for (const exact of [true, false]) {
    const tabs = page.getByRole("tab", { name, exact }).filter({ visible: true });
    const count = await tabs.count();
    if (count === 1) return tabs;
    if (count > 1) return undefined;
  }
  return undefined;
}

/** How long an upload waits for the file chooser a clicked button should open, in ms. */
const CHOOSER_WAIT_MS = 3_000;

const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);

/**
 * `check "Buy milk"` found the text, not a checkbox: the one checkbox (radio, switch) of the
 * smallest element around it that has one — its list item, row, label or card.
 * @throws {@link InterpreterError} `WF_ELEMENT_NOT_FOUND` when there is none or several.
 */
async function checkboxOfItem(el: FoundElement): Promise<FoundElement> {
  const box = el.locator
    .locator("xpath=ancestor-or-self::*[.//input[@type='checkbox' or @type='radio'] or .//*[@role='checkbox' or @role='switch' or @role='radio']][1]")
    .first()
    .locator("input[type=checkbox], input[type=radio], [role=checkbox], [role=switch], [role=radio]");
  const count = await box.count();
  if (count !== 1) {
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `${el.description} is not a checkbox, radio button or switch, and ${count ? `its item holds ${count} of them` : "none is beside it"}. Name the checkbox itself (\`check the "…" checkbox\`).`,
      { target: el.name, candidates: [{ role: el.role, name: el.name }] },
    );
  }
  const name = await box.evaluate((node) => (node as HTMLElement).getAttribute("aria-label") ?? "");
  return { locator: box, description: `checkbox beside ${el.description}`, href: "", role: "checkbox", name: name || el.name };
}

/** The accessible names of the visible elements with one of `roles` (a custom dropdown's options once open). */
async function visibleOptions(page: Page, roles: string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const role of roles) {
    const loc = page.getByRole(role as Parameters<Page["getByRole"]>[0]);
    for (const text of await loc.evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetParent !== null || e.getClientRects().length > 0).map((e) => (e.textContent ?? "").replace(/\s+/g, " ").trim()))) {
      if (text) names.add(text);
    }
  }
  return [...names];
}

/** The element a step reports; inside an iframe, with its locator, which names the frame. */
function identity(el: FoundElement): ElementIdentity {
  return { role: el.role, name: el.name, ...(el.normalized ? { locator: el.normalized } : {}) };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/^page\.\w+:\s*/, "");
}

/** Resolves `url` against the page's URL; a bare host (`example.com/x`) gets `https://`. */
function resolveUrl(page: Page, url: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(?:localhost|[\w.-]+):\d+/i.test(url)) return url;
  if (/^[/?#.]/.test(url)) {
    const base = page.url();
    if (/^(?:https?|file):/i.test(base)) return new URL(url, base).href;
    throw new InterpreterError("WF_NAVIGATION_FAILED", `Cannot open the relative URL ${JSON.stringify(url)}: the page has no address yet (${base}). Give a full URL.`, { url });
  }
  const local = /^(?:localhost|127\.|\d{1,3}(?:\.\d{1,3}){3})/i.test(url);
  return `${local ? "http" : "https"}://${url}`;
}

/** Resolves an upload path under `root`; refuses anything outside it, also through symlinks, and missing files. */
function resolveUpload(root: string, given: string): string {
  const resolved = path.resolve(root, given);
  const refuse = (why: string) =>
    new InterpreterError("WF_UPLOAD_REFUSED", `Refused to upload ${JSON.stringify(given)}: ${why}. Uploads must be files under ${root}.`, {
      path: given,
      resolvedPath: resolved,
    });
  const inside = (p: string, r: string) => {
    const rel = path.relative(r, p);
    return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
  };
  if (!inside(resolved, root)) throw refuse("it is outside the upload root");
  let real: string;
  try {
    real = realpathSync(resolved);
  } catch {
    throw refuse("no such file");
  }
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // root does not exist: nothing can be inside it
  }
  if (!inside(real, realRoot)) throw refuse("it links to a file outside the upload root");
  if (!statSync(real).isFile()) throw refuse("it is not a file");
  return real;
}

/** The option a person meant: exact label, exact value, then case/space-insensitive, then a unique substring. */
function pickOption(options: Array<{ value: string; label: string }>, wanted: string): { value: string; label: string } | undefined {
  const norm = (s: string) => words(s).join(" ");
  const w = norm(wanted);
  return (
    options.find((o) => o.label === wanted) ??
    options.find((o) => o.value === wanted) ??
    options.find((o) => norm(o.label) === w || norm(o.value) === w) ??
    (() => {
      const subs = options.filter((o) => w && norm(o.label).includes(w));
      return subs.length === 1 ? subs[0] : undefined;
    })()
  );
}
