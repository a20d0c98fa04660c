/**
 * What the model is told: the system prompts of ASK and ACT, the user message around the page,
 * the structured output an ACT answers in, and the messages that ask again after a bad answer.
 */
import type { ChatMessage } from "./provider.js";

/** How the page view writes the page, told to both prompts; elements differ (references only where the model acts). */
const PAGE_BLOCKS =
  "The page is given as text, one block per line: `#` headings, table rows as `| a | b |` (the first row of a table is usually its header), " +
  "list items as `- `, labelled values and definitions as `term: value` (a term alone when it has none), code blocks line by line, " +
  'named landmarks, dialogs and status messages by name, with their content indented under them; an iframe\'s content is indented under its `iframe "title":` line. ';
const PAGE_REDUCED = 'A page too long for the prompt is shortened to the parts most relevant to the step; "… (N lines omitted)" marks what was left out.';
export const ASK_PAGE_FORMAT =
  PAGE_BLOCKS +
  'Interactive elements are written `role "accessible name"`, then `(shows "…")` when the text they show differs from that name, then their state: ` = "current value"`, `(checked)`, `options: …`, and `→ target` after links when the question is about links; an open list\'s options each on a line under its `listbox:` line. ' +
  PAGE_REDUCED;
const ACT_PAGE_FORMAT =
  PAGE_BLOCKS +
  'Interactive elements are written `[eN] role "accessible name"` (`[f1e3]` inside the first iframe), then `(shows "…")` when the text they show differs from that name, then their state: ` = "current value"`, `(checked)`, `options: …`; an open list\'s options each on a line under its `listbox:` line. ' +
  PAGE_REDUCED;

/** System prompt of an ASK. */
export const ASK_SYSTEM_PROMPT = [
  "You read a web page for a browser-automation tool and answer a question about it as JSON in the requested structure.",
  ASK_PAGE_FORMAT,
  "Answer with:",
  "- answer: the answer, in the question's structure.",
  '- quotes: for each value in `answer`, the page text it comes from: `path` is the value\'s place in `answer` as a JSON Pointer (/total, /items/0/price), or an item\'s place (/items/0) for all its fields; `quote` is text copied character for character from the page, a few words that state the value (a table row\'s cells, a label and its value). A count, a sum or a yes/no gets the quotes it was read from: one quote per item counted.',
  "Rules:",
  "- Answer only from the page below. Never answer from your own knowledge or memory, never guess, never invent values. Each value is checked against the page: one the page does not state fails the answer.",
  "- When the page does not state a value, answer null for it (wherever the structure allows null). A null is a correct answer; a made-up value is a wrong one.",
  "- Copy text as the page writes it (names, codes, numbers), without adding units or words the page does not show. Never reformat, translate or compute values, other than counting and adding up.",
  "- A question about a list or table wants every item that fits, in page order, unless it asks for some of them (the first N, those that match a condition): then apply that condition exactly.",
  "- Count and compare only what the page shows.",
  "- Text shown as [secret] is hidden from you: never try to reconstruct it.",
].join("\n");

/** System prompt of an ACT. */
export const ACT_SYSTEM_PROMPT = [
  "You carry out one instruction on a web page for a browser-automation tool, by choosing the actions that do it on the page's elements.",
  ACT_PAGE_FORMAT,
  "Answer with `reason` (one short sentence) and `actions`, in order, each with a `verb`, the `ref` of an element from the page (like e12) and a `value`:",
  "- click, double_click, right_click, hover: ref of the element; value null.",
  "- fill: ref of a text field; value the text to put in it (it replaces what is there).",
  "- clear: ref of a text field; value null.",
  "- select: ref of a dropdown (combobox/listbox); value the label of the option, as listed.",
  "- check, uncheck: ref of a checkbox, radio button or switch; value null.",
  "- press: value a key such as Enter, Tab, Escape, ArrowDown or Control+A; ref the element to press it in, or null for the focused one.",
  "- scroll_to: ref of the element to bring into view; value null.",
  "- goto: value the URL to open; ref null. back, forward, reload: ref and value null.",
  "- upload: ref of the file input, its label, or the button that opens the file chooser; value the file's path exactly as the instruction writes it (never a path of your own).",
  "- switch_tab: value the title of an open tab (as the Tabs line lists it) or its position (1, 2…); ref null. close_tab: value null for the current tab, or a tab's title or position; ref null.",
  "Rules:",
  "- Use only refs that appear on the page below, and only the actions the instruction asks for (at most 5).",
  "- If nothing on the page carries out the instruction (the element is not there, or it is ambiguous which one is meant), answer `actions: null` and say why in `reason`. Never guess: acting on the wrong element is worse than doing nothing.",
  "- Placeholders like {{secret1}} stand for values you are not shown: put them in `value` exactly as written, never a value of your own.",
].join("\n");

/** Verbs of an ACT answer, and the grammar verb each is carried out as. */
export const ACT_VERBS = [
  "click",
  "double_click",
  "right_click",
  "hover",
  "fill",
  "clear",
  "select",
  "check",
  "uncheck",
  "press",
  "scroll_to",
  "goto",
  "back",
  "forward",
  "reload",
  "upload",
  "switch_tab",
  "close_tab",
] as const;
export type ActVerb = (typeof ACT_VERBS)[number];

/** One action of an ACT answer. */
export interface ModelAction {
  verb: ActVerb;
  ref: string | null;
  value: string | null;
}

/** The structured output of an ACT (an OpenAI strict response format schema). */
export const ACT_RESPONSE_SCHEMA: { name: string; schema: Record<string, unknown> } = {
  name: "wf_act",
  schema: {
    type: "object",
    properties: {
      reason: { type: "string", description: "One short sentence: which elements carry out the instruction, or why nothing on the page does." },
      actions: {
        anyOf: [
          {
            type: "array",
            description: "The actions that carry out the instruction, in order.",
            items: {
              type: "object",
              properties: {
                verb: { type: "string", enum: [...ACT_VERBS] },
                ref: { type: ["string", "null"], description: "Reference of the element acted on, e.g. e12; null for goto, back, forward, reload, switch_tab, close_tab, and press in the focused element." },
                value: {
                  type: ["string", "null"],
                  description: "fill: the text; select: the option's label; press: the key; goto: the URL; upload: the file's path as the instruction writes it; switch_tab, close_tab: a tab's title or position; otherwise null.",
                },
              },
              required: ["verb", "ref", "value"],
              additionalProperties: false,
            },
          },
          { type: "null" },
        ],
      },
    },
    required: ["reason", "actions"],
    additionalProperties: false,
  },
};

/** The structured output of an ASK without a schema: one text, or null when the page does not say. */
export const TEXT_ANSWER_SCHEMA: { name: string; schema: Record<string, unknown> } = {
  name: "wf_text_answer",
  schema: {
    type: "object",
    properties: { value: { type: ["string", "null"], description: "The answer as text, or null when the page does not state it." } },
    required: ["value"],
    additionalProperties: false,
  },
};

/**
 * The user message of a step: what to do, the open tabs (a `Tabs:` line, given only when more than
 * one is open), then the page. (In `json_object` mode the provider writes the schema into the system prompt.)
 */
export function stepMessage(kind: "Question" | "Instruction" | "Statement", text: string, page: string, tabs?: string): string {
  return `${kind}: ${text}${tabs ? `\n\n${tabs}` : ""}\n\nThe page:\n${page}`;
}

/**
 * The `Tabs:` line of an ACT: each open tab's position, title and whether it is the one the page
 * below shows, e.g. `Tabs: 1 "Orders"; 2 "Invoice 42" (current, the page below)`. Undefined with
 * one tab or none (the line is left out).
 */
export function tabsLine(tabs: ReadonlyArray<{ index: number; title: string; url: string; current: boolean }>): string | undefined {
  if (tabs.length < 2) return undefined;
  return `Tabs: ${tabs.map((t) => `${t.index} ${JSON.stringify(t.title || t.url)}${t.current ? " (current, the page below)" : ""}`).join("; ")}`;
}

/** The messages that ask again after an answer that was not valid, saying what was wrong. */
export function retryMessages(previous: string | null, problem: string): ChatMessage[] {
  return [
    { role: "assistant", content: previous ?? "" },
    {
      role: "user",
      content: `That answer cannot be used: ${problem}\nAnswer again, in the requested structure, from the page above only; use null for what the page does not state.`,
    },
  ];
}
