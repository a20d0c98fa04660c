/**
 * The model's check: a statement in no grammar form, judged by the model on the page view. It
 * answers strictly `{ holds, reason, evidence }`; `evidence` must be page content of the view the
 * model was sent, long enough to say something and bearing on the statement (the rule:
 * `evidence.ts`). An answer whose evidence is not is no evidence: it never passes, and a check
 * whose last answer was such fails `WF_ANSWER_UNCERTAIN`. The loop (retry until it holds) is
 * `../check/evaluate.ts`'s.
 */
import { pollCheck, type Verdict } from "../check/index.js";
import { StepClock } from "../_clock.js";
import { recordCheckRecipe } from "../lock/index.js";
import type { CheckContext, CheckResult, StepReport } from "../types.js";
import { readPageView, recordSettle, type ViewSource } from "../page/index.js";
import { MIN_WORDS, weighEvidence } from "./evidence.js";
import type { ModelConversation } from "./conversation.js";
import type { ChatMessage } from "./provider.js";
import { ASK_PAGE_FORMAT, stepMessage } from "./prompts.js";

/** System prompt of a check. */
export const CHECK_SYSTEM_PROMPT = [
  "You check whether a statement about a web page is true, for a browser-automation tool's assertions, and answer as JSON in the requested structure.",
  ASK_PAGE_FORMAT,
  "Answer with:",
  "- holds: true only when the page below shows the statement to be true; false when it shows it false or does not show enough to tell.",
  "- reason: one short sentence saying why.",
  `- evidence: text copied character for character from the page below that your answer rests on (at most 200 characters): the words that show the statement true, or, when it is false, what the page shows instead. Quote an element's whole text (a table row's cells, a line, a button's name) or at least ${MIN_WORDS} words, including the names and numbers the statement speaks of. Quote the page's own words: never the "Page:" or "URL:" lines, role words or states the view adds. Never paraphrase it, never quote the statement itself, never write text the page does not show.`,
  "Rules:",
  "- Judge only from the page below, never from your own knowledge, and never assume what is not shown.",
  "- Text shown as [secret] is hidden from you: never try to reconstruct it.",
].join("\n");

/** The structured output of a check (an OpenAI strict response format schema). */
export const CHECK_RESPONSE_SCHEMA: { name: string; schema: Record<string, unknown> } = {
  name: "wf_check",
  schema: {
    type: "object",
    properties: {
      holds: { type: "boolean", description: "Whether the page shows the statement to be true." },
      reason: { type: "string", description: "One short sentence: why it holds or not." },
      evidence: { type: "string", description: "Text copied exactly from the page that the answer rests on." },
    },
    required: ["holds", "reason", "evidence"],
    additionalProperties: false,
  },
};

/** Pauses between the model's evaluations of a check, in ms: a model call is slow and costs tokens. */
export const MODEL_CHECK_POLL_MS = [1_000, 2_000];


/**
 * Evaluates the statement with the model until it holds or the check's time is up.
 * @throws {@link InterpreterError} `WF_CHECK_FAILED`, `WF_ANSWER_UNCERTAIN` (the last answer quoted
 *   nothing on the page), the provider's codes, `WF_STEP_TIMEOUT`.
 */
export async function modelCheck(context: CheckContext, tools: ModelConversation): Promise<CheckResult> {
  context.report.interpreter = "model";
  const clock = new StepClock(context.timeoutMs, context.signal);
  // The page text the last verdict rested on (when it held): what a check recipe is derived from.
  let grounded: string | undefined;
  const statement = maskSecrets(context.statement, context.secrets);
  const fixed = CHECK_SYSTEM_PROMPT + stepMessage("Statement", statement, "") + tools.schemaInPromptText(CHECK_RESPONSE_SCHEMA.schema);
  const result = await pollCheck(context, "model", MODEL_CHECK_POLL_MS, async (clock) => {
    const view = await readPageView(context.page, { purpose: "ask", query: statement, budgetTokens: tools.pageBudget(fixed), secrets: context.secrets, ...(context.settleTimeoutMs !== undefined ? { quietMs: context.settleTimeoutMs } : {}) }, () => clock.left());
    if (view.reduced) context.report.pageReduced = true;
    if (view.settle) recordSettle(context.report, view.settle);
    const messages: ChatMessage[] = [
      { role: "system", content: CHECK_SYSTEM_PROMPT },
      { role: "user", content: stepMessage("Statement", statement, view.text) },
    ];
    const answer = await tools.converse(messages, CHECK_RESPONSE_SCHEMA, clock, context.report, (json) => {
      const a = json as { holds?: unknown; reason?: unknown; evidence?: unknown };
      if (!a || typeof a !== "object" || typeof a.holds !== "boolean" || typeof a.reason !== "string" || typeof a.evidence !== "string") {
        return { ok: false, problem: "it needs `holds` (true or false), `reason` and `evidence` (strings)." };
      }
      return { ok: true, value: { holds: a.holds, reason: a.reason, evidence: a.evidence } };
    });
    const verdict = judge(answer, statement, view.source);
    grounded = verdict.holds && !verdict.uncertain ? verdict.grounded : undefined;
    return verdict;
  });
  if (context.deriveRecipe) {
    // A statement that names a secret is masked for the model: its recipe would hold the secret's text.
    const derived =
      grounded === undefined ? { noRecipe: "the model's verdict rested on no page text" } : statement !== context.statement ? { noRecipe: "the statement holds a secret param's value" } : await recordCheckRecipe(context.page, context.statement, grounded, clock);
    if ("recipe" in derived) context.report.checkRecipe = derived.recipe;
    else context.report.noRecipe = derived.noRecipe;
  }
  return result;
}

/** The model's answer as a verdict: uncertain unless its evidence is page content that says something and bears on the statement. */
export function judge(answer: { holds: boolean; reason: string; evidence: string }, statement: string, source: ViewSource): Verdict & { grounded?: string } {
  const reason = sentence(answer.reason);
  const weight = weighEvidence(answer.evidence, statement, answer.holds, source);
  if (!weight.ok) {
    const quoted = clip(answer.evidence.replace(/\s+/g, " ").trim());
    return {
      holds: false,
      uncertain: true,
      reason: `the model answered that it ${answer.holds ? "holds" : "does not hold"} (${reason}) but its evidence ${quoted ? `${JSON.stringify(quoted)} ` : ""}${weight.why}.`,
      evidence: clip(answer.evidence),
    };
  }
  return { holds: answer.holds, reason: `the model: ${reason}`, evidence: JSON.stringify(clip(weight.text)), grounded: weight.text };
}

function sentence(text: string): string {
  const t = clip(text.replace(/\s+/g, " ").trim(), 300);
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Replaces each secret in a text by `[secret]`. */
function maskSecrets(text: string, secrets: readonly string[]): string {
  return [...secrets].sort((a, b) => b.length - a.length).reduce((t, s) => (s ? t.split(s).join("[secret]") : t), text);
}
