/**
 * Imports a user's TypeScript file (a workflow, `wf.config.ts`). Under `bin/wf.js`, tsx is
 * registered for the whole process, so a plain `import()` shares the CLI's own module graph
 * (`@wf/core`, zod: loaded once); elsewhere (tests, an embedding program) `tsImport` compiles the
 * file in its own namespace.
 */
import { pathToFileURL } from "node:url";

const REGISTERED = Symbol.for("wf.cli.tsxRegistered");

/** Called by `bin/wf.js` once tsx's loader is registered process-wide. */
export function markTsxRegistered(): void {
  (globalThis as Record<symbol, unknown>)[REGISTERED] = true;
}

/**
 * Imports `path` (absolute) as an ES module, compiling TypeScript on the fly.
 *
 * @param options.fresh - load the file and everything it imports anew (a new tsx namespace), not
 *   from the module cache: what `wf run --watch` needs after a save. @default false
 */
export async function importTs(path: string, options: { fresh?: boolean } = {}): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (!options.fresh && (globalThis as Record<symbol, unknown>)[REGISTERED] === true) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await import("tsx/esm/api");
  return (await tsImport(url, { parentURL: import.meta.url })) as Record<string, unknown>;
}
