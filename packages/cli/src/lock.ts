/**
 * `wf lock --prune`: removes the entries of a workflow's action lock (`<name>.wf.lock.json`) that
 * no call site of the file (or of the helper modules it imports) uses any more (`lock-lint.ts`).
 */
import { dirname, relative, resolve, sep } from "node:path";
import type { LockEntry, LockFile } from "@wf/runtime";
import { staleLockEntries, type StaleLockEntry } from "./lock-lint.js";

export type { StaleLockEntry } from "./lock-lint.js";

/** What {@link pruneLock} did. */
export interface PruneLockResult {
  /** Absolute path of the lock file. */
  lockPath: string;
  /** The entries removed, and why. */
  removed: StaleLockEntry[];
  /** Entries left. */
  kept: number;
}

/**
 * Removes from a workflow's lock the entries no call site uses (see {@link staleLockEntries}) and
 * rewrites it in its stable format; nothing is written when nothing is removed or `dryRun` is set.
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when the workflow file does not exist.
 */
export async function pruneLock(file: string, options: { cwd?: string; dryRun?: boolean } = {}): Promise<PruneLockResult> {
  const { planWorkflowFile } = await import("./plan.js");
  const { lockPathFor, readLock, writeLock } = await import("@wf/runtime");
  const plan = await planWorkflowFile(resolve(options.cwd ?? process.cwd(), file), options.cwd !== undefined ? { cwd: options.cwd } : {});
  const lockPath = lockPathFor(plan.file);
  const lock = await readLock(lockPath);
  const removed = staleLockEntries(plan, lock, lockPath);
  const kept = lock.entries.filter((e) => !removed.some((r) => r.entry === e));
  if (removed.length > 0 && !options.dryRun) await writeLock(lockPath, { version: 1, entries: kept });
  return { lockPath, removed, kept: kept.length };
}

/** One entry as `wf lock <file>` lists it. */
export interface ListedLockEntry {
  /** `"the pending orders" at orders.ts:11:27`. */
  entry: string;
  /** `act`: recorded actions; `read`: a read recipe, replayed with no model; `check`: a check recipe, evaluated with no model; `model`: a read or check with no recipe, which goes to the model on every run (and fails under `--lock frozen`). */
  kind: "act" | "read" | "check" | "model";
  /** For `act`, how many actions; for `read`, what the recipe reads; for `check`, the element and the text it must show; for `model`, why it has no recipe. */
  detail: string;
}

/** What {@link listLock} found. */
export interface ListLockResult {
  /** Absolute path of the lock file. */
  lockPath: string;
  /** Whether the file exists. */
  exists: boolean;
  entries: ListedLockEntry[];
}

/**
 * The entries of a lock (`wf lock <file>`), in the file's order: each ACT with its actions, each
 * read with what its recipe reads, each check with what its recipe evaluates, and each read or check with no recipe with why (those steps call the
 * model on every run, and fail `WF_LOCK_MISSING` under `--lock frozen`).
 * @param file - a workflow file (its lock beside it) or a lock file (`*.wf.lock.json`), relative to `cwd`.
 * @throws Error naming the file when it is not a wf lock (see `readLock`).
 */
export async function listLock(file: string, options: { cwd?: string } = {}): Promise<ListLockResult> {
  const { lockPathFor, readLock } = await import("@wf/runtime");
  const { access } = await import("node:fs/promises");
  const path = resolve(options.cwd ?? process.cwd(), file);
  const lockPath = path.endsWith(".wf.lock.json") ? path : lockPathFor(path);
  const exists = await access(lockPath).then(
    () => true,
    () => false,
  );
  const lock = await readLock(lockPath);
  return { lockPath, exists, entries: lock.entries.map(listed) };
}

function listed(entry: LockEntry): ListedLockEntry {
  const name = `${JSON.stringify(entry.instruction)} at ${entry.callSite}${entry.ordinal && entry.ordinal > 1 ? ` (#${entry.ordinal})` : ""}${entry.test !== undefined ? ` in test ${JSON.stringify(entry.test)}` : ""}`;
  if (!entry.read) return { entry: name, kind: "act", detail: `${entry.actions.length} action${entry.actions.length === 1 ? "" : "s"}` };
  const check = entry.read.check;
  if (check) {
    const text = check.equals !== undefined ? `reads ${JSON.stringify(check.equals)}` : `shows ${JSON.stringify(check.contains ?? "")}`;
    return { entry: name, kind: "check", detail: `the ${check.element.role} at ${check.element.locator} ${text}` };
  }
  if (!entry.read.recipe) return { entry: name, kind: "model", detail: entry.read.noRecipe ?? "no recipe was recorded" };
  const parts = entry.read.recipe.parts.map((p) => {
    const at = p.path || "(the answer)";
    if (p.label !== undefined) return `${at} by the label ${JSON.stringify(p.label)}`;
    if (p.table) return `${at} from the table with ${p.table.headers.map((h) => JSON.stringify(h)).join(", ")}${p.where?.length ? " (rows selected)" : ""}`;
    if (p.list) return `${at} from the list under ${JSON.stringify(p.list.context || "(no heading)")}`;
    if (p.element) return `${at} from the ${p.element.role === "heading" ? `page's one heading of level ${p.element.level ?? 1}` : p.element.name ? `${p.element.role} ${JSON.stringify(p.element.name)}` : `page's one ${p.element.role}`}`;
    if (p.section !== undefined) return `${at} from the section under ${JSON.stringify(p.section)}`;
    return at;
  });
  return { entry: name, kind: "read", detail: parts.join("; ") };
}
