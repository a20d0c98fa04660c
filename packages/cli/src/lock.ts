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
