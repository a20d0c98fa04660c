/**
 * ASK, reading the question: what a question restricts its answer to (a section, a count, a checked
 * state) and the parts the grammar's reader cannot apply (a filter, an ordinal, "first N", words no
 * label covers), each refused with `WF_ANSWER_UNCERTAIN` rather than answered by a guess.
 * Used by {@link answerFromPage} and {@link answerTextFromPage} in `answer.ts`.
 */
import { InterpreterError, type InterpreterErrorDetails } from "../errors.js";
import type { PageData, Region } from "../page/index.js";
import { contentWords, normalizeWords, words } from "../_text.js";
import { needFull } from "./page-read.js";

/** What a question restricts its answer to, each of which the reader must apply or refuse. */
export interface Restrictions {
  /** A section (heading or section row) the question names. */
  section?: string;
  /** A count the question asks for (the words, e.g. `how many`), allowed only when the page shows a counter the question names. */
  count?: string;
  /** A checked state (`which are marked as completed` → checked; `the active items` → not checked). */
  state?: { checked: boolean; part: string };
  /** A tab panel or an open dialog the question names (`in the Dependencies tab`, `in the dialog`): only what lies in it answers. */
  region?: Region;
}

/**
 * A tab panel or dialog the question names: `in the "Dependencies" tab`, `on the Versions tab`,
 * `in the sign-in dialog`, `in the modal`. A dialog's name may be left out; a tab's may not.
 */
const REGION = /\b(?:in|within|inside|on|from)\s+(?:the\s+|this\s+)?(?:"([^"]+)"\s+|“([^”]+)”\s+|'([^']+)'\s+|([\w' .-]+?)\s+)?(tab(?:\s+panel)?|dialog|modal|pop-?up)\b/i;

/** The region a question names, and the phrase that names it; undefined when none. */
function regionOf(question: string): { region: Region; phrase: RegExp } | undefined {
  const m = REGION.exec(question);
  if (!m) return undefined;
  const kind = /^tab/i.test(m[5]!) ? "tab" : "dialog";
  const label = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").trim();
  if (kind === "tab" && !contentWords(label).length) return undefined;
  return { region: { kind, label }, phrase: REGION };
}

export type UncertainKind = Exclude<NonNullable<InterpreterErrorDetails["kind"]>, "unsupported" | "changing">;

const NUMBER_WORDS = "\\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|fifty|hundred";

/**
 * Parts of a question the reader cannot apply, tried in order: a count, a "first N", an ordinal or
 * rank, a filter. A part that lies inside a label the page shows and the question names whole
 * ("What is the first name?" with a "First name" label) is not a condition.
 */
const CONDITIONS: ReadonlyArray<[UncertainKind, RegExp]> = [
  ["count", /\bhow\s+many\b|\b(?:the\s+)?(?:number|count|total)\s+of\b/i],
  ["first-n", new RegExp(`\\b(?:first|top|last|latest|next|previous|bottom)\\s+(?:${NUMBER_WORDS})\\b`, "i")],
  [
    "ordinal",
    /\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d+(?:st|nd|rd|th)|latest|newest|oldest|earliest|cheapest|highest|lowest|largest|smallest|biggest|longest|shortest|most\s+(?:recent|expensive|popular|common)|least\s+(?:recent|expensive|popular|common))\b/i,
  ],
  [
    "filter",
    /\b(?:which|whose|where|that|who)\b(?:\s+[\w-]+){0,5}?\s+(?:contains?|includes?|mentions?|match(?:es)?|(?:starts?|ends?|begins?)\s+with|ha(?:ve|s)|costs?|equals?|(?:are|is|was|were)\s+(?:in|out|over|under|above|below|more|less|not|older|newer|cheaper|before|after|between))\b|\b(?:whose|where)\s+[\w-]+(?:\s+[\w-]+){0,3}?\s+(?:is|are|was|were|equals?)\b|\b(?:containing|including|mentioning|matching|(?:starting|beginning|ending)\s+with|(?:more|less|fewer|greater|cheaper|older|newer|longer|shorter)\s+than|at\s+(?:least|most)|(?:over|under|above|below)\s+[$€£]?\d|only|except|excluding|other\s+than|not|without|unless)\b/i,
  ],
];

/** A section the question names: `in the "Billing" section`, `under the Constants heading`. */
const SECTION = /\b(?:in|under|within|inside|from)\s+(?:the\s+)?(?:"([^"]+)"|“([^”]+)”|'([^']+)'|([\w' .-]+?))\s+(?:section|part|chapter|heading|tab|panel|dialog|sidebar|card|region|area)\b/i;
/**
 * A place the question names with `under` and no kind word: `under Class 08 — Connection Exception
 * in this table`, `under "Class 01"` (a heading, or a table's section row). Not `under $50` (a filter).
 */
const UNDER = /\bunder\s+(?:the\s+)?(?:"([^"]+)"|“([^”]+)”|'([^']+)'|(?![$€£]?\s*\d)([^,;?"“]+?))(?=\s+(?:in|of|on|from)\s+(?:this|the)\s+(?:table|page|list|document|grid)\b|\s*[,;?.!]|\s*$)/i;

/** The question without the phrase that names a tab panel or dialog (`the email in the dialog` → `the email`). */
export function withoutRegion(question: string): string {
  const found = regionOf(question);
  return found ? question.replace(found.phrase, " ").replace(/\s+/g, " ").trim() : question;
}

/** The section a question names, as written, and the phrase that names it; undefined when none. */
function sectionOf(question: string): { name: string; phrase: RegExp } | undefined {
  for (const phrase of [SECTION, UNDER]) {
    const m = phrase.exec(question);
    const name = m ? (m[1] ?? m[2] ?? m[3] ?? m[4])?.trim() : undefined;
    if (name) return { name, phrase };
  }
  return undefined;
}

/** Text folded for comparing a section row: case, whitespace, which dash. */
function foldRow(text: string): string {
  return text.toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/\s+/g, " ").trim();
}

/** True when a table's section row is the one `wanted` names: its whole text, or its start up to a separator (`Class 08` for "Class 08 — Connection Exception"). */
export function rowSectionNamed(row: string, wanted: string): boolean {
  const r = foldRow(row);
  const w = foldRow(wanted).replace(/[\s:.]+$/, "");
  if (!w) return false;
  return r === w || r.replace(/[\s:.]+$/, "") === w || (r.startsWith(w) && /^\s*[-:(,|·•/]/.test(r.slice(w.length)));
}

/** State words and whether they mean a checked box. */
const STATE_WORDS: Record<string, boolean> = {
  completed: true, complete: true, done: true, checked: true, ticked: true, finished: true,
  active: false, unchecked: false, unticked: false, incomplete: false, pending: false, remaining: false, open: false, unfinished: false,
};
const STATE = Object.keys(STATE_WORDS).join("|");
/** `which are marked as completed`, `that are done`, `the completed items`, `active to-dos`. */
const STATE_PHRASES = [
  new RegExp(`\\b(?:which|that|who)\\b(?:\\s+[\\w-]+){0,4}?\\s+(?:are|is|were|was|have\\s+been|has\\s+been)\\s+(?:(?:marked|checked|set|ticked|flagged)\\s+(?:as\\s+)?)?(${STATE})\\b`, "i"),
  new RegExp(`\\b(${STATE})\\s+(?:items?|tasks?|to-?dos?|rows?|ones|entries|things)\\b`, "i"),
];

/** The checked state a field's own name asks for (`completed`, `doneItems`, `active`), if any. */
export function fieldState(name: string): { checked: boolean; part: string } | undefined {
  const w = words(name);
  if (w.length > 2) return undefined;
  const hit = w.find((x) => x in STATE_WORDS);
  return hit && w.every((x) => x === hit || /^(?:item|task|todo|to|do|entry|row)$/.test(x)) ? { checked: STATE_WORDS[hit]!, part: name } : undefined;
}

/**
 * Checks that the reader can apply everything the question asks: no count, "first N", ordinal,
 * rank or filter (unless the words are part of a label the page shows and the question names),
 * and a named section only when a heading on the page has its words.
 * @returns the section the question names, when a heading on the page matches it.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` naming the part it cannot apply.
 */
export function checkQuestion(data: PageData, question: string): Restrictions {
  const norm = (t: string) => ` ${normalizeWords(t)} `;
  const q = norm(question);
  const labels = [
    ...data.pairs.map((p) => p.key),
    ...data.headings.map((h) => h.text),
    ...data.tables.flatMap((t) => [...t.headers, ...t.rows.map((r) => r[0] ?? "")]),
    ...data.groups.flatMap((g) => g.items.flatMap((it) => it.fields.flatMap((f) => f.keys))),
  ]
    .filter((l) => l && l.length <= 80)
    .map(norm);
  const inside = regionOf(question);
  const found = inside ? undefined : sectionOf(question);
  const section = found?.name;
  const out: Restrictions = {};
  if (inside) {
    needFull(data, "the question names a tab panel or dialog");
    const want = contentWords(inside.region.label);
    let named = (data.regions ?? []).filter((r) => r.kind === inside.region.kind && want.every((w) => contentWords(r.label).includes(w)));
    // A tab named word for word is the one meant ("Dependencies", not "Dev dependencies" beside it).
    const exact = want.length ? named.filter((r) => contentWords(r.label).every((w) => want.includes(w))) : [];
    if (exact.length) named = exact;
    if (!named.some((r) => r.shown !== false)) {
      const open = (data.regions ?? []).filter((r) => r.shown !== false).map((r) => `${r.kind} ${JSON.stringify(r.label || "(untitled)")}`);
      const why = named.length
        ? `that tab's panel is not shown (click the tab first)`
        : `no ${inside.region.kind === "tab" ? "tab" : "open dialog"} of that name`;
      throw uncertain(question, "section", inside.region.label || inside.region.kind, `${why}${open.length ? `; the page shows ${open.join(", ")}` : ""}`);
    }
    out.region = { ...inside.region, ...(exact.length ? { exact: true } : {}) };
  }
  // The words that name the state are applied as a state, not read as a filter or a label.
  let rest = inside ? question.replace(inside.phrase, " ") : found ? question.replace(found.phrase, " ") : question;
  for (const re of STATE_PHRASES) {
    const m = re.exec(rest);
    if (!m) continue;
    out.state = { checked: STATE_WORDS[m[1]!.toLowerCase()]!, part: m[0].trim() };
    rest = rest.replace(m[0], " ");
    break;
  }
  const qWords = new Set(words(question));
  for (const [kind, re] of CONDITIONS) {
    const m = new RegExp(re.source, "gi");
    for (const hit of rest.matchAll(m)) {
      // Whether a label excuses the part depends on every label, the repeated items' keys too.
      needFull(data, "the question has a part that may be a condition");
      const part = hit[0].trim();
      const p = norm(part);
      const named = labels.filter((l) => l.trim() && q.includes(l));
      if (named.some((l) => l.includes(p))) continue;
      // "How many databases? (number of databases)": the page labels the count itself.
      if (kind === "count" && named.some((l) => / (?:number|count|total|maximum|max) /.test(l))) continue;
      // "How many items are left?": a counter the page shows ("2 items left") answers it, if a field reads it.
      if (kind === "count" && (data.counters ?? []).some((c) => contentWords(c.label).length > 0 && contentWords(c.label).every((w) => qWords.has(w)))) {
        out.count ??= part;
        continue;
      }
      throw uncertain(question, kind, part);
    }
  }
  if (!section) return out;
  const wanted = topicWords(section);
  const known =
    data.headings.some((h) => wanted.length > 0 && wanted.every((w) => topicWords(h.text).includes(w))) ||
    data.tables.some((t) => (t.rowSections ?? []).some((rs) => rs && rowSectionNamed(rs, section)));
  if (!known) throw uncertain(question, "section", section, "no heading or section row on the page has those words");
  out.section = section;
  return out;
}

/** Words of a question that say nothing about which value it wants. */
const GENERIC = new Set(
  ["value", "current", "currently", "shown", "show", "displayed", "display", "main", "text", "tell", "say", "written", "here", "find", "read", "exact", "exactly", "it", "its", "do", "does", "be", "was", "were", "can", "you", "us", "i", "my", "our", "there", "actual", "given", "stated", "listed", "please", "about", "each", "every", "one", "whole", "entire", "how", "many"].map((w) => words(w)[0]!),
);

/**
 * Fails when the question names words that the chosen label (and column) do not cover: "the search
 * summary" is not the "Search" field's value.
 * @throws {@link InterpreterError} `WF_ANSWER_UNCERTAIN` (`unplaced`).
 */
export function checkPlaced(question: string, covering: string[], label: string): void {
  const have = new Set(covering.flatMap((c) => words(c)));
  // A parenthesis is an aside ("the page title (token …)"); the conditions in it were checked already.
  const said = question.replace(/\([^()]*\)/g, " ");
  const left = contentWords(said).filter((w) => !have.has(w) && !GENERIC.has(w));
  if (left.length) {
    // The words as the question wrote them (not normalised), so that the server's redaction of secrets still matches them.
    const lost = new Set(left);
    const part = said.split(/\s+/).filter((t) => words(t).some((w) => lost.has(w))).join(" ");
    throw uncertain(question, "unplaced", part, `no label on the page covers them; the closest is ${JSON.stringify(label)}`);
  }
}

const UNCERTAIN_WHAT: Record<UncertainKind, string> = {
  filter: "the question filters",
  ordinal: "the question picks by position or rank",
  count: "the question asks for a count",
  "first-n": "the question asks for only some",
  section: "the question names a section",
  unplaced: "the question asks for",
  "several-sources": "the question",
};

const UNCERTAIN_WHY: Partial<Record<UncertainKind, string>> = {
  filter: "which the grammar's reader does not apply",
  ordinal: "which the grammar's reader does not apply",
  count: "which the grammar's reader does not compute",
  "first-n": "which the grammar's reader does not cut",
};

/** The `WF_ANSWER_UNCERTAIN` error: which part of the question the reader could not apply, and what would. */
export function uncertain(question: string, kind: UncertainKind, part: string, why?: string): InterpreterError {
  const said = kind === "several-sources" ? `${UNCERTAIN_WHAT[kind]}: ${why}` : `${UNCERTAIN_WHAT[kind]} (${JSON.stringify(part)}), ${why ?? UNCERTAIN_WHY[kind] ?? ""}`;
  return new InterpreterError(
    "WF_ANSWER_UNCERTAIN",
    `Cannot answer ${JSON.stringify(question)} without guessing: ${said}. A model would answer it (configure one), ` +
      `or ask for what the page labels (the whole table or list, a field by its label) and apply the rest in the workflow's code.`,
    { part, kind },
  );
}

/** Words that say what a table or list is about: no filler, no "table", no numbers ("Table 8.2."). */
export function topicWords(text: string): string[] {
  return contentWords(text).filter((w) => w !== "table" && w !== "list" && !/^\d+$/.test(w));
}

/** Jaccard overlap of a question's words and a caption's: shared words over all words of both. */
export function overlap(question: Set<string>, caption: string[]): number {
  const c = new Set(caption);
  if (!question.size || !c.size) return 0;
  const common = [...c].filter((w) => question.has(w)).length;
  return common / (question.size + c.size - common);
}
