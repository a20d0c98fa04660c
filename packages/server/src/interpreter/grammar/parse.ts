/**
 * The ACT grammar: one table of patterns ({@link ACT_GRAMMAR}) that turns a plain instruction into
 * a {@link ParsedAction}. Pure: no browser here. Documented in `packages/server/README-interpreter.md`.
 *
 * Before matching, quoted parts (`"…"`, `'…'`, `“…”`, `‘…’`) are cut out and replaced by
 * placeholders, so a quoted target never confuses the patterns; the patterns are case-insensitive.
 *
 * The parts: the rules table (`rules.ts`), targets and quoting (`target.ts`), keys, URLs, durations
 * and tabs (`words.ts`). This module splits compound instructions and tries the rules; `index.ts`
 * is the folder's entry.
 */
import { InterpreterError } from "../errors.js";
import { ACT_GRAMMAR, type ParsedAction } from "./rules.js";
import { extractQuotes } from "./target.js";
import { looksLikeUrl } from "./words.js";

/**
 * Parses one ACT instruction.
 *
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` listing the understood verbs
 *   with examples, when no rule of {@link ACT_GRAMMAR} matches.
 */
export function parseInstruction(instruction: string): ParsedAction {
  refuseAmbiguousUrl(instruction);
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return parsePart(text, quotes, instruction);
}

/**
 * Where a compound instruction splits: `, then`, `and then`, `then`, `and`, `;` or `,` before a
 * verb (any verb a rule starts with, so `… and submit the form` is never read as part of a value).
 */
const SPLIT = new RegExp(
  "\\s*(?:,\\s*and\\s+then|,\\s*then|,\\s*and|\\band\\s+then|\\bthen|\\band|;|,)\\s+(?=(?:go|goto|open|navigate|visit|browse|head|load|click|tap|push|follow|activate|submit|double[- ]?click|right[- ]?click|context[- ]?click|hover|mouse|move|type|fill|enter|input|write|put|key|complete|populate|clear|empty|erase|press|hit|select|choose|pick|set|change|check|uncheck|tick|untick|mark|enable|disable|turn|unselect|deselect|scroll|bring|wait|pause|sleep|upload|attach|reload|refresh|search|look|switch|close)\\b)",
  "i",
);

/**
 * Parses an instruction that may chain several actions (`type "pg" into "Search" and press Enter`,
 * `click "Menu", then click "Logout"`): split before each verb that follows `and`, `then`, `,` or
 * `;` outside quotes, each part parsed with {@link parseInstruction}'s rules.
 *
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` for the first part not understood.
 */
export function parseInstructions(instruction: string): ParsedAction[] {
  refuseAmbiguousUrl(instruction);
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return text
    .split(SPLIT)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part, _i, parts) => parsePart(part, quotes, instruction, parts.length > 1 ? part.replace(/«(\d+)»/g, (_m, n: string) => JSON.stringify(quotes[Number(n)] ?? "")) : undefined));
}

/** Characters that end a sentence as well as a URL: after an unquoted URL written last, which is meant cannot be told. */
const SENTENCE_END = /[.!?,;:]$/;

/**
 * A URL written last and unquoted is opened exactly as written, so the final `.`/`!`/`;` that
 * {@link normalizeInstruction} drops from a sentence must not be one of its characters: when the
 * URL ends in a character that may end the sentence (`.`, `!`, `?`, `,`, `;`, `:`) or in a `)`
 * that closes nothing in it, the instruction is refused, saying how to quote it.
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD`
 */
function refuseAmbiguousUrl(instruction: string): void {
  const { text } = extractQuotes(instruction.trim());
  const last = /(\S+)$/.exec(text)?.[1];
  if (!last || /«\d+»/.test(last)) return;
  let bare = last;
  for (;;) {
    if (SENTENCE_END.test(bare)) bare = bare.slice(0, -1);
    else if (bare.endsWith(")") && count(bare, "(") < count(bare, ")")) bare = bare.slice(0, -1);
    else break;
  }
  if (bare === last || !bare || !looksLikeUrl(bare)) return;
  throw new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Instruction not understood: ${JSON.stringify(instruction)}: the URL ${JSON.stringify(last)} ends in ${JSON.stringify(last.slice(bare.length))}, which may end the sentence or belong to the URL, and a URL is opened exactly as written. ` +
      `Quote the URL as it is to be opened: \`go to "${last}"\` (or \`go to "${bare}"\`).`,
  );
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

/** The instruction trimmed, its final `.`/`!`/`;` dropped, runs of spaces made one. */
function normalizeInstruction(instruction: string): string {
  return instruction.trim().replace(/[.!;]+$/, "").replace(/\s+/g, " ");
}

/** Tries the rules on one part of an instruction; a target with leftover words lets later rules try. */
function parsePart(text: string, quotes: string[], instruction: string, part?: string): ParsedAction {
  const stripped = text.replace(/^(?:please\s+|now\s+|then\s+|and\s+|finally\s+)+/i, "").trim();
  let leftover: string | undefined;
  for (const rule of ACT_GRAMMAR) {
    const match = stripped.match(rule.pattern);
    if (!match) continue;
    const action = rule.build(match, quotes);
    if (!action) continue;
    const target = "target" in action ? action.target : undefined;
    if (target?.leftover) {
      leftover ??= target.leftover;
      continue;
    }
    return action;
  }
  const where = [part ? `the part ${JSON.stringify(part)}` : "", leftover ? `did not understand ${JSON.stringify(leftover)}` : ""].filter(Boolean).join(": ");
  throw new InterpreterError(
    "WF_INSTRUCTION_NOT_UNDERSTOOD",
    `Instruction not understood: ${JSON.stringify(instruction)}${where ? ` (${where})` : ""}. ` +
      `The deterministic interpreter understands: ${describeGrammar()}. Quote targets and values ("…" or '…').`,
  );
}

/** One line per verb with an example or two, for messages: `click ('click "Sign in"'), …`. */
export function describeGrammar(): string {
  const byVerb = new Map<string, string[]>();
  for (const rule of ACT_GRAMMAR) {
    const list = byVerb.get(rule.verb) ?? [];
    list.push(...rule.examples);
    byVerb.set(rule.verb, list);
  }
  return [...byVerb]
    .filter(([, examples]) => examples.length > 0)
    .map(([verb, examples]) => `${verb} (${examples.slice(0, 2).map((e) => `\`${e}\``).join(", ")})`)
    .join("; ");
}
