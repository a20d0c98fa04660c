#!/usr/bin/env node
// Launcher of the `wf` command: registers tsx so the CLI (and the user's workflow files) run as
// TypeScript without a build step, then hands over to src/bin.ts.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

// Start-up time: once tsx's hooks are registered, every module (plain JavaScript in node_modules
// too) is resolved and loaded through tsx's loader thread, a round trip each. The heavy plain-JS
// dependencies every command needs (yargs; zod and zod-to-json-schema under @wf/core), and undici
// for the commands that talk to a service, are loaded first with Node's own loader; the later
// imports from TypeScript find them in the module cache. Best effort: a preload that fails only
// costs the time it took (the real import reports the error).
const SERVICE_COMMANDS = new Set(["run", "trigger", "workflows"]);
const command = process.argv[2];
const preload = [esm("yargs"), esm("zod"), esm("zod/v3"), esm("zod-to-json-schema", "@wf/core")];
if (SERVICE_COMMANDS.has(command)) preload.push(esm("undici", "@wf/runtime"));
await Promise.all(preload.map((url) => (url ? import(url).catch(() => {}) : undefined)));

register();
await import("../src/bin.ts");

/**
 * The file URL the ESM loader gives `specifier` imported from `parent` (a package of the CLI's
 * dependencies; unset: this file): its package's `exports` "import" entry, else what `require`
 * resolves; undefined when it cannot tell.
 */
function esm(specifier, parent) {
  try {
    const parentUrl = parent ? import.meta.resolve(parent) : import.meta.url;
    const required = createRequire(parentUrl).resolve(specifier);
    const [name, ...rest] = specifier.split("/");
    const subpath = rest.length ? `./${rest.join("/")}` : ".";
    for (let dir = dirname(required); dir !== dirname(dir); dir = dirname(dir)) {
      let pkg;
      try {
        pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      if (pkg.name !== name) continue;
      const entry = pkg.exports && typeof pkg.exports === "object" && (subpath in pkg.exports ? pkg.exports[subpath] : subpath === "." ? pkg.exports : undefined);
      const target = importTarget(entry);
      return pathToFileURL(target ? join(dir, target) : required).href;
    }
  } catch {
    // Not resolvable from here: no preload.
  }
  return undefined;
}

/** The path of an `exports` entry under the "import" (then "default") condition. */
function importTarget(entry) {
  if (typeof entry === "string") return entry;
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return undefined;
  // The first condition Node's loader matches, in the object's order.
  for (const [key, value] of Object.entries(entry)) if (key === "import" || key === "node" || key === "default") return importTarget(value);
  return undefined;
}
