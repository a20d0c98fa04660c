/**
 * `wf run --shard i/n`: runs one of n parts of the selected workflows, for a CI matrix of n
 * machines, as Playwright's `--shard` does. The split is deterministic: the workflows in file
 * order (then, with `--repeat-each`, each run of a workflow in turn) cut into n contiguous parts
 * whose sizes differ by at most one, so the parts are disjoint and together are the whole.
 */
import { CliUsageError } from "./errors.js";

/** Which part: `current` of `total`, from 1. */
export interface Shard {
  current: number;
  total: number;
}

/**
 * Parses `i/n` (`--shard 2/4`).
 * @throws {@link CliUsageError} `WF_CLI_USAGE` unless 1 ≤ i ≤ n.
 */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const current = match ? Number(match[1]) : NaN;
  const total = match ? Number(match[2]) : NaN;
  if (!match || total < 1 || current < 1 || current > total) {
    throw new CliUsageError("WF_CLI_USAGE", `--shard must be i/n with 1 ≤ i ≤ n (the part to run, of n), e.g. --shard 1/3; got ${JSON.stringify(text)}.`);
  }
  return { current, total };
}

/**
 * The part `shard` of `items` (in the order given: `findWorkflows` sorts by file): the items from
 * ⌊(i−1)·m/n⌋ to ⌊i·m/n⌋ of m. With more parts than items some parts are empty.
 */
export function shardOf<T>(items: readonly T[], shard: Shard): T[] {
  const from = Math.floor(((shard.current - 1) * items.length) / shard.total);
  const to = Math.floor((shard.current * items.length) / shard.total);
  return items.slice(from, to);
}
