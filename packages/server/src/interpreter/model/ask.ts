/**
 * The model's ASK: the question and the page view go to the model, which answers in the step's own
 * structure with the page text each value comes from (`grounding.ts`); the answer counts only when
 * it fits the step's schema and the page supports every value in it, with one retry that says
 * what was wrong.
 */
import { redactText } from "@wf/core";
import { InterpreterError } from "../errors.js";
import { StepClock } from "../_clock.js";
import { answerErrors } from "../read/index.js";
import { recordReadRecipe } from "../lock/index.js";
import type { AskContext } from "../types.js";
import { readPageView, recordSettle, wantsLinkTargets } from "../page/index.js";
import type { ChatMessage } from "./provider.js";
import type { ModelConversation } from "./conversation.js";
import { ANSWER_KEY, groundAnswer, groundedResponseSchema, splitGroundedAnswer, userPath, type UngroundedValue } from "./grounding.js";
import { ASK_SYSTEM_PROMPT, stepMessage, TEXT_ANSWER_SCHEMA } from "./prompts.js";

/**
 * Answers an ASK with the model; the answer's grounding goes to `context.report.grounding`. With
 * `context.deriveRecipe`, a read recipe of the answer goes to `context.report.recipe` (or why none,
 * `noRecipe`): the page is read once more for it, so only a lock being written asks.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` (values the page does not support, also
 *   when asked again; `details.fields` names them), `WF_ANSWER_NOT_FOUND` (a text ASK the page
 *   does not answer), and those of {@link ModelConversation.converse}.
 */
export async function modelAsk(context: AskContext, { converse, pageBudget, schemaInPromptText }: ModelConversation): Promise<unknown> {
  context.report.interpreter = "model";
  const clock = new StepClock(context.timeoutMs, context.signal);
  return clock.guard(async () => {
    const question = redactText(context.question, context.secrets);
    const step = context.schema ?? TEXT_ANSWER_SCHEMA;
    const format = groundedResponseSchema(step);
    const fixed = ASK_SYSTEM_PROMPT + stepMessage("Question", question, "") + schemaInPromptText(format.schema);
    const linkTargets = wantsLinkTargets(`${question} ${context.schema ? JSON.stringify(context.schema.schema) : ""}`);
    const view = await readPageView(context.page, { purpose: "ask", query: question, budgetTokens: pageBudget(fixed), secrets: context.secrets, ...(context.settleTimeoutMs !== undefined ? { quietMs: context.settleTimeoutMs } : {}), linkTargets }, () => clock.left());
    if (view.reduced) context.report.pageReduced = true;
    if (view.settle) recordSettle(context.report, view.settle);
    const pageUrl = context.page.url();
    const wrapped = !context.schema || isWrappedSchema(step.schema);
    const messages: ChatMessage[] = [
      { role: "system", content: ASK_SYSTEM_PROMPT },
      { role: "user", content: stepMessage("Question", question, view.text) },
    ];
    const grounded = await converse(messages, format, clock, context.report, (json) => {
      const errors = answerErrors(json, format.schema);
      if (errors.length > 0) return { ok: false, problem: `it does not fit the schema: ${errors.map((e) => `${withinAnswer(e.path)} ${e.message}`).join("; ")}.` };
      const split = splitGroundedAnswer(json);
      if ("problem" in split) return { ok: false, problem: split.problem };
      const { answer, quotes } = split;
      const grounding = groundAnswer(answer, quotes, step.schema, view.source, pageUrl);
      if (grounding.problems.length === 0) return { ok: true, value: { answer, grounding: grounding.values } };
      return {
        ok: false,
        problem:
          `the page does not support ${grounding.problems.length === 1 ? "this value" : "these values"}: ${describe(grounding.problems, (p) => p)}. ` +
          "Copy each value as the page writes it, and under `quotes` the page text it comes from; answer null for what the page does not state.",
        failure: () => unsupported(context.question, grounding.problems, wrapped),
      };
    });
    context.report.grounding = grounded.grounding;
    if (context.schema) {
      // What a lock records to replay this read with no model: kept only when it reproduces the answer here.
      // Only when asked (a lock being written): it reads the page once more.
      if (context.deriveRecipe) {
        const derived = await recordReadRecipe(context.page, grounded.answer, context.schema.schema, grounded.grounding, clock, context.question);
        if ("recipe" in derived) context.report.recipe = derived.recipe;
        else context.report.noRecipe = derived.noRecipe;
      }
      return grounded.answer;
    }
    const text = (grounded.answer as { value: string | null }).value;
    if (context.deriveRecipe) {
      // A text answer's recipe reads the whole answer (path ""), one text.
      const derived = text === null ? { noRecipe: "the model found no answer on the page" } : await recordReadRecipe(context.page, text, { type: "string" }, grounded.grounding.map((g) => ({ ...g, path: g.path.replace(/^\/value/, "") })), clock, context.question);
      if ("recipe" in derived) context.report.recipe = derived.recipe;
      else context.report.noRecipe = derived.noRecipe;
    }
    if (text === null) throw new InterpreterError("WF_ANSWER_NOT_FOUND", `The model found no answer on the page to ${JSON.stringify(question)}.`);
    return text;
  });
}

/** The step's failure when the page does not support values of the model's answer, also asked again. */
function unsupported(question: string, problems: UngroundedValue[], wrapped: boolean): InterpreterError {
  const fields = [...new Set(problems.map((p) => userPath(p.path, wrapped)))];
  return new InterpreterError(
    "WF_ANSWER_UNCERTAIN",
    `The model's answer to ${JSON.stringify(question)} states what the page does not, also when asked again: ${describe(problems, (p) => userPath(p, wrapped))}. ` +
      "An answer counts only when the page's text states each value (see the server README, \"What wf checks before it trusts a model\"). " +
      "Ask for the values as the page writes them, make a field nullable where the page may not state it, or use a larger model.",
    { fields, kind: "unsupported" },
  );
}

function describe(problems: UngroundedValue[], path: (p: string) => string): string {
  const shown = problems.slice(0, 5).map((p) => `${path(p.path)}: ${p.reason}`);
  return shown.join("; ") + (problems.length > 5 ? `; and ${problems.length - 5} more` : "");
}

/** A validation error's path within the step's answer (`/answer/total` → `/total`), or within `quotes`. */
function withinAnswer(path: string): string {
  if (path === `/${ANSWER_KEY}`) return "(the answer)";
  if (path.startsWith(`/${ANSWER_KEY}/`)) return path.slice(ANSWER_KEY.length + 1);
  return path ? path.slice(1) : "(root)";
}

/** Whether a step's JSON Schema is `@wf/core`'s wrapper of a non-object schema (`{ value: … }`). */
function isWrappedSchema(schema: Record<string, unknown>): boolean {
  const props = schema.properties as Record<string, unknown> | undefined;
  return !!props && Object.keys(props).length === 1 && "value" in props;
}


