/**
 * The model's ASK: the question and the page view go to the model with the step's own structured
 * output as the response format; the answer is validated against the step's schema, with one retry
 * that says what was wrong.
 */
import { redactText } from "@wf/core";
import { InterpreterError } from "../errors.js";
import { StepClock } from "../_clock.js";
import { answerErrors } from "../read/index.js";
import type { AskContext } from "../types.js";
import { readPageView, wantsLinkTargets } from "../page/index.js";
import type { ChatMessage } from "./provider.js";
import type { ModelConversation } from "./conversation.js";
import { ASK_SYSTEM_PROMPT, stepMessage, TEXT_ANSWER_SCHEMA } from "./prompts.js";

/**
 * Answers an ASK with the model.
 * @throws {@link InterpreterError} `WF_ANSWER_NOT_FOUND` (a text ASK the page does not answer), and those of {@link ModelConversation.converse}.
 */
export async function modelAsk(context: AskContext, { converse, pageBudget, schemaInPromptText }: ModelConversation): Promise<unknown> {
  context.report.interpreter = "model";
  const clock = new StepClock(context.timeoutMs, context.signal);
  return clock.guard(async () => {
    const question = redactText(context.question, context.secrets);
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
}
