/**
 * `wf lock diff [files]`: what changed in action locks since the last commit, entry by entry:
 * the old (the file in git `HEAD`) and new (the working file) instruction, role, name, locator and
 * page of each entry that was added, removed or changed. What a reviewer reads before committing a
 * `heal` or `write` run's lock.
 */
import { execFile } from "node:child_process";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import type { LockEntry, LockEntryChange, LockFile, LockedAction } from "@wf/runtime";
import { CliUsageError } from "./errors.js";

const run = promisify(execFile);

/** The diff of one lock file. */
export interface LockFileDiff {
  /** The lock file, absolute. */
  lockPath: string;
  /** What it is compared with: the file in `HEAD`, or nothing when `HEAD` does not have it (new, or no commit yet). */
  base: "HEAD" | "not-committed";
  changes: LockEntryChange[];
}

/** The suffix of a lock file's name. */
const LOCK_SUFFIX = ".wf.lock.json";

/**
 * Diffs lock files against git `HEAD`.
 *
 * @param files - lock files (`*.wf.lock.json`) or workflow files (their lock beside them), relative
 *   to `cwd`; none: every lock file git sees changed or untracked in the work tree of `cwd`.
 * @throws {@link CliUsageError} `WF_CLI_NOT_GIT` when a file (or `cwd`) is not in a git work tree
 *   (there is no committed version to compare with); `WF_CLI_CONFIG_INVALID` when a version is not a wf lock.
 */
export async function diffLockFiles(files: readonly string[], options: { cwd: string }): Promise<LockFileDiff[]> {
  const { lockPathFor, parseLock, readLock, diffLocks } = await import("@wf/runtime");
  const paths = files.length > 0 ? files.map((f) => resolve(options.cwd, f)).map((f) => (f.endsWith(LOCK_SUFFIX) ? f : lockPathFor(f))) : await changedLockFiles(options.cwd);
  const out: LockFileDiff[] = [];
  for (const lockPath of [...new Set(paths)].sort()) {
    const committed = await committedText(lockPath);
    let before: LockFile;
    let after: LockFile;
    try {
      before = committed === undefined ? { version: 1, entries: [] } : parseLock(committed, `HEAD:${basename(lockPath)}`);
      after = await readLock(lockPath);
    } catch (error) {
      throw new CliUsageError("WF_CLI_CONFIG_INVALID", (error as Error).message, { path: lockPath });
    }
    out.push({ lockPath, base: committed === undefined ? "not-committed" : "HEAD", changes: diffLocks(before, after) });
  }
  return out;
}

/** The lock files git reports changed, added or untracked under `cwd`'s work tree, absolute. */
async function changedLockFiles(cwd: string): Promise<string[]> {
  const root = (await git(cwd, ["rev-parse", "--show-toplevel"])).trim();
  const status = await git(cwd, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  const paths: string[] = [];
  const records = status.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    const path = record.slice(3);
    // A rename's record is followed by its old path.
    if (code.includes("R") || code.includes("C")) i++;
    if (path.endsWith(LOCK_SUFFIX)) paths.push(resolve(root, path));
  }
  return paths;
}

/**
 * The text of `lockPath` in `HEAD` (`git show HEAD:./<name>`, run in its folder), or undefined when
 * `HEAD` does not have it (a new file, or a repository with no commit yet).
 * @throws {@link CliUsageError} `WF_CLI_NOT_GIT` when its folder is not in a git work tree.
 */
async function committedText(lockPath: string): Promise<string | undefined> {
  const dir = dirname(lockPath);
  await git(dir, ["rev-parse", "--is-inside-work-tree"]);
  try {
    return await git(dir, ["show", `HEAD:./${basename(lockPath)}`]);
  } catch {
    return undefined;
  }
}

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", ["-C", cwd, ...args], { maxBuffer: 64 * 1024 * 1024, encoding: "utf8" });
    return stdout;
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === "ENOENT") throw new CliUsageError("WF_CLI_NOT_GIT", "`wf lock diff` compares with the lock as committed in git, and no `git` command was found. Install git.");
    if (args[0] === "rev-parse") {
      throw new CliUsageError(
        "WF_CLI_NOT_GIT",
        `${cwd} is not in a git work tree, so there is no committed lock to compare with (\`wf lock diff\` shows what changed since git HEAD). Commit the lock in a git repository first.`,
        { path: cwd },
      );
    }
    throw error;
  }
}

/** The fields of an action a diff shows, in order. */
const FIELDS = ["instruction", "role", "name", "locator"] as const;

function fieldOf(action: LockedAction | undefined, field: (typeof FIELDS)[number]): string | undefined {
  if (!action) return undefined;
  if (field === "instruction") return action.instruction;
  return action.element?.[field];
}

/** The rows of one change: `[field, old, new]` for each field that differs (every field of an added or removed entry). */
export function changeRows(change: LockEntryChange): Array<[string, string | undefined, string | undefined]> {
  const rows: Array<[string, string | undefined, string | undefined]> = [];
  const o: Partial<LockEntry> = change.old ?? {};
  const n: Partial<LockEntry> = change.new ?? {};
  if (o.page !== n.page) rows.push(["page", o.page, n.page]);
  const count = Math.max(o.actions?.length ?? 0, n.actions?.length ?? 0);
  for (let i = 0; i < count; i++) {
    for (const field of FIELDS) {
      const before = fieldOf(o.actions?.[i], field);
      const after = fieldOf(n.actions?.[i], field);
      if (before !== after) rows.push([`action ${i + 1} ${field}`, before, after]);
    }
  }
  // A read: its schema, recipe (one line of JSON) and why it has none.
  const recipe = (e: Partial<LockEntry>) => (e.read?.recipe ? JSON.stringify(e.read.recipe) : undefined);
  if (o.read?.schemaHash !== n.read?.schemaHash) rows.push(["read schema", o.read?.schemaHash, n.read?.schemaHash]);
  if (recipe(o) !== recipe(n)) rows.push(["read recipe", recipe(o), recipe(n)]);
  const check = (e: Partial<LockEntry>) => (e.read?.check ? JSON.stringify(e.read.check) : undefined);
  if (check(o) !== check(n)) rows.push(["check recipe", check(o), check(n)]);
  if (o.read?.noRecipe !== n.read?.noRecipe) rows.push(["read without recipe", o.read?.noRecipe, n.read?.noRecipe]);
  return rows;
}

/**
 * The diff for people: per lock file a head line, then per entry `~` (changed), `+` (added) or `-`
 * (removed), its instruction and call site, and a line per field: `old → new`.
 */
export function formatLockDiff(diffs: readonly LockFileDiff[], cwd: string): string {
  if (diffs.length === 0) return "No lock file changed since git HEAD.\n";
  const lines: string[] = [];
  for (const diff of diffs) {
    const shown = relative(cwd, diff.lockPath).split(sep).join("/") || diff.lockPath;
    const count = (kind: string) => diff.changes.filter((c) => c.kind === kind).length;
    const summary = diff.changes.length === 0 ? "no entry changed" : [["changed", count("changed")], ["added", count("added")], ["removed", count("removed")]].filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ");
    lines.push(`${shown} (${diff.base === "HEAD" ? "git HEAD → working file" : "not in git HEAD: every entry is new"}): ${summary}`);
    for (const change of diff.changes) {
      const mark = change.kind === "changed" ? "~" : change.kind === "added" ? "+" : "-";
      lines.push(`  ${mark} ${JSON.stringify(change.instruction)} at ${change.callSite}${change.ordinal ? ` (#${change.ordinal})` : ""}`);
      const rows = changeRows(change);
      const width = Math.max(...rows.map(([f]) => f.length));
      for (const [field, before, after] of rows) lines.push(`      ${field.padEnd(width)}  ${before ?? "(none)"} → ${after ?? "(none)"}`);
    }
  }
  return lines.join("\n") + "\n";
}
