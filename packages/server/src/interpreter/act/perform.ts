/**
 * Carries out one parsed action on the page with Playwright ({@link performAction}): the grammar's
 * verbs (go to, click, fill, select, check, press, scroll, wait, search, upload, tabs), shared by
 * every interpreter so an action means the same whoever resolved its target.
 */
import path from "node:path";
import type { Page } from "playwright-core";
import { InterpreterError } from "../errors.js";
import type { ParsedAction, TargetSpec } from "../grammar/index.js";
import { locateTarget, type FoundElement, type TargetPurpose } from "../locate/index.js";
import { QUIET_MS, waitForSettled } from "../page/index.js";
import { checkNavigable, HOW_TO_ALLOW_FILES, isFileUrl, resolveUrl } from "./navigation-policy.js";
import { CHECKABLE, checkboxOfItem, pageTabNamed, pickOption, visibleOptions } from "./controls.js";
import { resolveUpload } from "./upload-path.js";
import { listSelectOptions, scrollPage } from "../page/index.js";
import type { ActResult, ElementIdentity, TabsController } from "../types.js";
import type { StepClock } from "../_clock.js";

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
/** How long an upload waits for the file chooser a clicked button should open, in ms. */
const CHOOSER_WAIT_MS = 3_000;
/** The element a step reports; inside an iframe, with its locator, which names the frame. */
function identity(el: FoundElement): ElementIdentity {
  return { role: el.role, name: el.name, ...(el.normalized ? { locator: el.normalized } : {}) };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/^page\.\w+:\s*/, "");
}
