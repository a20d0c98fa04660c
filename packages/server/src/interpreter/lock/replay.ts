/**
 * Replay of a recorded ACT (an entry of a workflow's action lock). No model is called. Each
 * action's element is looked for in this order:
 *
 * 1. the recorded grammar instruction (which, recorded by the model interpreter, named exactly
 *    that element on the page it was recorded on: see `record-instruction.ts`);
 * 2. when that finds several elements (twins included) or another one, the recorded Playwright
 *    locator, used only when it finds exactly one visible element of the recorded role and
 *    accessible name;
 * 3. only then the step fails `WF_REPLAY_MISMATCH` (nothing is done to any element), with a
 *    message that says what differs: role, name, count, place.
 *
 * An element recorded with `primary: "locator"` (no instruction named it alone) goes to its
 * locator first. With `refind` (the runtime's `--lock heal`), step 3 is first a deterministic
 * second look: the recorded element by its role and exact accessible name, then by its recorded
 * locator whatever its name; only exactly one element of the recorded role is acted on, and the
 * action is reported as the instruction that names it now (`refound: true`), which the runtime
 * writes back into the lock.
 */
import type { Locator, Page } from "playwright-core";
import type { ReplayAction } from "@wf/core/protocol";
import { StepClock } from "../_clock.js";
import { performAction, type ActionDone, type PerformOptions } from "../act/index.js";
import { InterpreterError } from "../errors.js";
import { parseInstructions, type ParsedAction, type TargetSpec } from "../grammar/index.js";
import { grammarText, ROLE_WORDS, scopeText } from "./grammar-text.js";
import { describeElements, type ElementInfo } from "../page/index.js";
import { locateTarget, type FoundElement, type TargetPurpose } from "../locate/index.js";
import { sameName } from "./record-instruction.js";
import { identifyViewElement } from "../page/index.js";
import { recordedLocator } from "./recorded-locator.js";
import type { ActContext, ActResult, ElementIdentity } from "../types.js";

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
      let looked = false;
      const locate = async (...[target, purpose, waitMs]: Parameters<NonNullable<PerformOptions["locate"]>>): Promise<FoundElement> => {
        // Only an action's own target is the recorded element (a custom dropdown's option is found as the grammar finds it).
        if (looked) return locateTarget(context.page, target, purpose, waitMs, clock.signal, undefined, clock.left());
        looked = true;
        const instruction = actions[index]!.instruction;
        const seen: Seen = {};
        if (recorded?.primary === "locator") {
          const hit = await byRecordedLocator(context.page, recorded, clock, seen);
          if (hit) return hit;
        }
        const hit = await byInstruction(context.page, target, purpose, waitMs, clock, recorded, seen);
        if (hit) return hit;
        if (recorded?.locator) {
          // Once more after the instruction waited for the page to settle (or for the first time).
          const again = await byRecordedLocator(context.page, recorded, clock, seen);
          if (again) return again;
        }
        const failure = mismatch(index, instruction, recorded, await withPlaces(seen));
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

/** What the recorded instruction and the recorded locator found, for the message of a mismatch. */
interface Seen {
  /** The instruction: the element it found (the first of several), how many match, or why it found none. */
  instruction?: { found?: { role: string; name: string; place: string }; matches?: number; why?: string };
  /** The recorded locator: how many visible elements it finds, and the one it found. */
  locator?: { matches: number; found?: { role: string; name: string; place: string } };
  /** The elements found, whose places {@link withPlaces} fills in (only for a failure's message: it costs a page call). */
  instructionLocator?: Locator;
  locatorLocator?: Locator;
}

/** Fills in where the elements found are now (`in the "Pay rent" item`), for the message. */
async function withPlaces(seen: Seen): Promise<Seen> {
  if (seen.instruction?.found && seen.instructionLocator) seen.instruction.found.place = await placeOf(seen.instructionLocator);
  if (seen.locator?.found && seen.locatorLocator) seen.locator.found.place = await placeOf(seen.locatorLocator);
  return seen;
}

/**
 * Step 1 of a replay: the recorded instruction through the grammar. Returns the element only when
 * it is one (not the first of twins) with the recorded role and accessible name; else notes in
 * `seen` what it found.
 */
async function byInstruction(
  page: Page,
  target: TargetSpec,
  purpose: TargetPurpose,
  waitMs: number,
  clock: StepClock,
  recorded: ReplayAction["element"],
  seen: Seen,
): Promise<FoundElement | undefined> {
  let found: FoundElement;
  try {
    found = await locateTarget(page, target, purpose, waitMs, clock.signal, undefined, clock.left());
  } catch (error) {
    if (!(error instanceof InterpreterError) || !["WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS"].includes(error.code)) throw error;
    const ambiguous = error.code === "WF_ELEMENT_AMBIGUOUS";
    seen.instruction = { why: error.message, ...(ambiguous ? { matches: ((error.details.candidates as unknown[] | undefined) ?? []).length } : {}) };
    return undefined;
  }
  seen.instruction = { found: { role: found.role, name: found.name, place: "" }, ...(found.matches ? { matches: found.matches } : {}) };
  seen.instructionLocator = found.locator;
  if (!recorded || found.matches !== undefined) return undefined;
  return found.role === recorded.role && sameName(found.name, recorded.name) ? found : undefined;
}

/**
 * Step 2 (step 1 for an element recorded with `primary: "locator"`): the recorded locator, when it
 * finds exactly one visible element of the recorded role and accessible name.
 */
async function byRecordedLocator(page: Page, recorded: NonNullable<ReplayAction["element"]>, clock: StepClock, seen: Seen): Promise<FoundElement | undefined> {
  const locator = recorded.locator ? recordedLocator(page, recorded.locator) : undefined;
  if (!locator) return undefined;
  const visible = locator.filter({ visible: true });
  const matches = await visible.count().catch(() => 0);
  if (matches !== 1) {
    seen.locator = { matches };
    return undefined;
  }
  const now = await visible.evaluate(identifyViewElement, undefined, { timeout: clock.left() }).catch(() => undefined);
  if (!now) return undefined;
  seen.locator = { matches, found: { ...now, place: "" } };
  seen.locatorLocator = visible;
  if (now.role !== recorded.role || !sameName(now.name, recorded.name)) return undefined;
  const href = await visible.evaluate((node) => (node instanceof HTMLAnchorElement ? node.href : ""), undefined, { timeout: clock.left() }).catch(() => "");
  return { locator: visible, description: `${now.role} ${JSON.stringify(now.name)}`, href, role: now.role, name: now.name, note: "found by its recorded locator" };
}

/** Where an element is, for messages: `in the "Pay rent" item`, `in the "Share settings" dialog`; `""` when nowhere in particular. */
async function placeOf(locator: Locator): Promise<string> {
  const infos = (await locator.evaluateAll(describeElements, undefined).catch(() => [])) as ElementInfo[];
  const context = infos[0]?.context;
  if (!context) return "";
  const clip = (t: string) => JSON.stringify(t.length > 40 ? t.slice(0, 39) + "…" : t);
  const parts = [
    context.item ? `in the ${clip(context.item)} item` : "",
    context.row ? `in the ${clip(context.row)} row` : "",
    context.dialog ? `in the ${context.dialog === "dialog" ? "" : `${clip(context.dialog)} `}dialog` : "",
    !context.item && !context.row && !context.dialog && context.section ? `under ${clip(context.section)}` : "",
  ].filter(Boolean);
  return parts.join(" ");
}

/**
 * The replay's failure: what differs between the recorded element and what the instruction and the
 * recorded locator find now (role, name, count, place). "The page changed" only when an element
 * found has another role or name than recorded, or neither way finds any element.
 */
function mismatch(index: number, instruction: string, recorded: ReplayAction["element"], seen: Seen): InterpreterError {
  const said = (e: { role: string; name: string; place?: string }) => `${e.role} ${JSON.stringify(e.name)}${e.place ? ` (${e.place})` : ""}`;
  const recordedPlace = recordedScopes(instruction);
  const expected = recorded ? `${said(recorded)}${recordedPlace ? ` ${recordedPlace}` : ""}` : "no element (the lock recorded none for this action)";
  const byText = seen.instruction;
  const differs = (e: { role: string; name: string }) => Boolean(recorded) && (e.role !== recorded!.role || !sameName(e.name, recorded!.name));
  const parts: string[] = [];
  if (byText?.matches && byText.matches > 1) {
    parts.push(`${byText.matches} elements match \`${instruction}\`, where the lock recorded one, ${expected}${byText.why ? ` (${trimDot(byText.why)})` : byText.found ? `; the first is ${said(byText.found)}` : ""}`);
  } else if (byText?.found) {
    parts.push(`the lock recorded ${expected}, the page has ${said(byText.found)}`);
  } else {
    parts.push(`the lock recorded ${expected}, the page has nothing${byText?.why ? ` (${trimDot(byText.why)})` : ""}`);
  }
  if (recorded?.locator) {
    const byLocator = seen.locator;
    const what = !byLocator ? "cannot be read back" : byLocator.found ? `finds ${said(byLocator.found)}` : byLocator.matches === 0 ? "finds nothing" : `finds ${byLocator.matches} elements`;
    parts.push(`its recorded locator \`${recorded.locator}\` ${what}`);
  }
  const found = [byText?.found, seen.locator?.found].filter((e): e is NonNullable<typeof e> => Boolean(e));
  const changed = Boolean(recorded) && (found.some(differs) || (!byText?.found && !byText?.matches && !seen.locator?.matches));
  const advice = changed
    ? "The page changed since the step was recorded: record it again (wf run <file> --lock write), or let a model heal it (--lock heal)."
    : "The recorded entry does not name one element on this page: record it again (wf run <file> --lock write), or let a model heal it (--lock heal).";
  const first = byText?.found ?? seen.locator?.found;
  return new InterpreterError("WF_REPLAY_MISMATCH", `Replaying \`${instruction}\`: ${parts.join("; ")}. Nothing was done to it. ${advice}`, {
    actionIndex: index,
    ...(recorded ? { recorded: { role: recorded.role, name: recorded.name } } : {}),
    found: first ? { role: first.role, name: first.name } : null,
    ...(byText?.matches ? { matches: byText.matches } : {}),
    ...(recorded ? { target: recorded.name } : {}),
  });
}

/** The places a recorded instruction names (`in the "Pay rent" item`), or `""`. */
function recordedScopes(instruction: string): string {
  try {
    const [action] = parseInstructions(instruction);
    const scopes = action && "target" in action ? action.target?.scopes : undefined;
    return scopes?.length ? scopeText(scopes).trim() : "";
  } catch {
    return "";
  }
}

function trimDot(text: string): string {
  return text.replace(/\.\s*$/, "");
}


