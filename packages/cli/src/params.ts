/**
 * Params of `wf run`: `--param key=value` (repeatable), `--param-env name=VARIABLE`,
 * `paramsFromEnv` of wf.config.ts and `--params-file f.json`, each bound for every selected
 * workflow that declares the name ({@link scopeParams}). Values given as strings are converted by
 * the param's zod type.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import * as core from "@wf/core";
import type { Workflow } from "@wf/core";
import { CliUsageError } from "./errors.js";

/**
 * Splits `key=value` strings into an object; the first `=` separates, so values may hold `=`.
 *
 * @throws {@link CliUsageError} `WF_CLI_USAGE` for an entry without `=` or with an empty key.
 */
export function parseParamFlags(entries: ReadonlyArray<string>, flag = "--param"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at <= 0) {
      throw new CliUsageError("WF_CLI_USAGE", `${flag} ${JSON.stringify(entry)} is not key=value. Write it like ${flag} query=postgres (quote values with spaces).`);
    }
    out[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return out;
}

/**
 * Reads params from environment variables: `bindings` maps a param name to a variable name
 * (`--param-env password=SHOP_PASSWORD`, `paramsFromEnv` in wf.config.ts). The values are strings,
 * converted by the param's zod type like `--param` values. An empty variable counts as set.
 *
 * @throws {@link CliUsageError} `WF_CLI_PARAM_ENV_MISSING` naming each variable that is not set.
 */
export function paramsFromEnv(bindings: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>, flag = "--param-env"): Record<string, string> {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, variable] of Object.entries(bindings)) {
    const value = env[variable];
    if (value === undefined) missing.push(`${name}=${variable}`);
    else out[name] = value;
  }
  if (missing.length > 0) {
    const names = missing.map((m) => m.slice(m.indexOf("=") + 1));
    throw new CliUsageError(
      "WF_CLI_PARAM_ENV_MISSING",
      `The environment variable${names.length > 1 ? "s" : ""} ${names.join(", ")} ${names.length > 1 ? "are" : "is"} not set (${flag} ${missing.join(" ")}). Export ${names.length > 1 ? "them" : "it"} before \`wf run\` (e.g. from your secret store or CI secrets), or drop the binding.`,
    );
  }
  return out;
}

/** Where the params of a run come from, before they are bound to the workflows that declare them. */
export interface ParamInputs {
  /** `--param` values as strings. */
  params?: Readonly<Record<string, string>>;
  /** `--param-env` bindings: param name → environment variable. */
  paramEnv?: Readonly<Record<string, string>>;
  /** `paramsFromEnv` of wf.config.ts: never an error for a name no workflow declares. */
  configEnv?: Readonly<Record<string, string>>;
  /** The `--params-file` object. */
  file?: Readonly<Record<string, unknown>>;
}

/** The params of one workflow's run, as {@link scopeParams} bound them. */
export interface ScopedParams {
  /** Strings from `--param`, `--param-env` and `paramsFromEnv`, converted by the param's zod type. */
  strings: Record<string, string>;
  /** Typed values from the params file. */
  file: Record<string, unknown>;
}

/**
 * Binds params to the workflows that declare them: each name of `--param`, `--param-env`,
 * `paramsFromEnv` and the params file goes to every workflow of `workflows` whose `params` has it,
 * and to no other. Precedence: `--param`, then `--param-env`, then `paramsFromEnv`, then the file.
 * A variable is read only for a name some workflow declares (and no `--param` gives).
 *
 * @param options.cut - the selection was cut (`--grep`, `--shard`, `--last-failed`): a command-line
 *   name no selected workflow declares is then ignored rather than refused.
 * @returns the params of each workflow (by the workflow value).
 * @throws {@link CliUsageError} `WF_CLI_PARAMS_INVALID` for a `--param`, `--param-env` or params-file
 *   name no selected workflow declares, unless `cut` (a config binding is never refused);
 *   `WF_CLI_PARAM_ENV_MISSING` naming each variable that is not set.
 */
export function scopeParams(
  workflows: ReadonlyArray<Workflow>,
  inputs: ParamInputs,
  env: Readonly<Record<string, string | undefined>>,
  options: { cut: boolean },
): (workflow: Workflow) => ScopedParams {
  const declared = new Set(workflows.flatMap((wf) => Object.keys(wf.params?.shape ?? {})));
  const flags = inputs.params ?? {};
  const paramEnv = inputs.paramEnv ?? {};
  const file = inputs.file ?? {};
  if (!options.cut) {
    const unique = [...new Map(workflows.map((wf) => [wf.name, wf])).values()];
    for (const [names, flag] of [
      [Object.keys(flags), "--param"],
      [Object.keys(paramEnv), "--param-env"],
      [Object.keys(file), "--params-file"],
    ] as const) {
      const unknown = names.filter((name) => !declared.has(name));
      if (unknown.length === 0) continue;
      if (unique.length === 1) assertKnownParams(unique[0]!, unknown, flag);
      const known = [...declared];
      throw new CliUsageError(
        "WF_CLI_PARAMS_INVALID",
        `No selected workflow has a param ${unknown.map((n) => JSON.stringify(n)).join(", ")} (${flag}). ${known.length ? `Known params: ${known.join(", ")}.` : "They take no params."}`,
      );
    }
  }
  // The variables of the names some workflow takes and no --param gives; --param-env beats the config's binding.
  const used = (bindings: Readonly<Record<string, string>>, skip: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(Object.entries(bindings).filter(([name]) => declared.has(name) && !Object.hasOwn(flags, name) && !Object.hasOwn(skip, name)));
  const fromFlagEnv = paramsFromEnv(used(paramEnv, {}), env, "--param-env");
  const fromConfigEnv = paramsFromEnv(used(inputs.configEnv ?? {}, paramEnv), env, "paramsFromEnv in wf.config.ts:");
  const strings = { ...fromConfigEnv, ...fromFlagEnv, ...flags };
  return (workflow) => {
    const shape = workflow.params?.shape ?? {};
    const own = <T>(values: Readonly<Record<string, T>>) => Object.fromEntries(Object.entries(values).filter(([name]) => Object.hasOwn(shape, name)));
    return { strings: own(strings), file: own(file) };
  };
}

/**
 * Reads a params file: a JSON object.
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` or `WF_CLI_USAGE` (not JSON, not an object).
 */
export async function readParamsFile(file: string, cwd: string = process.cwd()): Promise<Record<string, unknown>> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `Params file not found: ${path}. Check the --params-file path.`, { path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError("WF_CLI_USAGE", `Params file ${path} is not valid JSON: ${(error as Error).message}. It should hold one object, like {"query": "postgres"}.`, { path });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliUsageError("WF_CLI_USAGE", `Params file ${path} must hold a JSON object, like {"query": "postgres"}.`, { path });
  }
  return value as Record<string, unknown>;
}

/**
 * Refuses `--param`/`--var` names the workflow does not declare: a typo would otherwise be dropped
 * silently and the run would use the default.
 *
 * @throws {@link CliUsageError} `WF_CLI_PARAMS_INVALID` naming the unknown keys and listing the known ones.
 */
export function assertKnownParams(wf: Workflow, names: ReadonlyArray<string>, flag = "--param"): void {
  assertKnownParamNames(wf.name, Object.keys(wf.params?.shape ?? {}), names, flag);
}

/**
 * {@link assertKnownParams} by names: `wf run` (a loaded workflow) and `wf trigger` (a stored
 * workflow's params as the service lists them) refuse unknown names with the same message.
 *
 * @throws {@link CliUsageError} `WF_CLI_PARAMS_INVALID` naming the unknown keys and listing the known ones.
 */
export function assertKnownParamNames(workflow: string, known: ReadonlyArray<string>, names: ReadonlyArray<string>, flag = "--param"): void {
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const list = known.length ? `Known params: ${known.join(", ")}.` : `It takes no params.`;
  throw new CliUsageError(
    "WF_CLI_PARAMS_INVALID",
    `Workflow "${workflow}" has no param${unknown.length === 1 ? "" : "s"} ${unknown.map((n) => JSON.stringify(n)).join(", ")} (${flag}). ${list}`,
  );
}

/**
 * Builds and validates the params of a run: the params file's values, overridden by `--param`
 * strings converted by each field's zod type (`parseParamsFromStrings` of `@wf/core`: numbers,
 * booleans, enums, JSON for arrays and objects, dates).
 *
 * @returns the validated params (defaults applied).
 * @param allFromFile - the params file's values; the names the workflow does not declare are left out.
 * @throws {@link CliUsageError} `WF_CLI_PARAMS_INVALID` for a `--param` name the workflow does not declare.
 * @throws `ParamsValidationError` (`WF_PARAMS_INVALID`) listing each bad field.
 */
export function buildParams(wf: Workflow, allFromFile: Record<string, unknown>, fromFlags: Record<string, string>): Record<string, unknown> {
  assertKnownParams(wf, Object.keys(fromFlags));
  // A params file may serve several workflows (wf run on many): each takes the names it declares.
  const fromFile = wf.params ? Object.fromEntries(Object.entries(allFromFile).filter(([key]) => Object.hasOwn(wf.params!.shape, key))) : allFromFile;
  if (Object.keys(fromFile).length === 0) return core.parseParamsFromStrings(wf, fromFlags) as Record<string, unknown>;
  const shape = wf.params?.shape ?? {};
  const known = Object.keys(fromFlags).filter((key) => Object.hasOwn(shape, key));
  if (!wf.params || known.length === 0) return core.parseParams(wf, { ...fromFile, ...fromFlags }) as Record<string, unknown>;
  // Convert just the flag fields (the file's values are already typed), then validate the whole.
  const mask = Object.fromEntries(known.map((key) => [key, true as const])) as Record<string, true> & Record<number, never>;
  const flagFields = wf.params.pick(mask).partial();
  let converted: Record<string, unknown>;
  try {
    converted = core.parseParamsFromStrings({ ...wf, params: flagFields }, Object.fromEntries(known.map((key) => [key, fromFlags[key]!]))) as Record<string, unknown>;
  } catch {
    // Left as strings: the validation below names the bad fields along with any others.
    converted = {};
  }
  return core.parseParams(wf, { ...fromFile, ...fromFlags, ...converted }) as Record<string, unknown>;
}
