/**
 * The one redaction of secret values, in every encoding a value takes on its way through a page,
 * a server and our own serializers: raw; JSON-escaped (`\"`, `\\`, `\/`, `\uXXXX`, escaped twice);
 * URL-encoded (`%20` or `+` for a space, either hex case, reserved characters escaped or not);
 * HTML-escaped (named and numeric entities); base64 and base64url (at any byte alignment, so the
 * secret inside `user:secret` of a basic-auth header is found too). Every occurrence becomes
 * {@link REDACTED}. Reporters, records, report data, the lock, logs and traces all go through it.
 */

/** What reporters print in place of a secret value. */
export const REDACTED = "[secret]";

/** Removes secret values from text and from JSON-like data. Make one with {@link createRedactor}. */
export interface Redactor {
  /** The secrets it hides (non-empty, distinct, longest first). */
  readonly secrets: readonly string[];
  /** `text` with every encoding of every secret replaced by {@link REDACTED}. */
  text(text: string): string;
  /**
   * A copy of `value` (plain JSON-like data) with every string and object key redacted as
   * {@link Redactor.text} does. Class instances are kept as they are; nesting past 64 levels is not walked.
   */
  value<T>(value: T): T;
  /** Whether `text` holds any encoding of any secret. */
  test(text: string): boolean;
}

const IDENTITY: Redactor = { secrets: [], text: (t) => t, value: (v) => v, test: () => false };

/**
 * Makes the redactor of `secrets` (empty values are ignored). Without secrets it is the identity.
 *
 * @example createRedactor(["hunter 2"]).text("/done?code=hunter+2") // "/done?code=[secret]"
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const list = [...new Set([...secrets].filter((s) => typeof s === "string" && s.length > 0))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return IDENTITY;
  // One alternative per secret (longest first, so a secret holding another is replaced whole),
  // then the base64 cores.
  const alternatives = [...list.map(charwisePattern), ...list.flatMap(base64Cores).sort((a, b) => b.length - a.length).map(escapeRegExp)];
  const pattern = new RegExp(alternatives.join("|"), "g");
  const text = (input: string): string => {
    pattern.lastIndex = 0;
    return input.replace(pattern, REDACTED);
  };
  const value = <T>(input: T): T => {
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === "string") return text(v);
      if (depth > 64 || v === null || typeof v !== "object") return v;
      if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return v;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) out[text(key)] = walk(item, depth + 1);
      return out;
    };
    return walk(input, 0) as T;
  };
  const test = (input: string): boolean => {
    pattern.lastIndex = 0;
    return pattern.test(input);
  };
  return { secrets: list, text, value, test };
}

/**
 * The usual literal encodings of `secret` (raw, JSON, URL component and form, HTML, base64 and
 * base64url without padding), for searching bytes where a pattern can't run. {@link createRedactor}
 * recognises these and more (mixed hex case, partial escaping, other alignments).
 */
export function secretEncodings(secret: string): string[] {
  if (!secret) return [];
  const base64 = toBase64(utf8(secret));
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, "+"),
    new URLSearchParams({ q: secret }).toString().slice(2),
    secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
    base64.replace(/=+$/, ""),
    base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  ];
  return [...new Set(forms)];
}

/** A pattern matching `secret` with each character written raw or in any of its escaped forms. */
function charwisePattern(secret: string): string {
  return [...secret].map(charPattern).join("");
}

const charPatterns = new Map<string, string>();

function charPattern(char: string): string {
  const cached = charPatterns.get(char);
  if (cached) return cached;
  const code = char.codePointAt(0)!;
  const forms = new Set<string>([escapeRegExp(char)]);
  // URL: each UTF-8 byte as %XX (either case); a space as + too.
  forms.add([...utf8(char)].map((b) => `%${hexPattern(b.toString(16).padStart(2, "0"))}`).join(""));
  if (char === " ") forms.add("\\+");
  // JSON: \uXXXX (a surrogate pair above U+FFFF), short escapes, and a string escaped twice.
  const units = char.length === 2 ? [char.charCodeAt(0), char.charCodeAt(1)] : [code];
  forms.add(units.map((u) => `\\\\u${hexPattern(u.toString(16).padStart(4, "0"))}`).join(""));
  const short: Record<string, string> = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
  if (short[char]) {
    forms.add(escapeRegExp(short[char]));
    forms.add(escapeRegExp(JSON.stringify(short[char]).slice(1, -1)));
  }
  // HTML: named entities and numeric ones (decimal, hex) for markup characters and non-ASCII.
  const named: Record<string, string[]> = { "&": ["amp"], "<": ["lt"], ">": ["gt"], '"': ["quot"], "'": ["apos", "#39"] };
  for (const name of named[char] ?? []) forms.add(`&${name};`);
  if (named[char] || code > 0x7e) {
    forms.add(`&#0*${code};`);
    forms.add(`&#[xX]0*${hexPattern(code.toString(16))};`);
  }
  const pattern = `(?:${[...forms].join("|")})`;
  charPatterns.set(char, pattern);
  return pattern;
}

/** A hex number matching either case: `2f` → `2[fF]`. */
function hexPattern(hex: string): string {
  return [...hex].map((c) => (/[a-f]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join("");
}

/**
 * The base64 (and base64url) characters that only `secret`'s bytes decide, at each of the three
 * byte alignments it can have inside a longer encoded value. Cores shorter than 4 characters
 * (secrets of 1–2 bytes) are left out: they would match unrelated data.
 */
function base64Cores(secret: string): string[] {
  const bytes = utf8(secret);
  const out = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = toBase64(padded);
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6);
    const core = encoded.slice(first, last + 1);
    if (core.length < 4) continue;
    out.add(core);
    out.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...out];
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
