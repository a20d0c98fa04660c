/**
 * The model's ACT: the model picks actions (the grammar's verbs) on element references of the page
 * view; the grammar's own Playwright code carries them out (`act/`), and the step reports the grammar
 * instruction that ran and each element's identity.
 */
import type { FrameLocator, Page } from "playwright-core";
import { redactText } from "@wf/core";
import { InterpreterError } from "../errors.js";
import { StepClock } from "../_clock.js";
import { answerErrors } from "../read/index.js";
import { misfit, misfitError, performAction, verifyElement, type ActionDone, type PerformOptions } from "../act/index.js";
import { normalizeKey, type ParsedAction, type TargetSpec } from "../grammar/index.js";
import { recordInstruction, ROLE_WORDS } from "../lock/index.js";
import { locateTarget, type FoundElement } from "../locate/index.js";
import type { ActContext, ActResult, ElementIdentity, TabSelector } from "../types.js";
import { identifyViewElements, readPageView, recordSettle, type ViewElement } from "../page/index.js";
import type { ChatMessage } from "./provider.js";
import { clip, type AnswerCheck, type ModelConversation } from "./conversation.js";
import { ACT_RESPONSE_SCHEMA, ACT_SYSTEM_PROMPT, stepMessage, tabsLine, type ModelAction } from "./prompts.js";

/**
 * Carries out an ACT with the model.
 * @param perform - how actions are carried out (the grammar's options).
 * @throws {@link InterpreterError} `WF_MODEL_NO_MATCH` (nothing on the page does it), those of
 *   {@link ModelConversation.converse}, and those of the actions it runs.
 */
export async function modelAct(context: ActContext, { converse, pageBudget, schemaInPromptText }: ModelConversation, perform: Omit<PerformOptions, "locate">): Promise<ActResult> {
  context.report.interpreter = "model";
  const clock = new StepClock(context.timeoutMs, context.signal);
  return clock.guard(async () => {
    const { text: instruction, placeholders } = placeholdSecrets(context.instruction, context.secrets);
    const tabs = context.tabs ? tabsLine((await context.tabs.list()).map((t) => ({ ...t, title: maskSecrets(clip(t.title, 80), context.secrets), url: maskSecrets(clip(t.url, 120), context.secrets) }))) : undefined;
    const fixed = ACT_SYSTEM_PROMPT + stepMessage("Instruction", instruction, "", tabs) + schemaInPromptText(ACT_RESPONSE_SCHEMA.schema);
    const view = await readPageView(
      context.page,
      { purpose: "act", query: instruction, budgetTokens: pageBudget(fixed), secrets: context.secrets, ...(context.settleTimeoutMs !== undefined ? { quietMs: context.settleTimeoutMs } : {}), ...(context.settled ? { settled: context.settled } : {}) },
      () => clock.left(),
    );
    if (view.reduced) context.report.pageReduced = true;
    if (view.settle) recordSettle(context.report, view.settle);
    const messages: ChatMessage[] = [
      { role: "system", content: ACT_SYSTEM_PROMPT },
      { role: "user", content: stepMessage("Instruction", instruction, view.text, tabs) },
    ];
    const plan = await converse(messages, ACT_RESPONSE_SCHEMA, clock, context.report, (json) => checkPlan(json, view.elements, placeholders, instruction));
    if (!plan.actions || plan.actions.length === 0) {
      throw new InterpreterError(
        "WF_MODEL_NO_MATCH",
        `The model found nothing on the page that does ${JSON.stringify(instruction)}: ${clip(plan.reason)} Check the page is the one you expect, or say more precisely what to act on.`,
      );
    }
    const done: ActionDone[] = [];
    const ran: NonNullable<ActResult["actions"]> = [];
    let element: ElementIdentity | undefined;
    for (const action of plan.actions) {
      const target = action.ref ? await resolveRef(context.page, view.elements, action.ref) : undefined;
      const parsed = toParsedAction(action, target?.spec, placeholders);
      // The verb fits the element as the reference's resolution read it (judged again by performAction on the same facts; a disabled or hidden one is read live): a misfit is never recorded.
      if (target) await verifyElement(context.page, target.found, parsed, true, clock, perform.findTimeoutMs);
      // Recorded as an instruction the grammar resolves to this very element (checked before acting).
      const recorded = await recordInstruction(context.page, parsed, target, clock);
      ran.push({ instruction: recorded.instruction, ...(recorded.element ? { element: recorded.element } : {}) });
      context.report.resolved = ran.map((a) => a.instruction).join("; ");
      // The action's own element is the one the model named; another the verb reaches (a custom
      // dropdown's option) is found as the grammar finds it.
      let given = false;
      done.push(
        await performAction(context.page, parsed, clock, {
          ...perform,
          locate: async (spec, purpose, waitMs) => {
            if (given) return locateTarget(context.page, spec, purpose, waitMs, clock.signal, undefined, clock.left());
            given = true;
            return target!.found;
          },
          ...(context.tabs ? { tabs: context.tabs } : {}),
          ...(context.uploads ? { uploads: context.uploads } : {}),
        }),
      );
      if (recorded.element) element = recorded.element;
    }
    const last = done[done.length - 1]!;
    return {
      ...last,
      message: `${done.map((d) => d.message).join("; ")} (the model: ${clip(plan.reason)})`,
      url: context.page.url(),
      ...(element ? { element } : {}),
      actions: ran,
    };
  });
}

/**
 * Checks a plan: verbs with what they need, refs that exist, placeholders only as given, files to
 * upload only as the instruction (as the model saw it, secrets as placeholders) names them, and
 * each verb fitting its element as the page view recorded it (`check` a checkbox, not a button;
 * nothing disabled): such a misfit is re-asked naming it, then fails the step with its own code
 * (`WF_ACTION_NOT_APPLICABLE`, `WF_ELEMENT_DISABLED`).
 */
function checkPlan(json: unknown, elements: ViewElement[], placeholders: Map<string, string>, instruction: string): AnswerCheck<{ reason: string; actions: ModelAction[] | null }> {
  const plan = json as { reason?: unknown; actions?: unknown };
  if (!plan || typeof plan !== "object" || typeof plan.reason !== "string" || !("actions" in plan)) return { ok: false, problem: "it needs `reason` (a string) and `actions` (a list, or null)." };
  const errors = answerErrors(json, ACT_RESPONSE_SCHEMA.schema);
  if (errors.length > 0) return { ok: false, problem: `it does not fit the structure: ${errors.map((e) => `${e.path} ${e.message}`).join("; ")}.` };
  const actions = plan.actions as ModelAction[] | null;
  if (actions && actions.length > 5) return { ok: false, problem: "it has more than 5 actions." };
  for (const [i, a] of (actions ?? []).entries()) {
    const needsRef = !["goto", "back", "forward", "reload", "press", "switch_tab", "close_tab"].includes(a.verb);
    const needsValue = ["fill", "select", "press", "goto", "upload", "switch_tab"].includes(a.verb);
    if (needsRef && !a.ref) return { ok: false, problem: `action ${i + 1} (${a.verb}) needs the ref of an element.` };
    if (a.ref && !elementOf(a.ref, elements)) return { ok: false, problem: `action ${i + 1} refers to ${a.ref}, which is not on the page; use a ref written on the page, like e1.` };
    if (needsValue && (a.value === null || a.value === "")) return { ok: false, problem: `action ${i + 1} (${a.verb}) needs a value.` };
    if (a.verb === "press" && !normalizeKey(a.value ?? "")) return { ok: false, problem: `action ${i + 1}: ${JSON.stringify(a.value)} is not a key name (Enter, Tab, Escape, ArrowDown, Control+A…).` };
    if (a.verb === "upload" && !namesFile(instruction, a.value!)) {
      return { ok: false, problem: `action ${i + 1} uploads ${JSON.stringify(a.value)}, which is not a file the instruction names; upload only a path written in the instruction, exactly as written.` };
    }
    for (const p of (a.value ?? "").match(/\{\{[^{}]*\}\}/g) ?? []) {
      if (!placeholders.has(p)) return { ok: false, problem: `action ${i + 1} uses ${p}, which is not a placeholder of the instruction.` };
    }
    const element = a.ref ? elementOf(a.ref, elements) : undefined;
    if (element) {
      const spec: TargetSpec = { text: element.name, roles: [element.role], quoted: true };
      const wrong = misfit(toParsedAction(a, spec, placeholders), element.facts, true);
      if (wrong) {
        const described = `${element.role} ${JSON.stringify(element.name)}`;
        return {
          ok: false,
          problem: `action ${i + 1} (${a.verb}) is on ${a.ref}, ${described}, which ${wrong.why}. Choose an element it applies to, or answer \`actions: null\` if the page has none.`,
          failure: () => misfitError(wrong, `The model chose to ${a.verb} ${described}, which`, element, "The model was asked again and chose no element it applies to. Check the page is the one you expect, or say more precisely what to act on."),
        };
      }
    }
  }
  return { ok: true, value: { reason: plan.reason, actions } };
}

/** The element a reference of the view names (`e12`, `[e12]`, `f1e3`), or undefined. */
function elementOf(ref: string, elements: ViewElement[]): ViewElement | undefined {
  const key = /^\[?((?:f\d+)?e\d+)\]?$/i.exec(ref.trim())?.[1]?.toLowerCase();
  return key === undefined ? undefined : elements.find((e) => e.ref === key);
}

/** Whether the instruction names `path` as a whole word (a quoted or bare path, or a placeholder). */
function namesFile(instruction: string, path: string): boolean {
  const p = path.trim();
  if (!p) return false;
  let from = 0;
  for (let at = instruction.indexOf(p, from); at >= 0; at = instruction.indexOf(p, from)) {
    const before = instruction[at - 1];
    const rest = instruction.slice(at + p.length);
    if ((before === undefined || /[\s"'“‘(]/.test(before)) && /^(?:$|[\s"'”’),;:!?]|\.(?:\s|$))/.test(rest)) return true;
    from = at + 1;
  }
  return false;
}

/** A tab as a `switch_tab`/`close_tab` value names it: a position (`2`) or a title. */
function tabOf(value: string | null): TabSelector {
  const v = (value ?? "").trim();
  if (/^\d+$/.test(v)) return { index: Number(v) };
  return { text: v };
}

interface ResolvedTarget {
  found: FoundElement;
  identity: ElementIdentity;
  spec: TargetSpec;
  /** 1-based position among elements of the same locator (twins), or undefined when it is the only one. */
}

/**
 * Turns a reference of the page view back into the element, its identity and a readable locator.
 * An element inside iframes is found through them (`frameLocator`), so its locator names the frames.
 */
async function resolveRef(page: Page, elements: ViewElement[], ref: string): Promise<ResolvedTarget> {
  const element = elementOf(ref, elements)!;
  const locator = element.frames.reduce<Page | FrameLocator>((scope, frame) => scope.frameLocator(frame), page).locator(element.selector);
  // The page may have changed since the view (an earlier action navigated or re-rendered it): the
  // element at that place must still be the one the model saw, or nothing is done. One round trip
  // says how many are there, who the one is, its link target and its facts (judged by the checks
  // before the action, which then read them no more). The readable locator is asked meanwhile.
  const normalizing = locator.normalize().then(
    (l) => l.toString(),
    () => undefined,
  );
  const matches = await locator.evaluateAll(identifyViewElements).catch(() => []);
  const now = matches.length === 1 ? matches[0] : undefined;
  if (!now || now.role !== element.role || now.name !== element.name) {
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `The element the model chose (${element.role} ${JSON.stringify(element.name)}) is no longer on the page${now ? ` (in its place: ${now.role} ${JSON.stringify(now.name)})` : ""}: the page changed while the step ran. Nothing was done to it.`,
      { target: element.name, ...(now ? { candidates: [{ role: now.role, name: now.name }] } : {}) },
    );
  }
  const normalized = await normalizing;
  const href = now.href;
  const ordinal = ordinalOf(normalized);
  return {
    found: { locator, description: `${element.role} ${JSON.stringify(element.name)}`, href, role: element.role, name: element.name, facts: now.facts },
    identity: { role: element.role, name: element.name, ...(normalized ? { locator: normalized } : {}) },
    spec: { text: element.name, roles: [element.role], roleWord: ROLE_WORDS[element.role], quoted: true, ...(ordinal ? { ordinal } : {}) },
  };
}

/** `.nth(1)` → 2, `.first()` → 1, `.last()` → -1 of a normalized locator; undefined when it names one element. */
function ordinalOf(locator: string | undefined): number | undefined {
  if (!locator) return undefined;
  const nth = /\.nth\((\d+)\)\s*$/.exec(locator)?.[1];
  if (nth !== undefined) return Number(nth) + 1;
  if (/\.first\(\)\s*$/.test(locator)) return 1;
  if (/\.last\(\)\s*$/.test(locator)) return -1;
  return undefined;
}

function toParsedAction(action: ModelAction, target: TargetSpec | undefined, placeholders: Map<string, string>): ParsedAction {
  const value = action.value === null ? "" : unplaceholder(action.value, placeholders);
  const t = target!;
  switch (action.verb) {
    case "click":
      return { verb: "click", target: t };
    case "double_click":
      return { verb: "dblclick", target: t };
    case "right_click":
      return { verb: "rightclick", target: t };
    case "hover":
      return { verb: "hover", target: t };
    case "fill":
      return { verb: "fill", text: value, target: t, typed: true };
    case "clear":
      return { verb: "clear", target: t };
    case "select":
      return { verb: "select", option: value, target: t };
    case "check":
      return { verb: "check", target: t };
    case "uncheck":
      return { verb: "uncheck", target: t };
    case "press":
      return { verb: "press", key: normalizeKey(value)!, ...(target ? { target } : {}) };
    case "scroll_to":
      return { verb: "scroll-to", target: t };
    case "goto":
      return { verb: "goto", url: value };
    case "back":
    case "forward":
    case "reload":
      return { verb: action.verb };
    case "upload":
      return { verb: "upload", path: value, target: t };
    case "switch_tab":
      return { verb: "switch-tab", tab: tabOf(value) };
    case "close_tab":
      return { verb: "close-tab", tab: action.value === null || action.value.trim() === "" ? { current: true } : tabOf(value) };
  }
}

/** Replaces each secret in a text by `[secret]`. */
function maskSecrets(text: string, secrets: readonly string[]): string {
  return redactText(text, secrets);
}

/** Replaces each secret in an instruction by a placeholder `{{secretN}}`, remembering which is which. */
function placeholdSecrets(text: string, secrets: readonly string[]): { text: string; placeholders: Map<string, string> } {
  const placeholders = new Map<string, string>();
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (!secret || !out.includes(secret)) continue;
    const name = `{{secret${placeholders.size + 1}}}`;
    placeholders.set(name, secret);
    out = out.split(secret).join(name);
  }
  return { text: out, placeholders };
}

function unplaceholder(value: string, placeholders: Map<string, string>): string {
  return value.replace(/\{\{[^{}]*\}\}/g, (p) => placeholders.get(p) ?? p);
}

