/**
 * Replay of a recorded ACT (an entry of a workflow's action lock): each recorded grammar
 * instruction runs through the grammar, and before it acts, the element the grammar finds must be
 * exactly the one recorded (one element, same ARIA role, same accessible name). Anything else fails
 * the step with `WF_REPLAY_MISMATCH` and nothing is done to the element found. No model is called.
 *
 * With `refind` (the runtime's `--lock heal`), an instruction that no longer finds its element, or
 * finds another one, gets one deterministic second look before the step fails: the recorded element
 * itself, by its role and exact accessible name, then by its recorded Playwright locator. Only exactly
 * one element of the recorded role is acted on; the action is then reported as the instruction that
 * names it now (`refound: true`), which the runtime writes back into the lock.
 */
import type { ReplayAction } from "@wf/core/protocol";
import { StepClock } from "./_clock.js";
import { performAction, type ActionDone, type PerformOptions } from "./deterministic.js";
import { InterpreterError } from "./errors.js";
import { parseInstructions, type ParsedAction } from "./grammar.js";
import { grammarText, ROLE_WORDS } from "./grammar-text.js";
import { locateTarget, type FoundElement } from "./locate.js";
import { identifyViewElement } from "./model/_page-view-script.js";
import { recordedLocator } from "./recorded-locator.js";
import type { ActContext, ActResult, ElementIdentity } from "./types.js";

/**
 * Replays `actions` on the context's page, in order.
 *
 * @param context - the ACT's context; its `instruction` is only reported, the actions are what runs.
 * @param actions - the recorded grammar instructions (values filled in) and their elements.
 * @param options - how actions are carried out (upload root, find timeout, file URLs), and `refind`
 *   (default false): look for a recorded element that its instruction no longer finds (see above).
 * @returns what was done, with `actions` listing each instruction and the element it acted on; an
 *   action whose element was found again carries the instruction that names it now and `refound: true`.
 * @throws {@link InterpreterError} `WF_REPLAY_MISMATCH` (details: `recorded`, `found`, `actionIndex`)
 *   when an element is missing or another one is found, `WF_INSTRUCTION_NOT_UNDERSTOOD` when a
 *   recorded instruction is not one grammar action, and the codes of the actions themselves.
 */
export async function replayActions(context: ActContext, actions: readonly ReplayAction[], options: Omit<PerformOptions, "locate"> & { refind?: boolean }): Promise<ActResult> {
  context.report.interpreter = "grammar";
  context.report.replayed = true;
  context.report.resolved = actions.map((a) => a.instruction).join("; ");
  const parsed = actions.map((action, index) => parseOne(action.instruction, index));
  const clock = new StepClock(context.timeoutMs, context.signal);
  const refound = new Map<number, ElementIdentity>();
  return clock.guard(async () => {
    const done: ActionDone[] = [];
    for (const [index, action] of parsed.entries()) {
      const recorded = actions[index]!.element;
      const locate = async (...[target, purpose, waitMs]: Parameters<NonNullable<PerformOptions["locate"]>>): Promise<FoundElement> => {
        let failure: InterpreterError;
        try {
          const found = await locateTarget(context.page, target, purpose, waitMs, clock.signal);
          const count = await found.locator.count();
          const same = recorded && found.role === recorded.role && sameName(found.name, recorded.name);
          if (recorded && same && count === 1) return found;
          failure = mismatch(index, actions[index]!.instruction, recorded, { role: found.role, name: found.name }, count !== 1 ? `${count} elements match it` : undefined);
        } catch (error) {
          if (!(error instanceof InterpreterError) || !["WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS"].includes(error.code)) throw error;
          failure = mismatch(index, actions[index]!.instruction, recorded, null, error.message);
        }
        if (!options.refind || !recorded) throw failure;
        const again = await refind(context.page, recorded, clock);
        if (!again) {
          failure.message = failure.message.replace(" Nothing was done to it.", " It was not found again by its role and name or its recorded locator either. Nothing was done to it.");
          throw failure;
        }
        refound.set(index, again.identity);
        return again.found;
      };
      try {
        done.push(await performAction(context.page, action, clock, { ...options, locate }));
      } catch (error) {
        if (error instanceof InterpreterError && error.details.actionIndex === undefined) error.details.actionIndex = index;
        throw error;
      }
    }
    const last = done[done.length - 1]!;
    const ran = actions.map((a, i) => {
      const identity = refound.get(i);
      if (!identity) return { instruction: a.instruction, ...(done[i]?.element ? { element: done[i]!.element! } : {}) };
      return { instruction: renamed(parsed[i]!, identity), element: identity, refound: true as const };
    });
    if (refound.size > 0) context.report.resolved = ran.map((a) => a.instruction).join("; ");
    return {
      ...last,
      message: `${done.map((d) => d.message).join("; ")} (replayed from the lock${refound.size > 0 ? `; ${refound.size} element(s) found again by their recorded identity` : ""})`,
      url: context.page.url(),
      actions: ran,
    };
  });
}

/**
 * The deterministic second look for a recorded element: by role and exact accessible name, then by
 * its recorded locator; exactly one visible element of the recorded role, or nothing.
 */
async function refind(page: ActContext["page"], recorded: NonNullable<ReplayAction["element"]>, clock: StepClock): Promise<{ found: FoundElement; identity: ElementIdentity } | undefined> {
  const byIdentity = page.getByRole(recorded.role as Parameters<typeof page.getByRole>[0], { name: recorded.name, exact: true });
  const byLocator = recorded.locator ? recordedLocator(page, recorded.locator) : undefined;
  for (const candidate of [byIdentity, byLocator]) {
    if (!candidate) continue;
    const visible = candidate.filter({ visible: true });
    if ((await visible.count()) !== 1) continue;
    const now = await visible.evaluate(identifyViewElement, undefined, { timeout: clock.left() }).catch(() => undefined);
    if (!now || now.role !== recorded.role) continue;
    const href = await visible.evaluate((node) => (node instanceof HTMLAnchorElement ? node.href : ""), undefined, { timeout: clock.left() }).catch(() => "");
    const locator = await visible.normalize().then(
      (l) => l.toString(),
      () => undefined,
    );
    return {
      found: { locator: visible, description: `${now.role} ${JSON.stringify(now.name)}`, href, role: now.role, name: now.name, note: `found again by its recorded ${candidate === byIdentity ? "role and name" : "locator"}` },
      identity: { role: now.role, name: now.name, ...(locator ? { locator } : {}) },
    };
  }
  return undefined;
}

/** The recorded action, written as the instruction that names the element it acted on now. */
function renamed(action: ParsedAction, identity: ElementIdentity): string {
  if (!("target" in action) || !action.target) return grammarText(action, identity);
  return grammarText({ ...action, target: { text: identity.name, roles: [identity.role], roleWord: ROLE_WORDS[identity.role], quoted: true } } as ParsedAction, identity);
}

/** How replayed actions run on a server with these options (the grammar's defaults otherwise). */
export function replayOptions(options: { uploadRoot: string; allowFileUrls: boolean }, refind = false): Omit<PerformOptions, "locate"> & { refind: boolean } {
  return { uploadRoot: options.uploadRoot, allowFileUrls: options.allowFileUrls, findTimeoutMs: 5_000, refind };
}

/** A recorded instruction must be exactly one grammar action (as the model interpreter writes them). */
function parseOne(instruction: string, index: number): ParsedAction {
  const parsed = parseInstructions(instruction);
  if (parsed.length !== 1) {
    throw new InterpreterError(
      "WF_INSTRUCTION_NOT_UNDERSTOOD",
      `Recorded action ${index + 1} (${JSON.stringify(instruction)}) is ${parsed.length} grammar actions, not one. Record the step again (wf run --lock write).`,
      { actionIndex: index },
    );
  }
  return parsed[0]!;
}

function mismatch(index: number, instruction: string, recorded: ReplayAction["element"], found: { role: string; name: string } | null, why?: string): InterpreterError {
  const said = (e: { role: string; name: string }) => `${e.role} ${JSON.stringify(e.name)}`;
  const expected = recorded ? said(recorded) : "no element (the lock recorded none for this action)";
  const got = found ? said(found) : "nothing";
  return new InterpreterError(
    "WF_REPLAY_MISMATCH",
    `Replaying ${JSON.stringify(instruction)}: the lock recorded ${expected}, the page has ${got}${why ? ` (${why.replace(/\.$/, "")})` : ""}. Nothing was done to it. ` +
      `The page changed since the step was recorded: record it again (wf run <file> --lock write), or let a model heal it (--lock heal).`,
    { actionIndex: index, ...(recorded ? { recorded: { role: recorded.role, name: recorded.name } } : {}), found, ...(recorded ? { target: recorded.name } : {}) },
  );
}

/** Names compare with whitespace collapsed: the page view and the locator compute them slightly apart. */
function sameName(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  return norm(a) === norm(b);
}
