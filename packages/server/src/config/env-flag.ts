/**
 * The part of wf's environment schema that needs no zod: how a value is read as unset
 * ({@link nonBlank}) and the yes/no words of its flags. `env.ts` builds every flag of the schema
 * with these words (`z.stringbool` given them), so the two cannot disagree.
 *
 * It exists for the two readers that run before the configuration is parsed and must not load zod
 * (about 50 ms): the start-up trace `WF_TIMING` (read as `wf` and the server load, see `timing.ts`)
 * and `wf`'s error printer `WF_DEBUG`. They read the variable with {@link earlyFlag}; a value that
 * is not a yes/no word reads as "no" there, and fails with the schema's message where the
 * configuration is parsed (`resolveCliConfig`: `WF_CLI_CONFIG_INVALID`; `resolveServerOptions`:
 * `WF_CONFIG_INVALID`). Exported as `@wf/server/env-flag`.
 */

/** The words a flag reads as yes, any case (`z.stringbool`'s own). */
export const FLAG_TRUE = ["true", "1", "yes", "on", "y", "enabled"] as const;
/** The words a flag reads as no, any case (`z.stringbool`'s own). */
export const FLAG_FALSE = ["false", "0", "no", "off", "n", "disabled"] as const;

/** The flags read before the configuration is parsed (each also declared in `env.ts`). */
export type EarlyFlagName = "WF_TIMING" | "WF_DEBUG";

/**
 * `value` trimmed, or `undefined` when it is missing, empty or only spaces: how wf reads every
 * variable, and what the server and CLI apply to string options and flags too.
 */
export function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/**
 * Reads the flag `name` of `env` as the schema does, without zod.
 *
 * @returns `true` or `false` for a yes/no word (any case, trimmed); `undefined` when unset, blank,
 *   or not a yes/no word (which the schema's parse reports where the configuration is read).
 */
export function earlyFlag(env: Record<string, string | undefined>, name: EarlyFlagName): boolean | undefined {
  const value = nonBlank(env[name])?.toLowerCase();
  if (value === undefined) return undefined;
  if ((FLAG_TRUE as readonly string[]).includes(value)) return true;
  if ((FLAG_FALSE as readonly string[]).includes(value)) return false;
  return undefined;
}
