/**
 * The action lock: `<workflow>.wf.lock.json` beside a workflow file records, for each ACT a model
 * resolved, the grammar instructions it ran and the elements they acted on, so a later run replays
 * them without the model (the service verifies each element before acting).
 *
 * An entry is keyed by the step's instruction with param values folded back into `{{param}}`
 * placeholders (one entry serves every value; a secret's value is never written), its call site
 * relative to the lock file, and an ordinal when that call site runs the instruction several times
 * in one run. The page's origin and path are kept as a check, not in the key. The file is written
 * with a stable order (call site, ordinal, instruction) and 2-space JSON, so a diff is reviewable.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, join, relative, sep } from "node:path";
import { REDACTED } from "@wf/core";
import type { CheckRecipe, ReadRecipe } from "@wf/core/protocol";

/**
 * How a run uses the lock:
 * - `frozen` (the default on CI, like `npm ci` with a lockfile): replay entries; a step without one
 *   is sent with `allowModel: false`, so one that needs the model fails `WF_LOCK_MISSING` (a step the
 *   grammar carries out alone still runs); a stale entry fails the step; nothing is written.
 * - `read`: replay entries; a step without one goes to the service as usual (the model resolves it
 *   when one is configured, and the step record says so with `lockEntryMissing`) and nothing is
 *   written; a stale entry fails the step.
 * - `write`: ignore entries, let the service resolve every step, and record (or refresh) an entry for
 *   each step the model resolved.
 * - `heal`: replay entries; a replay that fails before acting runs once more without the lock (the
 *   model resolves it) and the entry is rewritten in place; missing entries are recorded.
 * - `off`: neither read nor write the lock.
 */
export type LockMode = "frozen" | "read" | "write" | "heal" | "off";
/** The modes, for flags and config validation. */
export const LOCK_MODES: readonly LockMode[] = ["frozen", "read", "write", "heal", "off"];

/** An element as the lock records it. */
export interface LockedElement {
  /** ARIA role, e.g. `button`. */
  role: string;
  /** Accessible name (with `{{param}}` placeholders where a param value was). */
  name: string;
  /** A Playwright locator for it; a replay uses it when the instruction names several elements or another one. */
  locator?: string;
  /** `locator` when the recorded locator, not the instruction, is the entry's primary way to find the element. */
  primary?: "locator";
}

/** One recorded action: a grammar instruction and its element. */
export interface LockedAction {
  /** One grammar instruction, e.g. `type "{{user}}" into the "Email" field`. */
  instruction: string;
  element?: LockedElement;
}

/**
 * A recorded read (an ASK the model answered, or a check it decided): the recipe that reproduced the model's answer
 * on the page it was recorded on, replayed with no model; or why there is none (the step then goes
 * to the model on every run). Recorded for the step's schema only: another schema is not replayed.
 */
export interface LockedRead {
  /** `sha256:` and the first 16 hex digits of the SHA-256 of the step's response format (its JSON). */
  schemaHash: string;
  /** How the answer is read from the page (see `ReadRecipe` of `@wf/core/protocol`). */
  recipe?: ReadRecipe;
  /** A check the model decided: how it is evaluated with no model (see `CheckRecipe` of `@wf/core/protocol`); `schemaHash` is then that of no schema. */
  check?: CheckRecipe;
  /** Why no recipe reproduces the answer, e.g. `the answer needs judgement: /value is a count of page items…`. */
  noRecipe?: string;
}

/** One entry of the lock: a resolved ACT (its `actions`), or a read (its `read`; `actions` empty). */
export interface LockEntry {
  /**
   * The test the step ran in (Vitest's full name, `suite > test`), for a lock beside a test file
   * (`@wf/cli/vitest`); absent for a workflow file's lock. Part of the key.
   */
  test?: string;
  /** Where the workflow calls `act`: `path:line:column`, the path relative to the lock file. */
  callSite: string;
  /** The n-th time (from 2) this call site ran this instruction in one run; absent for the first. */
  ordinal?: number;
  /** The instruction as the workflow wrote it, param values as `{{param}}`. */
  instruction: string;
  /** Origin and path of the page the step started on (a check shown when a replay fails, not part of the key). */
  page?: string;
  /** What the model resolved the step to (an ACT); empty for a read. */
  actions: LockedAction[];
  /** An ASK the model answered: its recipe, or why none. */
  read?: LockedRead;
  /** The model that resolved it. */
  model?: string;
  /** When it was recorded (ISO 8601). */
  recordedAt: string;
}

/** The lock file's content. */
export interface LockFile {
  version: 1;
  entries: LockEntry[];
}

/** The lock file of a workflow file: `flow.ts` → `flow.wf.lock.json`, in the same folder. */
export function lockPathFor(workflowFile: string): string {
  const base = basename(workflowFile, extname(workflowFile));
  return join(dirname(workflowFile), `${base}.wf.lock.json`);
}

/**
 * Reads a lock file; a missing file is an empty lock.
 * @throws Error naming the file when it is not a lock (bad JSON or shape): fix or delete it.
 */
export async function readLock(path: string): Promise<LockFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, entries: [] };
    throw error;
  }
  return parseLock(text, path);
}

/** Writes a lock file: entries sorted, keys in a fixed order, 2-space JSON, a final newline; atomically (write then rename). */
export async function writeLock(path: string, lock: LockFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, formatLock(lock));
  await rename(tmp, path);
}

/** The text of a lock file, as {@link writeLock} writes it. */
export function formatLock(lock: LockFile): string {
  const entries = [...lock.entries].sort(compareEntries).map((e) => ({
    ...(e.test !== undefined ? { test: e.test } : {}),
    callSite: e.callSite,
    ...(e.ordinal !== undefined && e.ordinal > 1 ? { ordinal: e.ordinal } : {}),
    instruction: e.instruction,
    ...(e.page ? { page: e.page } : {}),
    ...(e.read && !e.actions?.length ? {} : { actions: (e.actions ?? []).map((a) => ({ instruction: a.instruction, ...(a.element ? { element: formatElement(a.element) } : {}) })) }),
    ...(e.read ? { read: formatRead(e.read) } : {}),
    ...(e.model ? { model: e.model } : {}),
    recordedAt: e.recordedAt,
  }));
  return JSON.stringify({ version: 1, entries }, null, 2) + "\n";
}

/** A read with its keys in the file's fixed order. */
function formatRead(read: LockedRead): LockedRead {
  return { schemaHash: read.schemaHash, ...(read.recipe ? { recipe: read.recipe } : {}), ...(read.check ? { check: read.check } : {}), ...(read.noRecipe ? { noRecipe: read.noRecipe } : {}) };
}

/** An element with its keys in the file's fixed order, empty ones left out. */
function formatElement(element: LockedElement): LockedElement {
  return {
    role: element.role,
    name: element.name,
    ...(element.locator ? { locator: element.locator } : {}),
    ...(element.primary ? { primary: element.primary } : {}),
  };
}

/**
 * Whether two entries record the same thing: key, page and actions alike (who recorded it and when,
 * `model` and `recordedAt`, are not compared). Recording an entry the lock already has keeps the
 * old one byte for byte, so a refresh or heal that changed nothing leaves no diff.
 */
export function sameRecording(a: LockEntry, b: LockEntry): boolean {
  const strip = (e: LockEntry): LockEntry => {
    const { model: _model, ordinal, ...rest } = e;
    return { ...rest, ...(ordinal && ordinal > 1 ? { ordinal } : {}), recordedAt: "" };
  };
  return formatLock({ version: 1, entries: [strip(a)] }) === formatLock({ version: 1, entries: [strip(b)] });
}

/** One entry's change between two versions of a lock; `old`/`new` absent for an added/removed entry. */
export interface LockEntryChange {
  /** `added`, `removed`, or `changed` (page or actions differ). */
  kind: "added" | "removed" | "changed";
  /** The test of the entry (a lock beside a Vitest file). */
  test?: string;
  callSite: string;
  ordinal?: number;
  instruction: string;
  old?: LockEntry;
  new?: LockEntry;
  /** In a run record: the index of the step whose recording made the change. */
  stepIndex?: number;
}

/**
 * The entries that differ between two versions of a lock, keyed as the lock keys them (call site,
 * ordinal, instruction), in the file's order; an entry whose only difference is `recordedAt` is
 * not a change.
 */
export function diffLocks(before: LockFile, after: LockFile): LockEntryChange[] {
  const changes: LockEntryChange[] = [];
  for (const entry of after.entries) {
    const old = findEntry(before, entry);
    if (!old) changes.push({ kind: "added", ...keyOf(entry), new: entry });
    else if (!sameRecording(old, entry)) changes.push({ kind: "changed", ...keyOf(entry), old, new: entry });
  }
  for (const entry of before.entries) if (!findEntry(after, entry)) changes.push({ kind: "removed", ...keyOf(entry), old: entry });
  return changes.sort((a, b) => compareEntries((a.new ?? a.old)!, (b.new ?? b.old)!));
}

function keyOf(entry: LockEntry): Pick<LockEntryChange, "test" | "callSite" | "ordinal" | "instruction"> {
  return { ...(entry.test !== undefined ? { test: entry.test } : {}), callSite: entry.callSite, ...(entry.ordinal && entry.ordinal > 1 ? { ordinal: entry.ordinal } : {}), instruction: entry.instruction };
}

/**
 * Parses a lock file's text (see {@link readLock}).
 * @param where - how the text is named in errors (a path, `HEAD:flows/a.wf.lock.json`).
 * @throws Error naming `where` when it is not a wf lock.
 */
export function parseLock(text: string, where: string): LockFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`The lock file ${where} is not valid JSON (${(error as Error).message}). Fix it, or delete it and record again with --lock write.`);
  }
  const lock = parsed as Partial<LockFile>;
  if (!lock || lock.version !== 1 || !Array.isArray(lock.entries)) {
    throw new Error(`The lock file ${where} is not a wf lock (version 1 with entries). Fix it, or delete it and record again with --lock write.`);
  }
  // A read's entry has no `actions` in the file.
  return { version: 1, entries: lock.entries.map((e) => (Array.isArray(e.actions) ? e : { ...e, actions: [] })) };
}

/** Finds the entry of a key. */
export function findEntry(lock: LockFile, key: Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">): LockEntry | undefined {
  return lock.entries.find((e) => sameKey(e, key));
}

/** Puts an entry in the lock, replacing the one with the same key in place (never a second one). */
export function upsertEntry(lock: LockFile, entry: LockEntry): void {
  const i = lock.entries.findIndex((e) => sameKey(e, entry));
  if (i >= 0) lock.entries[i] = entry;
  else lock.entries.push(entry);
}

/** How an entry is named in messages: `"sign me in" at flow.ts:12:9 (#2)`. */
export function describeEntry(entry: Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">): string {
  return `${JSON.stringify(entry.instruction)} at ${entry.callSite}${entry.ordinal && entry.ordinal > 1 ? ` (#${entry.ordinal})` : ""}${entry.test !== undefined ? ` in test ${JSON.stringify(entry.test)}` : ""}`;
}

function sameKey(a: Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">, b: Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">): boolean {
  return a.test === b.test && a.callSite === b.callSite && (a.ordinal ?? 1) === (b.ordinal ?? 1) && a.instruction === b.instruction;
}

function compareEntries(a: LockEntry, b: LockEntry): number {
  const pa = splitCallSite(a.callSite);
  const pb = splitCallSite(b.callSite);
  return (a.test ?? "").localeCompare(b.test ?? "") || pa.file.localeCompare(pb.file) || pa.line - pb.line || pa.column - pb.column || (a.ordinal ?? 1) - (b.ordinal ?? 1) || a.instruction.localeCompare(b.instruction);
}

function splitCallSite(callSite: string): { file: string; line: number; column: number } {
  const m = /^(.*):(\d+):(\d+)$/.exec(callSite);
  return m ? { file: m[1]!, line: Number(m[2]), column: Number(m[3]) } : { file: callSite, line: 0, column: 0 };
}

/** A call site (`/abs/flow.ts:12:9`) relative to the lock file's folder, with `/` separators. */
export function relativeCallSite(callSite: string, lockPath: string): string {
  const { file, line, column } = splitCallSite(callSite);
  const rel = isAbsolute(file) ? relative(dirname(lockPath), file).split(sep).join("/") : file;
  return line ? `${rel}:${line}:${column}` : rel;
}

/** A param a lock folds into placeholders: its name, its value as text, and whether it is secret. */
export interface LockParam {
  name: string;
  value: string;
  secret: boolean;
}

/** Shortest value of a non-secret param that is folded: shorter ones (`1`, `en`) would turn up inside unrelated words. */
const MIN_FOLDED_LENGTH = 3;

/**
 * The params a lock folds, from a run's params: top-level strings and numbers (every secret,
 * non-secrets of at least 3 characters), longest value first.
 */
export function lockParams(params: Record<string, unknown>, secretNames: readonly string[]): LockParam[] {
  const out: LockParam[] = [];
  for (const [name, raw] of Object.entries(params)) {
    if (typeof raw !== "string" && typeof raw !== "number") continue;
    const value = String(raw);
    const secret = secretNames.includes(name);
    if (!value || (!secret && value.length < MIN_FOLDED_LENGTH)) continue;
    out.push({ name, value, secret });
  }
  return out.sort((a, b) => b.value.length - a.value.length);
}

/** Replaces each param's value in `text` by `{{name}}`. */
export function foldParams(text: string, params: readonly LockParam[]): string {
  return params.reduce((t, p) => t.split(p.value).join(`{{${p.name}}}`), text);
}

/**
 * Replaces each `{{name}}` of `text` by the param's value.
 * @returns undefined when a placeholder names no param of this run (the entry cannot be replayed).
 */
export function fillParams(text: string, params: readonly LockParam[]): string | undefined {
  let missing = false;
  const out = text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => {
    const param = params.find((p) => p.name === name);
    if (!param) missing = true;
    return param ? param.value : whole;
  });
  return missing ? undefined : out;
}

/**
 * Folds the service's view of a resolved step (secrets already `[secret]`) back into placeholders:
 * param values become `{{param}}`, and each `[secret]` becomes the secret param the instruction
 * used there (in the order the folded instruction names secret placeholders).
 * @returns undefined when a `[secret]` cannot be told apart (nothing is then recorded).
 */
export function foldActions(
  actions: ReadonlyArray<{ instruction: string; element?: LockedElement }>,
  foldedInstruction: string,
  params: readonly LockParam[],
): LockedAction[] | undefined {
  const secretNames = new Set(params.filter((p) => p.secret).map((p) => p.name));
  const used = [...foldedInstruction.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!).filter((n) => secretNames.has(n));
  const distinct = [...new Set(used)];
  let next = 0;
  let unknown = false;
  const unsecret = (text: string) =>
    text.split(REDACTED).reduce((out, part, i) => {
      if (i === 0) return part;
      const name = distinct.length === 1 ? distinct[0] : used[next++];
      if (!name) unknown = true;
      return `${out}{{${name ?? "secret"}}}${part}`;
    }, "");
  const folded = actions.map((a) => ({
    instruction: unsecret(foldParams(a.instruction, params)),
    ...(a.element
      ? { element: { role: a.element.role, name: foldParams(a.element.name, params), ...(a.element.locator ? { locator: foldParams(a.element.locator, params) } : {}), ...(a.element.primary ? { primary: a.element.primary } : {}) } }
      : {}),
  }));
  if (unknown) return undefined;
  // Last guard: no secret value, and no unresolved `[secret]`, may reach the file.
  const text = JSON.stringify(folded);
  if (text.includes(REDACTED) || params.some((p) => p.secret && text.includes(p.value))) return undefined;
  return folded;
}

/** Origin and path of a URL (no query, no hash), for the entry's page check. */
export function pageKey(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return `${u.origin}${u.pathname}`;
    if (u.protocol === "file:") return `file://${u.pathname}`;
    // about:blank stays whole; a data: URL is not worth keeping beyond its scheme.
    return u.protocol === "about:" ? url.split(/[?#]/)[0] : u.protocol;
  } catch {
    return undefined;
  }
}
