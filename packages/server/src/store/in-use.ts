/**
 * Who has an embedded store open. PGlite is single-process and takes no lock of its own, so a
 * process that opens `<dataDir>/db` writes `<dataDir>/db.in-use` (its pid and host) and deletes
 * it when it closes the store. `wf store backup`/`restore` refuse while a live process on this
 * host has it open, naming the process to stop; a file left by a process that died is ignored.
 */
import { hostname } from "node:os";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { WfError } from "@wf/core";

/** The file beside `db/` that says which process has the store open. */
export const IN_USE_FILE = "db.in-use";

interface InUse {
  pid: number;
  host: string;
  since: string;
}

/**
 * Marks the store of `dataDir` open by this process.
 * @returns a function that removes the mark (only this process's). Never throws: a data folder
 *   that cannot take the file (read-only) leaves the store unmarked.
 */
export async function markStoreInUse(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, IN_USE_FILE);
  const mine: InUse = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  await writeFile(path, `${JSON.stringify(mine)}\n`).catch(() => undefined);
  return async () => {
    const now = await readInUse(dataDir);
    if (now && now.pid === mine.pid && now.host === mine.host) await rm(path, { force: true }).catch(() => undefined);
  };
}

/** The live process on this host that has the store of `dataDir` open, or undefined. */
export async function storeInUse(dataDir: string): Promise<InUse | undefined> {
  const found = await readInUse(dataDir);
  if (!found || found.host !== hostname()) return undefined;
  try {
    process.kill(found.pid, 0);
    return found;
  } catch (error) {
    // EPERM: the process lives, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM" ? found : undefined;
  }
}

/**
 * @throws {@link WfError} `WF_STORE_IN_USE` when a live process has the store of `dataDir` open,
 *   with the command that stops it.
 */
export async function assertStoreNotInUse(dataDir: string, what: "back up" | "restore"): Promise<void> {
  const user = await storeInUse(dataDir);
  if (!user) return;
  const self = user.pid === process.pid ? " (this process: close the store first)" : "";
  throw new WfError(
    "WF_STORE_IN_USE",
    `The store in ${dataDir} is open in process ${user.pid}${self}, a wf server since ${user.since}; PGlite is single-process, so a ${what === "back up" ? "backup taken now would not be consistent" : "restore now would be overwritten by it"}. Stop that server first (Ctrl-C it, or \`kill ${user.pid}\`), then run \`wf store ${what === "back up" ? "backup" : "restore"}\` again.`,
  );
}

async function readInUse(dataDir: string): Promise<InUse | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(dataDir, IN_USE_FILE), "utf8")) as Partial<InUse>;
    return typeof parsed.pid === "number" && typeof parsed.host === "string" ? { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? "") } : undefined;
  } catch {
    return undefined;
  }
}
