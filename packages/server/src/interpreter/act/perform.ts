/**
 * Carries out one parsed action on the page with Playwright ({@link performAction}): the grammar's
 * verbs (go to, click, fill, select, check, press, scroll, wait, search, upload, tabs), one handler
 * each in `verbs/`, shared by every interpreter so an action means the same whoever resolved its
 * target.
 */
import type { Page } from "playwright-core";
import type { ParsedAction, TargetSpec } from "../grammar/index.js";
import { locateTarget, type TargetPurpose } from "../locate/index.js";
import type { StepClock } from "../_clock.js";
import type { ActionDone, PerformOptions, VerbContext, VerbHandler } from "./verb.js";
import { VERBS } from "./verbs/index.js";
import { verifyElement } from "./fit.js";
import { trackRequests } from "../page/index.js";

/**
 * Carries out one parsed action on the page with Playwright: the grammar's verbs, shared by every
 * interpreter so an action means the same whoever resolved it. The action's element is checked
 * before anything is done to it: the verb fits it, and it is visible and, where the verb needs it,
 * enabled (`fit.ts`).
 * @throws {@link InterpreterError} (every code but `WF_INSTRUCTION_NOT_UNDERSTOOD`), among them
 *   `WF_ACTION_NOT_APPLICABLE` and `WF_ELEMENT_DISABLED`.
 */
export async function performAction(page: Page, action: ParsedAction, clock: StepClock, options: PerformOptions): Promise<ActionDone> {
  // The requests the action starts are what a later read of the page waits for (`page/settle.ts`).
  trackRequests(page);
  const waitMs = () => Math.min(options.findTimeoutMs, clock.left());
  const notes: string[] = [];
  const given = Boolean(options.locate);
  // The hand-over rule is for the action's own target only: once it is found, the action has begun.
  let handOver = options.handOver;
  const locate = async (target: TargetSpec, purpose: TargetPurpose) => {
    const rule = handOver ? { handOver } : undefined;
    handOver = undefined;
    const el = await (options.locate ? options.locate(target, purpose, waitMs()) : locateTarget(page, target, purpose, waitMs(), clock.signal, rule, clock.left()));
    if (el.note) notes.push(el.note);
    return el;
  };
  const verify = (el: Awaited<ReturnType<typeof locate>>) => verifyElement(page, el, action, given, clock, waitMs());
  const context: VerbContext = {
    page,
    clock,
    options,
    given,
    locate,
    verify,
    async find(target: TargetSpec, purpose: TargetPurpose) {
      const el = await locate(target, purpose);
      await verify(el);
      return el;
    },
    settle: () => page.waitForLoadState("domcontentloaded", { timeout: clock.left() }).catch(() => undefined),
  };
  // The table holds one handler per verb; TypeScript cannot pair `action` with its own verb's handler.
  const handler = VERBS[action.verb] as VerbHandler;
  const done = await handler.run(action as never, context);
  // A tab the action opened (a target=_blank link, window.open) is where the next action happens.
  await options.tabs?.settle(clock.left());
  return notes.length ? { ...done, message: `${done.message} (${notes.join("; ")})` } : done;
}
