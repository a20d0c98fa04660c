/**
 * Params of `wf run` from the command line: `--param key=value` (repeatable) and
 * `--params-file f.json`. Values given as strings are converted by the param's zod type.
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

type ParseFromStrings = (wf: Workflow, input: Record<string, string>) => Record<string, unknown>;

/**
 * Builds and validates the params of a run: the params file's values, overridden by `--param`
 * strings converted by each field's zod type (number, boolean, JSON for objects and arrays).
 *
 * @returns the validated params (defaults applied).
 * @throws `ParamsValidationError` (`WF_PARAMS_INVALID`) listing each bad field.
 */
export function buildParams(wf: Workflow, fromFile: Record<string, unknown>, fromFlags: Record<string, string>): Record<string, unknown> {
  const fromStrings = (core as unknown as { parseParamsFromStrings?: ParseFromStrings }).parseParamsFromStrings;
  // Only strings: the core converter does conversion and validation in one go.
  if (fromStrings && Object.keys(fromFile).length === 0) return fromStrings(wf, fromFlags);
  const raw: Record<string, unknown> = { ...fromFile };
  for (const [key, value] of Object.entries(fromFlags)) raw[key] = convertString(wf, key, value);
  return core.parseParams(wf, raw) as Record<string, unknown>;
}

/** Converts one `--param` string by its field's zod type; left as is when the type takes strings or conversion fails (validation then says why). */
function convertString(wf: Workflow, key: string, value: string): unknown {
  let schema = wf.params?.shape[key] as { _zod?: { def?: { type?: string; innerType?: unknown } } } | undefined;
  for (let depth = 0; schema?._zod?.def?.innerType && depth < 8; depth++) schema = schema._zod.def.innerType as typeof schema;
  const type = schema?._zod?.def?.type;
  switch (type) {
    case "number":
    case "int":
    case "bigint": {
      const n = Number(value);
      return value.trim() !== "" && !Number.isNaN(n) ? (type === "bigint" ? BigInt(value) : n) : value;
    }
    case "boolean":
      return value === "true" || value === "1" ? true : value === "false" || value === "0" ? false : value;
    case "object":
    case "array":
    case "record":
    case "tuple":
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}
