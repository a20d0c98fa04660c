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

/**
 * Parses one ACT instruction.
 *
 * @throws {@link InterpreterError} `WF_INSTRUCTION_NOT_UNDERSTOOD` listing the understood verbs
 *   with examples, when no rule of {@link ACT_GRAMMAR} matches.
 */
export function parseInstruction(instruction: string): ParsedAction {
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return parsePart(text, quotes, instruction);
}

/** Where a compound instruction splits: `, then`, `and then`, `then`, `and`, `;` or `,` before a verb. */
const SPLIT = new RegExp(
  "\\s*(?:,\\s*and\\s+then|,\\s*then|,\\s*and|\\band\\s+then|\\bthen|\\band|;|,)\\s+(?=(?:go|open|navigate|visit|click|tap|double[- ]?click|right[- ]?click|hover|type|fill|enter|input|write|clear|press|hit|select|choose|pick|set|check|uncheck|tick|untick|scroll|wait|upload|attach|reload|refresh|search|switch|close)\\b)",
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
  const { text, quotes } = extractQuotes(normalizeInstruction(instruction));
  return text
    .split(SPLIT)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part, _i, parts) => parsePart(part, quotes, instruction, parts.length > 1 ? part.replace(/«(\d+)»/g, (_m, n: string) => JSON.stringify(quotes[Number(n)] ?? "")) : undefined));
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
