/**
 * ASK, reading what an application shows besides labelled values: its alerts and status messages
 * (`role=alert`, `role=status`, snackbars; `the error message`) and the code block under a heading
 * (`the usage code` under a Markdown `## Usage`). Each answers only a question that names it whole,
 * and refuses when several fit.
 */
import { InterpreterError } from "../errors.js";
import type { PageData, Severity } from "../page/index.js";
import { contentWords, words } from "../_text.js";
import { needFull } from "./page-read.js";
import { uncertain } from "./question.js";

/** Words that ask for an alert or status message: `message`, `notification`, `toast`… */
const MESSAGE_WORDS = new Set(["message", "messages", "notice", "notification", "banner", "alert", "toast", "snackbar", "status", "flash"].flatMap((w) => words(w)));
/** Severity words, by the severity they ask for. */
const SEVERITY_WORDS: Record<string, Severity> = { error: "error", errors: "error", failure: "error", danger: "error", warning: "warning", warnings: "warning", info: "info", information: "info", success: "success", confirmation: "success" };
/** Words that say nothing more about which message or code block: the rest of `what does the error message say`. */
const FILLER = new Set(
  ["the", "a", "an", "s", "of", "on", "in", "this", "that", "what", "does", "do", "is", "it", "say", "says", "said", "shown", "show", "shows", "text", "current", "page", "displayed", "read", "there", "which", "its", "for", "under", "section", "heading", "block", "snippet"].flatMap((w) => words(w)),
);
/** Words that ask for code: `code`, `command`, `snippet`, `example`. */
const CODE_WORDS = new Set(["code", "command", "commands", "snippet", "example", "script", "codeblock"].flatMap((w) => words(w)));

/**
 * The text of the alert or status message the question asks for (`the error message`, `the alert`,
 * `what does the notification say`); undefined when the question asks for something else. With a
 * severity word, only alerts of that severity count (those whose severity the page does not say
 * count only when none says it).
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` when several fit; `WF_ANSWER_NOT_FOUND` when none does.
 */
export function messageAnswer(data: PageData, question: string): string | undefined {
  const q = words(question);
  if (!q.some((w) => MESSAGE_WORDS.has(w))) return undefined;
  const severities = [...new Set(q.filter((w) => w in SEVERITY_WORDS).map((w) => SEVERITY_WORDS[w]!))];
  if (severities.length > 1 || !q.every((w) => MESSAGE_WORDS.has(w) || w in SEVERITY_WORDS || FILLER.has(w))) return undefined;
  needFull(data, "alerts are read in full only");
  const all = (data.dialogs ?? []).filter((d) => d.kind === "alert" || d.kind === "status");
  const wanted = severities[0];
  let fit = all;
  if (wanted) {
    const said = all.filter((d) => d.severity === wanted);
    fit = said.length ? said : all.filter((d) => !d.severity);
  }
  if (fit.length === 1) return fit[0]!.text;
  const seen = all.map((d) => `${d.kind}${d.severity ? ` (${d.severity})` : ""} ${JSON.stringify(d.text.slice(0, 80))}`);
  if (fit.length > 1) throw uncertain(question, "several-sources", "", `${fit.length} messages fit (${seen.slice(0, 4).join(", ")}); name the one you mean by its severity`);
  throw new InterpreterError(
    "WF_ANSWER_NOT_FOUND",
    `The page shows no ${wanted ? `${wanted} ` : ""}alert or status message for ${JSON.stringify(question)}${seen.length ? ` (it shows ${seen.join(", ")})` : " (no role=alert or role=status element is shown)"}. ` +
      `Wait for the message to appear first (\`wait for "…"\`), or ask for the text it holds.`,
    { fields: ["(root)"] },
  );
}

/**
 * The code block(s) under the heading the question names with a code word (`the usage code`, `the
 * installation command`), as shown (line breaks kept; several blocks joined by a blank line);
 * undefined when the question asks for no code or no heading has its other words.
 */
export function codeAnswer(data: PageData, question: string): string | undefined {
  const q = words(question);
  if (!q.some((w) => CODE_WORDS.has(w))) return undefined;
  const named = contentWords(question).filter((w) => !CODE_WORDS.has(w) && !FILLER.has(w));
  if (!named.length) return undefined;
  needFull(data, "code blocks are read in full only");
  const blocks = (data.code ?? []).filter((c) => {
    const h = new Set(contentWords(c.heading));
    return h.size > 0 && named.every((w) => h.has(w)) && [...h].every((w) => named.includes(w));
  });
  if (!blocks.length) return undefined;
  return blocks.map((b) => b.text).join("\n\n");
}
