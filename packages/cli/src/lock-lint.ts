/**
 * The lock check of `wf check` and `wf lock --prune`: which entries of a workflow's action lock
 * (`<name>.wf.lock.json`) no call site of the file (or of the helper modules it imports) uses any more.
 */
import { dirname, relative, sep } from "node:path";
import type { LockEntry, LockFile } from "@wf/runtime";
import type { Finding, PlanResult } from "./plan-types.js";

/** An entry no ACT of the workflow uses, and why. */
export interface StaleLockEntry {
  entry: LockEntry;
  /** `no act() call at flow.ts:12 any more`, or `the call at flow.ts:12 now says "…"`. */
  reason: string;
}

/**
 * The entries of `lock` that no ACT (or, for a read entry, no ASK) of `plan` uses: no `act` (`ask`) call on the entry's file and line any
 * more, a call there whose literal instruction is not the entry's (a template call is matched by
 * its line alone: its values are only known at run time), or an entry whose `{{param}}`
 * placeholders name a param the workflow no longer declares (checked when `plan.params` is known;
 * a replay could not fill it in).
 */
export function staleLockEntries(plan: PlanResult, lock: LockFile, lockPath: string): StaleLockEntry[] {
  const calls = (type: string) =>
    [{ file: plan.file, steps: plan.steps }, ...plan.modules].flatMap((m) =>
      m.steps.filter((s) => s.type === type).map((s) => ({ site: `${relative(dirname(lockPath), m.file).split(sep).join("/")}:${s.line}`, step: s })),
    );
  const acts = calls("ACT");
  // A read entry (a recorded ASK) belongs to an ask() call.
  const asks = calls("ASK");
  const stale: StaleLockEntry[] = [];
  for (const entry of lock.entries) {
    const site = /^(.*:\d+):\d+$/.exec(entry.callSite)?.[1] ?? entry.callSite;
    const here = (entry.read ? asks : acts).filter((a) => a.site === site);
    if (here.length === 0) {
      stale.push({ entry, reason: `no ${entry.read ? "ask" : "act"}() call at ${site} any more` });
      continue;
    }
    const literal = here.filter((a) => a.step.literal && !a.step.instruction.includes("${…}"));
    if (literal.length === here.length && !entry.instruction.includes("{{") && !literal.some((a) => a.step.instruction === entry.instruction)) {
      stale.push({ entry, reason: `the call at ${site} now says ${JSON.stringify(literal[0]!.step.instruction)}` });
      continue;
    }
    const placeholders = [entry.instruction, ...entry.actions.flatMap((a) => [a.instruction, a.element?.name ?? "", a.element?.locator ?? ""])].flatMap((text) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!));
    const gone = [...new Set(placeholders)].filter((name) => plan.params && !plan.params.includes(name));
    if (gone.length > 0) {
      const declared = plan.params!.length > 0 ? `its params are ${plan.params!.join(", ")}` : "it has no params";
      stale.push({ entry, reason: `its placeholder${gone.length > 1 ? "s" : ""} ${gone.map((n) => `{{${n}}}`).join(", ")} name${gone.length > 1 ? "" : "s"} no param of the workflow any more (${declared})` });
    }
  }
  return stale;
}

/** The `WF_LOCK_STALE_ENTRY` findings of a planned file (none when it has no lock). */
export async function lockFindings(plan: PlanResult): Promise<Finding[]> {
  const { lockPathFor, readLock } = await import("@wf/runtime");
  const lockPath = lockPathFor(plan.file);
  const lock = await readLock(lockPath);
  return staleLockEntries(plan, lock, lockPath).map(({ entry, reason }) => ({
    code: "WF_LOCK_STALE_ENTRY",
    message: `The lock entry ${JSON.stringify(entry.instruction)} at ${entry.callSite} is stale: ${reason}. Remove it with \`wf lock --prune ${relative(process.cwd(), plan.file) || plan.file}\` (a model records the step again on the next \`wf run\`).`,
    file: lockPath,
    line: 0,
    column: 0,
  }));
}

