/**
 * Imports a user's TypeScript file (a workflow, `wf.config.ts`).
 * - Under `bin/wf.js` in this repository, tsx is already registered for the whole process.
 * - Under the installed `wf` (built JavaScript), `bin.ts` allows it to compile user files itself
 *   (`_compile.ts`: esbuild, cached in the project's `node_modules/.cache/wf`) and import the
 *   result with Node's own loader, with no loader thread; the user's file shares the CLI's module
 *   graph (`@wf/core`, zod: loaded once). Where no `node_modules` folder holds the file, tsx is
 *   registered process-wide on the first user file instead (after the modules the command needs).
 * - Elsewhere (tests, an embedding program) `tsImport` compiles the file in its own namespace and
 *   leaves the host process's loader alone.
 */
import { pathToFileURL } from "node:url";
import { compileUserFile, moduleAliases } from "./_compile.js";

const REGISTERED = Symbol.for("wf.cli.tsxRegistered");
const MAY_REGISTER = Symbol.for("wf.cli.tsxMayRegister");
const flags = globalThis as Record<symbol, unknown>;

/** Modules to load before tsx is registered (see {@link preloadBeforeTsx}). */
const preloads: Array<() => Promise<unknown>> = [];

/** Called by the `wf` process (`bin.ts`): tsx may be registered process-wide when a user file is first imported. */
export function allowProcessWideTsx(): void {
  flags[MAY_REGISTER] = true;
}

/**
 * Asks for a module the command will need to be loaded before tsx is registered: once tsx's hooks
 * are in place every module load is a round trip to its loader thread, which costs the installed
 * `wf` hundreds of ms for big dependency graphs (undici, fastify, the openai SDK). A no-op when tsx
 * is registered already or will never be (tests, embedding programs).
 *
 * @param load - e.g. `() => import("@wf/runtime")` (a function, so the bundler rewrites the specifier).
 */
export function preloadBeforeTsx(load: () => Promise<unknown>): void {
  if (flags[REGISTERED] !== true && flags[MAY_REGISTER] === true) preloads.push(load);
}

/**
 * Imports `path` (absolute) as an ES module, compiling TypeScript on the fly.
 *
 * @param options.fresh - load the file and everything it imports anew (a new tsx namespace), not
 *   from the module cache: what `wf run --watch` needs after a save. @default false
 */
export async function importTs(path: string, options: { fresh?: boolean } = {}): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (flags[REGISTERED] !== true && flags[MAY_REGISTER] === true) {
    const compiled = await compileUserFile(path, options);
    if (compiled !== undefined) {
      // Stack traces and step call sites read the compiled file's inline source map.
      process.setSourceMapsEnabled(true);
      try {
        return (await import(compiled)) as Record<string, unknown>;
      } catch (error) {
        // Under the clone's build, a file importing another workspace package (whose exports are
        // TypeScript sources Node cannot load) falls back to tsx below; anything else is the file's error.
        if (moduleAliases() === undefined || (error as { code?: unknown }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
      }
    }
    // Best effort: a preload that fails costs its time only; the command's own import reports it.
    await Promise.all(preloads.splice(0).map((load) => load().catch(() => undefined)));
    const { register } = await import("tsx/esm/api");
    register();
    flags[REGISTERED] = true;
  }
  if (!options.fresh && flags[REGISTERED] === true) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await import("tsx/esm/api");
  return (await tsImport(url, { parentURL: import.meta.url })) as Record<string, unknown>;
}
