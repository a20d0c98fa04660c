/**
 * Secret params: values that never appear in any output, report or log.
 *
 * Mark a param's schema with `secret()`; reporters and records replace its value with
 * {@link REDACTED}. The mark is kept in a process-wide registry keyed by schema object, so it
 * survives a second copy of `@wf/core`.
 */
import type { z } from "zod";
import type { Workflow } from "./workflow.js";
import { createRedactor, REDACTED, type Redactor } from "./redact.js";

export { REDACTED };


const REGISTRY_KEY = Symbol.for("wf.core.secrets");
const secrets: WeakSet<object> = ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] ??= new WeakSet<object>()) as WeakSet<object>;

/**
 * Marks a param schema as secret and returns it unchanged (types included).
 *
 * @example params: z.object({ user: z.string(), password: secret(z.string()) })
 */
export function secret<S extends z.ZodType>(schema: S): S {
  secrets.add(schema);
  return schema;
}

/** True when `schema`, or a schema it wraps (optional, default, nullable), was marked with {@link secret}. */
export function isSecret(schema: unknown): boolean {
  let current = schema as { _zod?: { def?: { innerType?: unknown } } } | undefined;
  for (let depth = 0; current && depth < 8; depth++) {
    if (secrets.has(current)) return true;
    current = current._zod?.def?.innerType as typeof current;
  }
  return false;
}

/** Names of the workflow's params marked secret. */
export function secretParamNames(wf: Pick<Workflow, "params">): string[] {
  if (!wf.params) return [];
  return Object.entries(wf.params.shape).filter(([, schema]) => isSecret(schema)).map(([name]) => name);
}

/**
 * Returns a copy of `params` with each secret's value replaced by {@link REDACTED}.
 * Use before printing or recording params.
 */
export function redactParams(wf: Pick<Workflow, "params">, params: Record<string, unknown>): Record<string, unknown> {
  const names = secretParamNames(wf);
  if (names.length === 0) return { ...params };
  const out: Record<string, unknown> = { ...params };
  for (const name of names) if (name in out) out[name] = REDACTED;
  return out;
}

/**
 * The values to hide for a run: each secret param's value as text (numbers and objects too),
 * longest first. Their encodings (JSON, URL, HTML, base64) are recognised by the redaction itself
 * (see `createRedactor`), so only the values travel (e.g. in a step's `redact`).
 *
 * @param params - the run's params (raw or parsed); missing and empty values are skipped.
 */
export function secretValues(wf: Pick<Workflow, "params">, params: unknown): string[] {
  const record = (params ?? {}) as Record<string, unknown>;
  const out = new Set<string>();
  for (const name of secretParamNames(wf)) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    const text = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
    if (!text || text === REDACTED) continue;
    out.add(text);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * A copy of `value` (plain JSON-like data) with every encoding of each secret inside its strings
 * and object keys replaced by {@link REDACTED} (see `createRedactor`). Class instances are kept as
 * they are; nesting past 64 levels is not walked.
 */
export function redactValue<T>(value: T, secretTexts: ReadonlyArray<string>): T {
  if (secretTexts.length === 0) return value;
  return redactorOf(secretTexts).value(value);
}

/**
 * Replaces every occurrence of each secret value inside `text`, in any encoding (raw, JSON, URL,
 * HTML, base64; see `createRedactor`), by {@link REDACTED}: for instructions, messages and URLs
 * that carry a secret (`type "${params.password}" into …`, a GET form's next URL).
 */
export function redactText(text: string, secretValues: ReadonlyArray<string>): string {
  if (secretValues.length === 0) return text;
  return redactorOf(secretValues).text(text);
}

/** The last redactors made, by their secrets: callers pass the same list again and again. */
const recent = new Map<string, Redactor>();

function redactorOf(secretTexts: ReadonlyArray<string>): Redactor {
  const key = secretTexts.join("\u0000");
  let redactor = recent.get(key);
  if (!redactor) {
    redactor = createRedactor(secretTexts);
    if (recent.size >= 32) recent.delete(recent.keys().next().value!);
    recent.set(key, redactor);
  }
  return redactor;
}
