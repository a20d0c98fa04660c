/**
 * Loose text matching shared by element finding and ASK: key normalisation (`storageSize` ↔
 * "Storage Size"), a similarity score, and number/boolean parsing from what a page shows.
 */

/** `storageSize`, `storage_size`, "Storage Size:" → `storage size`. */
export function normalizeWords(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** A word without its plural ending (`orders` → `order`, `boxes` → `box`, `entries` → `entry`). */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 3 && word.endsWith("es") && /(?:s|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/**
 * Most texts are matched many times in one ASK (a field name against every key of every list item),
 * so the words of the last texts seen are kept: at most {@link MEMO_SIZE} entries, emptied when full.
 */
const MEMO_SIZE = 4096;
const wordsMemo = new Map<string, readonly string[]>();
const scoreMemo = new Map<string, number>();

/** Remembers `value` under `key` in `memo`, emptying the memo first when it holds {@link MEMO_SIZE} entries. */
function remember<V>(memo: Map<string, V>, key: string, value: V): V {
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, value);
  return value;
}

/** Normalised, stemmed words of `s`. The array is shared between callers (frozen): copy it to change it. */
export function words(s: string): string[] {
  const known = wordsMemo.get(s);
  if (known) return known as string[];
  const n = normalizeWords(s);
  return remember(wordsMemo, s, Object.freeze(n ? n.split(" ").map(stem) : [])) as string[];
}

/** Filler words of questions: `the`, `of`, `what`, … (stemmed, lowercase). */
export const STOP: ReadonlySet<string> = new Set(["the", "a", "an", "of", "on", "in", "for", "to", "and", "or", "is", "are", "what", "which", "page", "this", "that", "with", "from", "by", "me", "give", "list", "get", "all", "show", "s"]);

/** Words of `s` without filler (`the`, `of`, `what`…), for matching questions against captions. */
export function contentWords(s: string): string[] {
  return words(s).filter((w) => !STOP.has(w));
}

/** Synonyms people use for field names; each set's members match one another at a lower score. */
const SYNONYMS: string[][] = [
  ["name", "title", "label"],
  ["description", "desc", "summary", "details", "about"],
  ["url", "link", "href", "address"],
  ["price", "cost", "amount"],
  ["quantity", "qty", "count"],
  ["email", "e mail", "mail"],
  ["phone", "telephone", "tel"],
  ["size", "storage size"],
];
/** {@link SYNONYMS}, each member as its words joined. */
const JOINED_SYNONYMS = SYNONYMS.map((set) => set.map((s) => words(s).join("")));

/**
 * How well a field name matches a key shown on the page, from 0 to 1: 1 for the same words
 * (`storageSize` / "Storage Size"), ~0.8 when one's words contain the other's, 0.5 for a
 * synonym, less for a bare substring, 0 otherwise.
 */
export function keyScore(field: string, key: string): number {
  const memoKey = `${field.length}:${field}${key}`;
  const known = scoreMemo.get(memoKey);
  return known !== undefined ? known : remember(scoreMemo, memoKey, computeKeyScore(field, key));
}

function computeKeyScore(field: string, key: string): number {
  const fw = words(field);
  const kw = words(key);
  if (fw.length === 0 || kw.length === 0) return 0;
  const fj = fw.join("");
  const kj = kw.join("");
  if (fj === kj) return 1;
  const fs = new Set(fw);
  const ks = new Set(kw);
  const common = fw.filter((w) => ks.has(w)).length;
  if (common === fs.size || common === ks.size) {
    return 0.6 + 0.3 * (Math.min(fs.size, ks.size) / Math.max(fs.size, ks.size));
  }
  for (const n of JOINED_SYNONYMS) {
    if (n.includes(fj) && n.includes(kj)) return 0.5;
  }
  if (fj.length >= 4 && kj.includes(fj)) return 0.45;
  if (common > 0) return 0.3 * (common / Math.max(fs.size, ks.size));
  return 0;
}

/** Levenshtein distance, for "closest candidates". */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** Similarity of two texts in [0, 1]: the better of edit-distance ratio and word overlap, plus a bonus for containment. */
export function similarity(a: string, b: string): number {
  const x = a.toLowerCase().replace(/\s+/g, " ").trim();
  const y = b.toLowerCase().replace(/\s+/g, " ").trim();
  if (!x || !y) return 0;
  if (x === y) return 1;
  const ratio = 1 - editDistance(x, y) / Math.max(x.length, y.length);
  const xw = new Set(words(x));
  const yw = new Set(words(y));
  const common = [...xw].filter((w) => yw.has(w)).length;
  const overlap = xw.size && yw.size ? common / Math.max(xw.size, yw.size) : 0;
  const contains = x.includes(y) || y.includes(x) ? 0.2 : 0;
  return Math.min(1, Math.max(ratio, overlap) + contains);
}

/**
 * Reads a text as a number only when the whole text is one: digits with optional thousands
 * separators (`,` `.` space, NBSP, thin space, `'`), a decimal part, a sign (`-`, `+`, `−`), one
 * currency symbol (any Unicode currency sign, before or after) or a percent sign after.
 * "1,234.50 €" → 1234.5, "€ 24,99" → 24.99, "1.234,50" → 1234.5, "4,294,967,295" → 4294967295,
 * "−5 %" → -5, "$1,099.00" → 1099. Text with any other word or unit is not a number: "32 TB",
 * "1 GB", "4 bytes", "limited by … 4,294,967,295 pages" and "-32768 to +32767" give undefined,
 * because picking a number out of prose is a guess (issue 3: ASK "never guesses").
 *
 * Separators: when both `,` and `.` appear, the last one is the decimal point; a lone `,` followed
 * by exactly three digits groups thousands ("1,600"), otherwise it is a decimal comma ("3,5"); a
 * lone `.` is a decimal point ("1.234" → 1.234); several of one kind group thousands. Thousands
 * groups must have three digits ("1,2,3" is not a number).
 */
export function parseNumber(text: string): number | undefined {
  const t = normalizeText(text.replace(/\u2212/g, "-"));
  const m = t.match(/^([+-]?) ?(\p{Sc}?) ?([+-]?) ?(\d(?:[\d.,' ]*\d)?) ?(\p{Sc}?) ?(%?)$/u);
  if (!m) return undefined;
  const [, sign1, cur1, sign2, body, cur2, percent] = m as unknown as [string, string, string, string, string, string, string];
  if ((sign1 && sign2) || (cur1 && cur2) || (percent && (cur1 || cur2))) return undefined;
  if (/[.,' ]{2}/.test(body)) return undefined;
  const commas = body.split(",").length - 1;
  const dots = body.split(".").length - 1;
  let decimal: "," | "." | undefined;
  if (commas && dots) decimal = body.lastIndexOf(",") > body.lastIndexOf(".") ? "," : ".";
  else if (commas === 1) decimal = /,\d{3}$/.test(body) ? undefined : ",";
  else if (dots === 1) decimal = ".";
  let intPart = body;
  let fraction = "";
  if (decimal) {
    const at = body.lastIndexOf(decimal);
    intPart = body.slice(0, at);
    fraction = body.slice(at + 1);
    if (!/^\d+$/.test(fraction) || intPart.includes(decimal)) return undefined;
  }
  const groups = intPart.split(/[.,' ]/);
  if (groups.length > 1 && (!/^\d{1,3}$/.test(groups[0]!) || groups.slice(1).some((g) => !/^\d{3}$/.test(g)))) return undefined;
  const n = Number(`${sign1 || sign2}${groups.join("")}${fraction ? `.${fraction}` : ""}`);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Collapses every run of whitespace to one space and trims. JavaScript's `\s` covers NBSP
 * (U+00A0), narrow NBSP (U+202F), figure space and the other Unicode spaces, and line breaks.
 */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** "yes", "true", "on", "✓", "checked", "enabled"… → true; their opposites → false; else undefined. */
export function parseBoolean(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (/^(?:yes|y|true|on|1|✓|✔|☑|checked|enabled|active|available|in stock)$/.test(t)) return true;
  if (/^(?:no|n|false|off|0|✗|✘|☐|unchecked|disabled|inactive|unavailable|out of stock|none)$/.test(t)) return false;
  return undefined;
}
