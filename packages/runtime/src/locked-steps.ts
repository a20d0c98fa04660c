/**
 * The action lock applied to ACT steps: each step's key, the replay of its entry, healing (the
 * recorded element found again on the service, else the model once), recording what the model
 * resolved, and the failure that names a stale entry and the command that refreshes it. Shared by
 * `runWorkflow` (wf run) and the server's stored runs, which differ only in how a step is sent.
 */
import { createHash } from "node:crypto";
import type { CheckRecipe, ReadRecipe, ReplayAction, StepStatus } from "@wf/core/protocol";
import {
  describeEntry,
  fillParams,
  findEntry,
  foldActions,
  foldParams,
  lockParams,
  pageKey,
  readLock,
  relativeCallSite,
  sameRecording,
  upsertEntry,
  writeLock,
  type LockEntry,
  type LockFile,
  type LockMode,
  type LockParam,
} from "./lock.js";

/** The action lock of a run (see `lock.ts`). */
export interface RunLockOptions {
  /** The lock file, e.g. `/repo/flows/sign-in.wf.lock.json` (see `lockPathFor`). */
  path: string;
  /** How the run uses it; `off` neither reads nor writes it. */
  mode: LockMode;
  /** Whether the service has a model to resolve steps (a missing entry then goes to it). */
  model: boolean;
  /** The command that records the lock again, shown when an entry is stale, e.g. `wf run flows/sign-in.ts --lock write`. */
  refreshCommand: string;
  /** The test the run is (`@wf/cli/vitest`): part of each entry's key, so two tests sharing a helper keep their own entries. */
  test?: string;
}

/** A run's lock: the file as read (and updated), the params it folds, and the key of each step. */
export interface LockState {
  options: RunLockOptions;
  file: LockFile;
  /** The file as it was when the run opened it: what a heal's diff compares against. */
  initial: LockFile;
  params: LockParam[];
  /** How many times each call site ran each (folded) instruction so far. */
  ordinals: Map<string, number>;
  /** The lock key of each step index (a retried step keeps its key). */
  keys: Map<number, Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">>;
}

/** The fields of a finished step's status the lock reads. */
export type FinishedStatus = Pick<StepStatus, "status" | "result" | "error" | "interpreter" | "resolved" | "usage" | "pageUrl" | "replayed" | "downloads" | "recipe" | "checkRecipe" | "noRecipe">;

/** How a step is sent once (see {@link LockedAttempt}); every field is optional, the default being a plain send. */
export interface LockedAttemptOptions {
  /** ACT: a lock entry's actions to replay instead of interpreting the instruction. */
  replay?: ReplayAction[];
  /** With `replay` (`heal`): look again for a recorded element its instruction no longer finds. @default false */
  refind?: boolean;
  /** False (a `frozen` step with no entry or recipe) asks the service not to call its model. @default true */
  allowModel?: boolean;
  /** ASK: a read recipe to run instead of asking. */
  recipe?: ReadRecipe;
  /** A check: a check recipe to evaluate instead of the statement. */
  checkRecipe?: CheckRecipe;
  /** ASK or check: the lock records what the model answers (`write`, `heal`): ask the service for its recipe. @default false */
  deriveRecipe?: boolean;
}

/** Sends a step once, as the options say, and resolves to its finished status. */
export type LockedAttempt = (options?: LockedAttemptOptions) => Promise<FinishedStatus>;

/** What a run tells {@link runLockedAct} about itself. */
export interface LockedActHooks {
  /** The page's URL where the step starts (the last step's `pageUrl`), kept in an entry as a check. */
  pageUrl: string | null | undefined;
  /** Says something that is not a failure (an entry not recorded, a lock not writable). */
  log(message: string): void;
}

/** Codes of a replay that failed before it acted, which a model may heal. */
const HEALABLE = ["WF_REPLAY_MISMATCH", "WF_ELEMENT_NOT_FOUND", "WF_ELEMENT_AMBIGUOUS", "WF_INSTRUCTION_NOT_UNDERSTOOD"];

/**
 * Reads a run's lock file and folds its params.
 * @param params - the run's validated params; `secretNames` the names of its secret params.
 * @throws Error naming the file when it is not a wf lock (see `readLock`).
 */
export async function openLock(options: RunLockOptions, params: Record<string, unknown>, secretNames: readonly string[]): Promise<LockState> {
  const file = await readLock(options.path);
  return { options, file, initial: structuredClone(file), params: lockParams(params, secretNames), ordinals: new Map(), keys: new Map() };
}

/** The code of a step that needs the model while its lock has no entry for it (`frozen`, or no model). */
export const LOCK_MISSING_CODE = "WF_LOCK_MISSING";

/**
 * Runs an ACT with the lock: replays its entry when the mode reads the lock; in `heal`, asks the
 * service to find a recorded element again (`refind`) and, when that fails before anything was
 * done, sends the step once more without the lock for the model; records what was healed or
 * what the model resolved (`write`, `heal`); turns a stale entry's failure into one that names the
 * entry and the command that refreshes it.
 *
 * @param step - the step's index, instruction (values filled in) and call site (`path:line:column`).
 * In `frozen`, a step with no entry (or one whose placeholders this run cannot fill) is sent with
 * `allowModel: false`: a step the grammar carries out alone runs, one that needs the model fails
 * `WF_LOCK_MISSING` naming its call site and the command that records it, and no model is called.
 *
 * @returns the step's final status (its error rewritten for a stale or missing entry), whether it
 *   was healed, and whether the model resolved it with no entry to replay (`read`: not recorded).
 */
export async function runLockedAct(
  step: { index: number; instruction: string; callSite?: string | undefined },
  lock: LockState,
  attempt: LockedAttempt,
  hooks: LockedActHooks,
): Promise<{ status: FinishedStatus; healed: boolean; unlockedModel?: boolean }> {
  const { mode, model } = lock.options;
  const key = keyOf(step, lock);
  const startedOn = pageKey(hooks.pageUrl);
  const entry = mode === "write" ? undefined : findEntry(lock.file, key);
  const replay = entry ? toReplay(entry, lock.params) : undefined;

  // heal: an element its instruction no longer finds is first looked for by its recorded identity
  // and locator (deterministic, on the service); only then is the model asked.
  if (!replay && mode === "frozen") {
    const status = await attempt({ allowModel: false });
    if (status.status === "FAILED" && (status.error?.code === "WF_MODEL_FORBIDDEN" || (!model && status.error?.code === "WF_INSTRUCTION_NOT_UNDERSTOOD"))) {
      return { status: { ...status, error: lockMissing(status.error!, key, lock, entry !== undefined) }, healed: false };
    }
    return { status, healed: false };
  }
  let status = await attempt({ ...(replay ? { replay } : {}), refind: mode === "heal" });
  let healed = false;
  if (replay && status.status === "SUCCEEDED" && refoundActions(status) > 0) {
    await recordEntry(lock, key, status, startedOn, hooks, entry!.model);
    return { status, healed: true };
  }
  if (replay && status.status === "FAILED") {
    const acted = ((status.error?.details as { actionIndex?: number } | undefined)?.actionIndex ?? 0) > 0;
    if (mode === "heal" && model && !acted && HEALABLE.includes(status.error?.code ?? "")) {
      const failedReplay = status.error;
      status = await attempt({});
      if (status.status === "SUCCEEDED") healed = true;
      else if (failedReplay) status = { ...status, error: { ...status.error!, message: `${status.error!.message} (It was healing the lock entry ${describeEntry(key)}, whose replay failed: ${failedReplay.message})` } };
    } else {
      const error = status.error ?? { code: "WF_REPLAY_MISMATCH", message: "The replay failed." };
      const moved = entry!.page && startedOn && entry!.page !== startedOn ? ` It was recorded on ${entry!.page}; this step started on ${startedOn}.` : "";
      const why = acted ? " The replay had already acted when it failed, so it was not healed." : mode === "heal" && !model ? " No model is configured to heal it." : "";
      return {
        status: {
          ...status,
          error: {
            ...error,
            message: `The lock entry ${describeEntry(key)} in ${lock.options.path} is stale: ${error.message}${moved}${why} Refresh it with \`${lock.options.refreshCommand}\` (a model must be configured).`,
          },
        },
        healed,
      };
    }
  } else if (!replay && !model && status.status === "FAILED" && (mode === "read" || mode === "heal") && status.error?.code === "WF_INSTRUCTION_NOT_UNDERSTOOD") {
    // A free-form step with neither a lock entry nor a model: what is missing is the entry.
    return { status: { ...status, error: lockMissing(status.error!, key, lock, entry !== undefined) }, healed };
  }
  if (status.status === "SUCCEEDED" && status.interpreter === "model" && !status.replayed && (mode === "write" || mode === "heal")) {
    await recordEntry(lock, key, status, startedOn, hooks);
  }
  // read: the model resolved a step the lock has no entry for; said, not recorded.
  const unlockedModel = !replay && mode === "read" && status.interpreter === "model";
  if (unlockedModel) {
    hooks.log(
      `The lock ${lock.options.path} has no entry for ${describeEntry(key)}: the model resolved it (--lock read records nothing). Record it with \`${lock.options.refreshCommand}\`, or use --lock frozen to fail such a step instead.`,
    );
  }
  return { status, healed, ...(unlockedModel ? { unlockedModel } : {}) };
}

/** The lock key of a step (counted once per step index: a retried step keeps its key). */
function keyOf(step: { index: number; instruction: string; callSite?: string | undefined }, lock: LockState): Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction"> {
  let key = lock.keys.get(step.index);
  if (!key) {
    const instruction = foldParams(step.instruction, lock.params);
    const callSite = step.callSite ? relativeCallSite(step.callSite, lock.options.path) : "(unknown)";
    const counted = `${callSite}\u0000${instruction}`;
    const test = lock.options.test;
    const ordinal = (lock.ordinals.get(counted) ?? 0) + 1;
    lock.ordinals.set(counted, ordinal);
    key = { ...(test !== undefined ? { test } : {}), callSite, instruction, ...(ordinal > 1 ? { ordinal } : {}) };
    lock.keys.set(step.index, key);
  }
  return key;
}

/** The code of a recorded read that no longer applies to the page (the service's, kept by the runtime). */
export const LOCK_STALE_CODE = "WF_LOCK_STALE";

/** The `schemaHash` of a read entry: `sha256:` and 16 hex digits of the step's response format as JSON (`null` for a text ASK). */
export function schemaHashOf(responseFormat: unknown): string {
  return `sha256:${createHash("sha256").update(JSON.stringify(responseFormat ?? null)).digest("hex").slice(0, 16)}`;
}

/**
 * Runs an ASK or a check (`check()`) with the lock. An entry whose recipe was recorded for this
 * step is sent with it: a read `recipe` for an ASK of the same schema, a `checkRecipe` for a check;
 * the service evaluates it on the page and calls no model. A recipe that no longer applies
 * (`WF_LOCK_STALE`) goes to the model when one is configured and the mode is `read` or `heal`
 * (`heal` records the new recipe); otherwise the step fails, naming the entry and the command that
 * records it again. A step with no recipe (none recorded, one that needed judgement, another
 * schema) goes to the service as before the lock knew reads, except in `frozen`: there it is sent
 * with `allowModel: false`, so one that needs the model fails `WF_LOCK_MISSING` (`WF_LOCK_STALE`
 * for a recipe of another schema) naming the entry and why it has no recipe, with no model call;
 * a read the service answers without the model (the model-free reader of a service with no model,
 * a check in a grammar form) still runs. In `write` and `heal`, what the model answered is
 * recorded: its recipe, or why none.
 *
 * @param step - the step's index, question or statement (values filled in), call site, response
 *   format (an ASK's), and `check` for a check.
 * @returns the step's final status (a stale recipe's error naming the entry) and whether it was healed.
 */
export async function runLockedAsk(
  step: { index: number; instruction: string; callSite?: string | undefined; responseFormat?: unknown; check?: unknown },
  lock: LockState,
  attempt: LockedAttempt,
  hooks: LockedActHooks,
): Promise<{ status: FinishedStatus; healed: boolean }> {
  const { mode, model } = lock.options;
  const isCheck = step.check !== undefined && step.check !== null;
  const key = keyOf(step, lock);
  const startedOn = pageKey(hooks.pageUrl);
  const schemaHash = schemaHashOf(step.responseFormat);
  const entry = mode === "write" ? undefined : findEntry(lock.file, key);
  const fits = entry?.read !== undefined && entry.read.schemaHash === schemaHash;
  const recipe = fits && !isCheck ? entry.read!.recipe : undefined;
  const checkRecipe = fits && isCheck ? entry.read!.check : undefined;
  const recorded = recipe ? { recipe } : checkRecipe ? { checkRecipe } : undefined;
  // frozen: a read with no recipe calls no model. One the service answers without it (the
  // model-free reader on a service with no model, a grammar check) still runs; one that needs it fails.
  // A check in no grammar form on a service with no model is not understood: what is missing is its recipe.
  const needsModel = (status: FinishedStatus) =>
    status.status === "FAILED" && (status.error?.code === "WF_MODEL_FORBIDDEN" || (isCheck && !model && status.error?.code === "WF_INSTRUCTION_NOT_UNDERSTOOD"));
  if (!recorded && mode === "frozen") {
    const status = await attempt({ allowModel: false });
    if (needsModel(status)) return { status: { ...status, error: readNeedsModel(status.error!, key, lock, entry, schemaHash, isCheck) }, healed: false };
    return { status, healed: false };
  }
  // Only a run that records reads asks for the answer's recipe: deriving it reads the page once more.
  const derive = mode === "write" || mode === "heal";
  let status = await attempt({ ...recorded, ...(derive ? { deriveRecipe: true } : {}) });
  let healed = false;
  if (recorded && status.status === "FAILED" && status.error?.code === LOCK_STALE_CODE) {
    if (model && (mode === "heal" || mode === "read")) {
      const stale = status.error;
      hooks.log(`The recorded ${isCheck ? "check" : "read"} ${describeEntry(key)} in ${lock.options.path} no longer applies (${stale.message}); the model ${isCheck ? "checked" : "read"} the page instead.${mode === "read" ? ` Record it again with \`${lock.options.refreshCommand}\`.` : ""}`);
      status = await attempt(derive ? { deriveRecipe: true } : {});
      healed = mode === "heal" && status.status === "SUCCEEDED";
    } else {
      const why = mode === "heal" ? ` No model is configured to ${isCheck ? "check" : "read"} it instead.` : "";
      return {
        status: { ...status, error: { ...status.error, message: `The lock entry ${describeEntry(key)} in ${lock.options.path} is stale: ${status.error.message}${why} Refresh it with \`${lock.options.refreshCommand}\` (a model must be configured).` } },
        healed,
      };
    }
  }
  if (!recorded && (mode === "read" || mode === "heal") && needsModel(status)) return { status: { ...status, error: readNeedsModel(status.error!, key, lock, entry, schemaHash, isCheck) }, healed };
  if (status.status === "SUCCEEDED" && status.interpreter === "model" && !status.replayed && (mode === "write" || mode === "heal")) {
    await recordRead(lock, key, status, schemaHash, startedOn, hooks, isCheck);
  }
  return { status, healed };
}

/** Records (or replaces) the read entry of an ASK the model answered or a check it decided: its recipe, or why none. */
async function recordRead(lock: LockState, key: LockKey, status: FinishedStatus, schemaHash: string, startedOn: string | undefined, hooks: LockedActHooks, isCheck: boolean): Promise<void> {
  const kept = isCheck ? (status.checkRecipe ? { check: status.checkRecipe } : undefined) : status.recipe ? { recipe: status.recipe } : undefined;
  let read: LockEntry["read"] = { schemaHash, ...(kept ?? { noRecipe: status.noRecipe ?? "the service gave no recipe for this answer" }) };
  // A recipe holds page text: one holding a secret's value is not written (the step goes to the model).
  const secrets = lock.params.filter((p) => p.secret).map((p) => p.value);
  if (kept && secrets.some((s) => JSON.stringify(kept).includes(s))) read = { schemaHash, noRecipe: "its recipe holds the value of a secret param, which the lock never writes" };
  await writeEntry(lock, { ...key, ...(startedOn ? { page: startedOn } : {}), actions: [], read, ...(status.usage?.model ? { model: status.usage.model } : {}), recordedAt: new Date().toISOString() }, hooks);
}

/** The key fields of a lock entry. */
type LockKey = Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">;

/**
 * A step that needs the model and that the lock cannot stand in for: `WF_LOCK_MISSING` (or
 * `WF_LOCK_STALE`, for a recipe of another schema). The message says what the lock lacks
 * (`reason`), why no model was called (`instead`), the service's own message, and what to do
 * (`todo`); `details.reason` holds the reason alone when it is the entry's own (`withReason`).
 */
function lockError(
  error: NonNullable<FinishedStatus["error"]>,
  key: LockKey,
  lock: LockState,
  parts: { code?: string; lacks: string; reason: string; instead: string; todo: string; withReason?: boolean },
): NonNullable<FinishedStatus["error"]> {
  const { path, refreshCommand } = lock.options;
  return {
    code: parts.code ?? LOCK_MISSING_CODE,
    message: `The lock ${path} ${parts.lacks}, and the step needs the model${parts.instead ? ` (${parts.instead})` : ""}: ${parts.reason ? `${parts.reason}. ` : ""}${parts.todo} (The service said: ${error.message})`,
    details: { serviceCode: error.code, callSite: key.callSite, ...(parts.withReason ? { reason: parts.reason } : {}), refreshCommand },
  };
}

/**
 * The failure of a `frozen` ASK or check that needs the model and has no recipe to
 * replay: `WF_LOCK_MISSING` when the lock has no entry for it or its entry records why no recipe
 * reproduces the answer (`noRecipe`: it needs judgement, …), `WF_LOCK_STALE` when its recipe was
 * recorded for another schema. The message names the entry, the reason and the command that
 * records it; `details.reason` holds the reason alone.
 */
function readNeedsModel(error: NonNullable<FinishedStatus["error"]>, key: LockKey, lock: LockState, entry: LockEntry | undefined, schemaHash: string, isCheck: boolean): NonNullable<FinishedStatus["error"]> {
  const read = entry?.read;
  let code = LOCK_MISSING_CODE;
  let reason: string;
  if (!read) reason = entry ? `its entry for ${describeEntry(key)} records actions, not a ${isCheck ? "check" : "read"}` : `it has no entry for ${describeEntry(key)}`;
  else if (read.schemaHash !== schemaHash) {
    code = LOCK_STALE_CODE;
    reason = `its entry for ${describeEntry(key)} was recorded for another schema (${read.schemaHash}; this step's is ${schemaHash})`;
  } else if (isCheck && read.recipe) reason = `its entry for ${describeEntry(key)} records a read, not a check`;
  else if (!isCheck && read.check) reason = `its entry for ${describeEntry(key)} records a check, not a read`;
  else reason = `its entry for ${describeEntry(key)} has no recipe: ${read.noRecipe ?? "none was recorded"}`;
  const judged = Boolean(read?.noRecipe && read.schemaHash === schemaHash);
  return lockError(error, key, lock, {
    code,
    lacks: `has no ${isCheck ? "check" : "read"} recipe for this step`,
    reason,
    instead: lock.options.mode === "frozen" ? "--lock frozen calls no model for it" : "no model is configured",
    todo: judged ? `Such a ${isCheck ? "check" : "read"} goes to the model on every run: run it with --lock read or heal and a model configured.` : `Record it with a model configured: \`${lock.options.refreshCommand}\`.`,
    withReason: true,
  });
}

/** `WF_LOCK_MISSING`: the step needs the model and the lock has no entry for it (or one this run cannot fill in). */
function lockMissing(error: NonNullable<FinishedStatus["error"]>, key: LockKey, lock: LockState, unfillable: boolean): NonNullable<FinishedStatus["error"]> {
  const { mode, model } = lock.options;
  return lockError(error, key, lock, {
    lacks: unfillable ? `has an entry for ${describeEntry(key)} whose {{placeholders}} name params this run does not have` : `has no entry for ${describeEntry(key)}`,
    reason: "",
    instead: mode === "frozen" ? "--lock frozen calls no model for it" : model ? "" : "no model is configured to resolve it",
    todo: `Record it with a model configured: \`${lock.options.refreshCommand}\`.`,
  });
}
/**
 * Records (or replaces in place) the entry of a resolved step and writes the lock file. The file is
 * read again first, so entries another run of the same workflow wrote meanwhile are kept.
 */
async function recordEntry(
  lock: LockState,
  key: Pick<LockEntry, "test" | "callSite" | "ordinal" | "instruction">,
  status: FinishedStatus,
  startedOn: string | undefined,
  hooks: LockedActHooks,
  model = status.usage?.model,
): Promise<void> {
  const ran = (status.result as { actions?: Array<{ instruction: string; element?: { role: string; name: string; locator?: string; primary?: "locator" } }> } | undefined)?.actions;
  if (!ran || ran.length === 0) return;
  const actions = foldActions(ran, key.instruction, lock.params);
  if (!actions) {
    hooks.log(`Not recorded in the lock: ${describeEntry(key)} (a secret in it could not be told apart from another).`);
    return;
  }
  await writeEntry(lock, { ...key, ...(startedOn ? { page: startedOn } : {}), actions, ...(model ? { model } : {}), recordedAt: new Date().toISOString() }, hooks);
}

/** Puts an entry in the lock file (read again first, so entries another run wrote meanwhile are kept) and writes it; the same recording again changes nothing. */
async function writeEntry(lock: LockState, entry: LockEntry, hooks: LockedActHooks): Promise<void> {
  try {
    lock.file = await readLock(lock.options.path);
  } catch {
    // Unreadable now (edited by hand mid-run): the run's own copy is written over it.
  }
  const existing = findEntry(lock.file, entry);
  // The same recording again (a refresh that resolved alike): the entry and the file stay as they are.
  if (existing && sameRecording(existing, entry)) return;
  upsertEntry(lock.file, entry);
  try {
    await writeLock(lock.options.path, lock.file);
  } catch (error) {
    // The step itself succeeded: a lock that cannot be written is said, not a failed step.
    hooks.log(`Could not write the lock ${lock.options.path}: ${(error as Error).message}. Check the folder is writable.`);
  }
}

/** How many actions of a replayed step acted on a recorded element found again (`--lock heal`). */
function refoundActions(status: FinishedStatus): number {
  const actions = (status.result as { actions?: Array<{ refound?: boolean }> } | undefined)?.actions;
  return Array.isArray(actions) ? actions.filter((a) => a?.refound === true).length : 0;
}

/** An entry's actions with this run's param values filled in; undefined when a placeholder names no param of the run. */
function toReplay(entry: LockEntry, params: readonly LockParam[]): ReplayAction[] | undefined {
  const out: ReplayAction[] = [];
  for (const action of entry.actions) {
    const instruction = fillParams(action.instruction, params);
    const name = action.element ? fillParams(action.element.name, params) : undefined;
    if (instruction === undefined || (action.element && name === undefined)) return undefined;
    const locator = action.element?.locator ? fillParams(action.element.locator, params) : undefined;
    const primary = action.element?.primary === "locator" ? { primary: "locator" as const } : {};
    out.push({ instruction, ...(action.element ? { element: { role: action.element.role, name: name!, ...(locator ? { locator } : {}), ...primary } } : {}) });
  }
  return out.length > 0 ? out : undefined;
}
export { lockPathFor, diffLocks, LOCK_MODES, type LockMode, type LockEntryChange } from "./lock.js";
export { ModelBudget } from "./model-budget.js";
