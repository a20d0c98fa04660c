/**
 * Replay of a recorded ACT (an entry of a workflow's action lock): each recorded grammar
 * instruction runs through the grammar, and before it acts, the element the grammar finds must be
 * exactly the one recorded (one element, same ARIA role, same accessible name). Anything else fails
 * the step with `WF_REPLAY_MISMATCH` and nothing is done to the element found. No model is called.
 */
import type { ReplayAction } from "@wf/core/protocol";
import { StepClock } from "./_clock.js";
import { performAction, type ActionDone, type PerformOptions } from "./deterministic.js";
import { InterpreterError } from "./errors.js";
import { parseInstructions, type ParsedAction } from "./grammar.js";
import { locateTarget, type FoundElement } from "./locate.js";
import type { ActContext, ActResult } from "./types.js";

/**
 * Replays `actions` on the context's page, in order.
 *
 * @param context - the ACT's context; its `instruction` is only reported, the actions are what runs.
 * @param actions - the recorded grammar instructions (values filled in) and their elements.
 * @param options - how actions are carried out (upload root, find timeout, file URLs).
 * @returns what was done, with `actions` listing each instruction and the element it acted on.
 * @throws {@link InterpreterError} `WF_REPLAY_MISMATCH` (details: `recorded`, `found`, `actionIndex`)
 *   when an element is missing or another one is found, `WF_INSTRUCTION_NOT_UNDERSTOOD` when a
 *   recorded instruction is not one grammar action, and the codes of the actions themselves.
 */
export async function replayActions(context: ActContext, actions: readonly ReplayAction[], options: Omit<PerformOptions, "locate">): Promise<ActResult> {
  context.report.interpreter = "grammar";
  context.report.replayed = true;
  context.report.resolved = actions.map((a) => a.instruction).join("; ");
  const parsed = actions.map((action, index) => parseOne(action.instruction, index));
  const clock = new StepClock(context.timeoutMs, context.signal);
  return clock.guard(async () => {
    const done: ActionDone[] = [];
    for (const [index, action] of parsed.entries()) {
      const recorded = actions[index]!.element;
      const locate = async (...[target, purpose, waitMs]: Parameters<NonNullable<PerformOptions["locate"]>>): Promise<FoundElement> => {
        let found: FoundElement;
        try {
          found = await locateTarget(context.page, target, purpose, waitMs, clock.signal);
        } catch (error) {
          if (!(error instanceof InterpreterError) || !["WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS"].includes(error.code)) throw error;
          throw mismatch(index, actions[index]!.instruction, recorded, null, error.message);
        }
        const count = await found.locator.count();
        const same = recorded && found.role === recorded.role && sameName(found.name, recorded.name);
        if (!recorded || !same || count !== 1) {
          throw mismatch(index, actions[index]!.instruction, recorded, { role: found.role, name: found.name }, count !== 1 ? `${count} elements match it` : undefined);
        }
        return found;
      };
      try {
        done.push(await performAction(context.page, action, clock, { ...options, locate }));
      } catch (error) {
        if (error instanceof InterpreterError && error.details.actionIndex === undefined) error.details.actionIndex = index;
        throw error;
      }
    }
    const last = done[done.length - 1]!;
    return {
      ...last,
      message: `${done.map((d) => d.message).join("; ")} (replayed from the lock)`,
      url: context.page.url(),
      actions: actions.map((a, i) => ({ instruction: a.instruction, ...(done[i]?.element ? { element: done[i]!.element! } : {}) })),
    };
  });
}

/** How replayed actions run on a server with these options (the grammar's defaults otherwise). */
export function replayOptions(options: { uploadRoot: string; allowFileUrls: boolean }): Omit<PerformOptions, "locate"> {
  return { uploadRoot: options.uploadRoot, allowFileUrls: options.allowFileUrls, findTimeoutMs: 5_000 };
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
