/**
 * The model-backed step interpreter, and the policy that puts it behind the grammar.
 *
 * ASK: the question and the page view go to the model with the step's own structured output as
 * the response format; the answer is validated against the step's schema, with one retry that says
 * what was wrong. ACT: the model picks actions (the grammar's verbs) on element references of the
 * page view; the grammar's own Playwright code carries them out, and the step reports the grammar
 * instruction that ran and each element's identity.
 */
import type { FrameLocator, Page } from "playwright-core";
import { redactText } from "@wf/core";
import { InterpreterError } from "../errors.js";
import { StepClock } from "../_clock.js";
import { answerErrors } from "../read/index.js";
import { performAction, type ActionDone, type PerformOptions } from "../act/index.js";
import { normalizeKey, type ParsedAction, type TargetSpec } from "../grammar/index.js";
import { ROLE_WORDS } from "../lock/index.js";
import { recordInstruction } from "../lock/index.js";
import type { FoundElement } from "../locate/index.js";
import type { ActContext, ActResult, AskContext, ElementIdentity, StepInterpreter, StepReport, TabSelector } from "../types.js";
import { modelCheck } from "./check.js";
import { routeCheck } from "../check/index.js";
import { estimateTokens, readPageView, wantsLinkTargets, type ViewElement } from "../page/index.js";
import { identifyViewElements } from "../page/index.js";
import { addUsage, ProviderCallError, schemaInstruction, type ChatMessage, type Completion, type ModelProvider } from "./provider.js";
import {
  ACT_RESPONSE_SCHEMA,
  ACT_SYSTEM_PROMPT,
  ACT_VERBS,
  ASK_SYSTEM_PROMPT,
  retryMessages,
  stepMessage,
  tabsLine,
  TEXT_ANSWER_SCHEMA,
  type ModelAction,
} from "./prompts.js";

/** Default prompt budget, in estimated tokens (`WF_MODEL_MAX_PROMPT_TOKENS`). */
export const DEFAULT_MAX_PROMPT_TOKENS = 12_000;

/** Options of {@link createModelInterpreter}. */
export interface ModelInterpreterOptions {
  provider: ModelProvider;
  /** Largest prompt, in estimated tokens (characters ÷ 4): system prompt, step and page together. @default 12_000 */
  maxPromptTokens?: number;
  /** How actions are carried out (the grammar's options, shared with the deterministic interpreter). */
  perform: Omit<PerformOptions, "locate">;
}

/** Tries per model question: the first answer, and one retry after an invalid or refused one. */
const MAX_ATTEMPTS = 2;

/**
 * Creates the model-backed interpreter.
 * @throws (from `act`/`ask`) {@link InterpreterError}: `WF_MODEL_NO_MATCH`, `WF_MODEL_ANSWER_INVALID`,
 *   `WF_MODEL_REFUSED`, `WF_ANSWER_NOT_FOUND` (a text ASK the page does not answer), the provider's
 *   codes (`WF_MODEL_AUTH_FAILED`, `WF_MODEL_NOT_FOUND`, `WF_MODEL_RATE_LIMITED`, `WF_MODEL_UNAVAILABLE`,
 *   `WF_MODEL_BAD_REQUEST`), `WF_STEP_TIMEOUT`, and those of the actions it runs.
 */
export function createModelInterpreter(options: ModelInterpreterOptions): StepInterpreter {
  const { provider } = options;
  const maxPromptTokens = options.maxPromptTokens ?? DEFAULT_MAX_PROMPT_TOKENS;

  /** Asks the model until it gives an answer `check` accepts, at most {@link MAX_ATTEMPTS} times. */
  async function converse<T>(
    messages: ChatMessage[],
    schema: { name: string; schema: Record<string, unknown> },
    clock: StepClock,
    report: StepReport,
    check: (json: unknown) => { ok: true; value: T } | { ok: false; problem: string },
  ): Promise<T> {
    let lastProblem = "";
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let completion: Completion;
      try {
        completion = await provider.complete({ messages, schema, timeoutMs: clock.left(), signal: clock.signal });
      } catch (error) {
        if (error instanceof ProviderCallError) report.usage = addUsage(report.usage, provider.model, { promptTokens: 0, completionTokens: 0, durationMs: error.durationMs });
        throw error;
      }
      report.usage = addUsage(report.usage, provider.model, completion);
      if (completion.refusal) {
        if (attempt === MAX_ATTEMPTS) {
          throw new InterpreterError("WF_MODEL_REFUSED", `The model (${provider.model}) refused to answer, twice: ${clip(completion.refusal)}. Rephrase the step.`);
        }
        messages = [...messages, ...retryMessages(null, `you refused (${clip(completion.refusal)}). The page is the user's own; read it and answer.`)];
        continue;
      }
      const problem = (() => {
        if (completion.finishReason === "length") return "it was cut off (the output limit was reached); answer more briefly.";
        if (!completion.content) return "it was empty.";
        let json: unknown;
        try {
          json = JSON.parse(stripFence(completion.content));
        } catch {
          return "it is not valid JSON.";
        }
        const checked = check(json);
        if (checked.ok) return checked;
        return checked.problem;
      })();
      if (typeof problem !== "string") return problem.value;
      lastProblem = problem;
      if (attempt < MAX_ATTEMPTS) messages = [...messages, ...retryMessages(completion.content, problem)];
    }
    throw new InterpreterError(
      "WF_MODEL_ANSWER_INVALID",
      `The model (${provider.model}) gave no valid answer in ${MAX_ATTEMPTS} tries; the last one: ${lastProblem} ` +
        (provider.responseFormat === "json_object" ? "Use a larger model." : "Use a larger model, or check that the endpoint honours strict json_schema response formats."),
    );
  }

  /**
   * What the provider adds to the prompt for the schema, counted in the budget: in `json_object`
   * mode the schema is written into the system prompt. (A request that falls back from
   * json_schema to json_object on its first call carries it once over the budget's margin.)
   */
  function schemaInPromptText(schema: Record<string, unknown>): string {
    return provider.responseFormat === "json_object" ? schemaInstruction(schema) : "";
  }

  /** Tokens the page may take: the budget less the rest of the prompt (and a margin for the retry). */
  function pageBudget(fixed: string): number {
    return Math.max(200, maxPromptTokens - estimateTokens(fixed) - 300);
  }

  return {
    check: (context) => modelCheck(context, { converse, pageBudget, schemaInPromptText }),

    async ask(context: AskContext): Promise<unknown> {
      context.report.interpreter = "model";
      const clock = new StepClock(context.timeoutMs, context.signal);
      return clock.guard(async () => {
        const question = maskSecrets(context.question, context.secrets);
        const schema = context.schema ?? TEXT_ANSWER_SCHEMA;
        const fixed = ASK_SYSTEM_PROMPT + stepMessage("Question", question, "") + schemaInPromptText(schema.schema);
        const linkTargets = wantsLinkTargets(`${question} ${context.schema ? JSON.stringify(context.schema.schema) : ""}`);
        const view = await readPageView(context.page, { purpose: "ask", query: question, budgetTokens: pageBudget(fixed), secrets: context.secrets, linkTargets }, () => clock.left());
        if (view.reduced) context.report.pageReduced = true;
        const messages: ChatMessage[] = [
          { role: "system", content: ASK_SYSTEM_PROMPT },
          { role: "user", content: stepMessage("Question", question, view.text) },
        ];
        const answer = await converse(messages, schema, clock, context.report, (json) => {
          const errors = answerErrors(json, schema.schema);
          return errors.length === 0 ? { ok: true, value: json } : { ok: false, problem: `it does not fit the schema: ${errors.map((e) => `${e.path || "(root)"} ${e.message}`).join("; ")}.` };
        });
        if (context.schema) return answer;
        const text = (answer as { value: string | null }).value;
        if (text === null) throw new InterpreterError("WF_ANSWER_NOT_FOUND", `The model found no answer on the page to ${JSON.stringify(question)}.`);
        return text;
      });
    },

    async act(context: ActContext): Promise<ActResult> {
      context.report.interpreter = "model";
      const clock = new StepClock(context.timeoutMs, context.signal);
      return clock.guard(async () => {
        const { text: instruction, placeholders } = placeholdSecrets(context.instruction, context.secrets);
        const tabs = context.tabs ? tabsLine((await context.tabs.list()).map((t) => ({ ...t, title: maskSecrets(clip(t.title, 80), context.secrets), url: maskSecrets(clip(t.url, 120), context.secrets) }))) : undefined;
        const fixed = ACT_SYSTEM_PROMPT + stepMessage("Instruction", instruction, "", tabs) + schemaInPromptText(ACT_RESPONSE_SCHEMA.schema);
        const view = await readPageView(context.page, { purpose: "act", query: instruction, budgetTokens: pageBudget(fixed), secrets: context.secrets }, () => clock.left());
        if (view.reduced) context.report.pageReduced = true;
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
          // Recorded as an instruction the grammar resolves to this very element (checked before acting).
          const recorded = await recordInstruction(context.page, parsed, target, clock);
          ran.push({ instruction: recorded.instruction, ...(recorded.element ? { element: recorded.element } : {}) });
          context.report.resolved = ran.map((a) => a.instruction).join("; ");
          done.push(
            await performAction(context.page, parsed, clock, {
              ...options.perform,
              locate: async () => target!.found,
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
    },
  };
}

/**
 * Longest wait of the grammar for a target to appear when a model is configured, in ms: as long as
 * the model's page view waits for a quiet page (`readPageView`'s `quietMs` default), since the model
 * reads the page anyway once the grammar gives up. See docs/decisions.md, "Hand-over to the model".
 */
export const HAND_OVER_FIND_MS = 2_000;

/** Options of {@link createGrammarThenModelInterpreter}. */
export interface GrammarThenModelOptions {
  /** Longest wait of the grammar for its first target to appear before the model gets the step, in ms. @default {@link HAND_OVER_FIND_MS} */
  grammarFindTimeoutMs?: number;
}

/**
 * The policy when a model is configured: an ACT goes to the grammar first (no model call when it
 * understands the instruction and finds its target), and to the model when the grammar does not
 * understand it (at once: the parse comes before any wait), finds no target (after at most
 * `grammarFindTimeoutMs`, and less on a page that has settled), or finds several; an ASK goes to the model.
 */
export function createGrammarThenModelInterpreter(grammar: StepInterpreter, model: StepInterpreter, options: GrammarThenModelOptions = {}): StepInterpreter {
  const grammarFindMs = options.grammarFindTimeoutMs ?? HAND_OVER_FIND_MS;
  return {
    check: (context) => routeCheck(grammar, model, context),
    async act(context: ActContext): Promise<ActResult> {
      const started = Date.now();
      try {
        return await grammar.act({ ...context, firstFindTimeoutMs: Math.min(context.firstFindTimeoutMs ?? Infinity, grammarFindMs) });
      } catch (error) {
        if (!handsOverToModel(error) || context.signal.aborted) throw error;
        if (context.allowModel === false) throw modelForbidden(error as InterpreterError, "the grammar");
        context.report.resolved = undefined;
        return model.act({ ...context, timeoutMs: Math.max(1, context.timeoutMs - (Date.now() - started)) });
      }
    },
    async ask(context: AskContext): Promise<unknown> {
      if (context.allowModel !== false) return model.ask(context);
      // No model for this step: the page reader answers, as on a service without a model.
      try {
        return await grammar.ask(context);
      } catch (error) {
        if (!(error instanceof InterpreterError) || context.signal.aborted || error.code === "WF_STEP_TIMEOUT") throw error;
        throw modelForbidden(error, "the page reader");
      }
    },
  };
}

/** The failure of a step sent with `allowModel: false` that the grammar or page reader could not carry out alone. */
function modelForbidden(error: InterpreterError, who: string): InterpreterError {
  return new InterpreterError(
    "WF_MODEL_FORBIDDEN",
    `The step needs the model, and it was sent with allowModel: false (no model was called). ${who[0]!.toUpperCase()}${who.slice(1)} alone: ${error.message}`,
    { ...error.details, cause: { code: error.code, message: error.message } },
  );
}

/** Grammar failures the model may resolve: only before the grammar acted (its first action, or the parse). */
function handsOverToModel(error: unknown): boolean {
  if (!(error instanceof InterpreterError)) return false;
  if (!["WF_INSTRUCTION_NOT_UNDERSTOOD", "WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS"].includes(error.code)) return false;
  const index = error.details.actionIndex;
  return index === undefined || index === 0;
}

/**
 * Checks a plan: verbs with what they need, refs that exist, placeholders only as given, and files
 * to upload only as the instruction (as the model saw it, secrets as placeholders) names them.
 */
function checkPlan(json: unknown, elements: ViewElement[], placeholders: Map<string, string>, instruction: string): { ok: true; value: { reason: string; actions: ModelAction[] | null } } | { ok: false; problem: string } {
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
  // says how many are there, who the one is, and its link target.
  const matches = await locator.evaluateAll(identifyViewElements).catch(() => []);
  const now = matches.length === 1 ? matches[0] : undefined;
  if (!now || now.role !== element.role || now.name !== element.name) {
    throw new InterpreterError(
      "WF_ELEMENT_NOT_FOUND",
      `The element the model chose (${element.role} ${JSON.stringify(element.name)}) is no longer on the page${now ? ` (in its place: ${now.role} ${JSON.stringify(now.name)})` : ""}: the page changed while the step ran. Nothing was done to it.`,
      { target: element.name, ...(now ? { candidates: [{ role: now.role, name: now.name }] } : {}) },
    );
  }
  const normalized = await locator.normalize().then(
    (l) => l.toString(),
    () => undefined,
  );
  const href = now.href;
  const ordinal = ordinalOf(normalized);
  return {
    found: { locator, description: `${element.role} ${JSON.stringify(element.name)}`, href, role: element.role, name: element.name },
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

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

function clip(text: string, max = 300): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}
