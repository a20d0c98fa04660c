/**
 * Loading the embedded database ahead of the server: `wf serve` and `pnpm start` start reading and
 * compiling PGlite's WebAssembly (~15 MB; the compile runs on V8's background threads) before the
 * rest of `@wf/server` (Fastify, playwright-core, the routes) is imported on the main thread, so
 * the two overlap instead of queueing (issue 26). {@link startServer}'s store then finds PGlite
 * compiled, or being compiled, and waits only for what is left. This module loads only the store's
 * drivers, so it is cheap to import first (`@wf/server/store-ahead`).
 */
import { pgliteAssets, type PgliteWasmTier } from "./drivers.js";
import { timingMark } from "../observability/timing.js";

/**
 * Starts loading and compiling PGlite when the store will be the embedded one, and returns at
 * once. Does nothing for any other store (a `postgres://` or `memory:` URL). A failure is not
 * reported here: the store's open tries again and reports it as it would have.
 *
 * @param databaseUrl - the `databaseUrl` (or `WF_DATABASE_URL`) the server will be given; unset or
 *   blank means the embedded database.
 * @param tier - how V8 compiles it (`PgliteWasmTier`); pass the server's `pgliteWasmTier`, since
 *   the first compile in a process is the one every store of that process uses. @default "optimizing"
 */
export function prepareStore(databaseUrl: string | undefined, tier: PgliteWasmTier = "optimizing"): void {
  if (databaseUrl !== undefined && databaseUrl.trim() !== "") return;
  timingMark("store: PGlite compile started early");
  pgliteAssets(tier).catch(() => undefined);
}
