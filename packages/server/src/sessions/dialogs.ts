/**
 * The JavaScript dialogs of a session (`alert`, `confirm`, `prompt`, `beforeunload`): each one a
 * page of the session's browser context opens is answered at once by the session's rule
 * (`DialogRule` of `@wf/core/protocol`) and noted for the step it happened in, which lists it
 * (`StepStatus.dialogs`). The rule:
 *
 * | rule | alert | confirm, prompt | beforeunload |
 * |---|---|---|---|
 * | `accept` (default) | OK | OK (a prompt keeps its default text) | leave the page |
 * | `dismiss` | OK | Cancel | leave the page (a step that navigates means to leave) |
 * | `fail` | dismissed | Cancel | stay on the page; the step fails `WF_DIALOG_OPENED` |
 *
 * Nothing is left open: a page whose dialog stays open does not answer anything else (the step
 * would hang). Answering one is a browser call with a deadline like every other.
 */
import type { BrowserContext, Dialog } from "playwright-core";
import type { DialogRule, StepDialog } from "@wf/core/protocol";
import { settlesWithin } from "../browser/deadline.js";
import { StepExecutionError } from "../errors.js";

/** Longest answering one dialog may take, in ms. */
const ANSWER_TIMEOUT_MS = 2_000;
/** Characters of a dialog's text kept. */
const MESSAGE_CHARS = 500;
/** Entries one step lists at most (a page opening dialogs in a loop is one entry with its count). */
const MAX_ENTRIES = 20;
/**
 * A page that opens this many dialogs within {@link STORM_WINDOW_MS} opens them in a loop: it is
 * unresponsive (each dialog stops its main thread; whatever a step does between two of them is
 * chance), like a page whose script never ends.
 */
export const STORM_DIALOGS = 10;
export const STORM_WINDOW_MS = 5_000;

/** The dialogs of one session's browser context. */
export class SessionDialogs {
  private noted: StepDialog[] = [];
  private dropped = 0;
  /** Called with the step's failure when the rule is `fail` and a dialog opens during a step. */
  private onFail: ((error: StepExecutionError) => void) | undefined;
  /** Called when the page opens dialogs in a loop during a step. */
  private onStorm: (() => void) | undefined;
  /** When the last {@link STORM_DIALOGS} dialogs opened (ms since the epoch), oldest first. */
  private readonly recent: number[] = [];

  constructor(
    context: BrowserContext,
    /** The session's rule (set at the session's creation: a context opened ahead starts with `accept`). */
    public rule: DialogRule,
  ) {
    // With a listener, Playwright no longer dismisses dialogs by itself: every one is answered here.
    context.on("dialog", (dialog) => void this.answer(dialog));
  }

  /**
   * While a step runs (until {@link SessionDialogs.take}): a dialog under the `fail` rule calls
   * `onFail`, and dialogs opened in a loop call `onStorm` (at once when the loop is already on).
   */
  duringStep(onFail: (error: StepExecutionError) => void, onStorm: () => void): void {
    this.onFail = onFail;
    this.onStorm = onStorm;
    if (this.storming()) onStorm();
  }

  /** Forgets the dialogs of a page that was closed (an unresponsive one): its loop is over. */
  reset(): void {
    this.recent.length = 0;
    this.noted = [];
    this.dropped = 0;
  }

  /** Whether the page opens dialogs in a loop now: {@link STORM_DIALOGS} within {@link STORM_WINDOW_MS}, the last one just now. */
  storming(now = Date.now()): boolean {
    const first = this.recent[0];
    const last = this.recent[this.recent.length - 1];
    return this.recent.length >= STORM_DIALOGS && first !== undefined && last !== undefined && last - first <= STORM_WINDOW_MS && now - last <= STORM_WINDOW_MS;
  }

  /**
   * The dialogs noted since the last take (this step's, and those opened between the steps), oldest
   * first, repeats merged; stops calling the step's `onFail`.
   * @returns them, and under the `fail` rule the step's failure when there was any.
   */
  take(): { dialogs: StepDialog[]; failure?: StepExecutionError } {
    const dialogs = this.noted;
    const dropped = this.dropped;
    this.noted = [];
    this.dropped = 0;
    this.onFail = undefined;
    this.onStorm = undefined;
    const first = dialogs[0];
    if (this.rule !== "fail" || !first) return { dialogs };
    return { dialogs, failure: openedError(first, dialogs.reduce((n, d) => n + d.count, 0) + dropped) };
  }

  private async answer(dialog: Dialog): Promise<void> {
    const type = dialog.type() as StepDialog["type"];
    const accept = this.rule === "accept" || (this.rule === "dismiss" && type === "beforeunload") || (this.rule === "dismiss" && type === "alert");
    const entry: StepDialog = { type, message: dialog.message().slice(0, MESSAGE_CHARS), handled: accept ? "accepted" : "dismissed", count: 1 };
    this.note(entry);
    this.recent.push(Date.now());
    if (this.recent.length > STORM_DIALOGS) this.recent.shift();
    if (this.storming()) this.onStorm?.();
    // A prompt accepted keeps its default text, as a person clicking OK would send it.
    await settlesWithin(accept ? dialog.accept(type === "prompt" ? dialog.defaultValue() : undefined) : dialog.dismiss(), ANSWER_TIMEOUT_MS);
    if (this.rule === "fail") this.onFail?.(openedError(entry, 1));
  }

  private note(entry: StepDialog): void {
    const last = this.noted[this.noted.length - 1];
    if (last && last.type === entry.type && last.message === entry.message && last.handled === entry.handled) last.count += 1;
    else if (this.noted.length < MAX_ENTRIES) this.noted.push(entry);
    else this.dropped += 1;
  }
}

function openedError(first: StepDialog, count: number): StepExecutionError {
  return new StepExecutionError(
    "WF_DIALOG_OPENED",
    `The page opened ${count === 1 ? "a" : `${count} dialogs, the first a`}${first.type === "alert" ? "n" : ""} ${first.type} dialog (${JSON.stringify(first.message)}) and the session's dialog rule is \`fail\`: it was dismissed and the step failed. ` +
      `Create the session with dialogs "accept" or "dismiss" to let steps answer dialogs.`,
    { details: { dialog: first, count } },
  );
}
