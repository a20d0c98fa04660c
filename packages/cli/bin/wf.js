#!/usr/bin/env node
// Launcher of the `wf` command: registers tsx so the user's workflow files (and, in this
// repository, the CLI itself) run as TypeScript without a build step, then hands over to the CLI:
// src/bin.ts in the repository, dist/bin.js in the installed package (which ships no src/).
import { existsSync } from "node:fs";
import { register } from "tsx/esm/api";

// Start-up time: once tsx's hooks are registered, every module (plain JavaScript in node_modules
// too) is resolved and loaded through tsx's loader thread, a round trip each. The heavy plain-JS
// dependencies every command needs (yargs; zod and zod-to-json-schema under @wf/core), and undici
// for the commands that talk to a service, are imported first with Node's own loader; they are
// dependencies of this package at the same versions as in @wf/core and @wf/runtime, so the later
// imports from TypeScript resolve to the same files and find them in the module cache. Best
// effort: a preload that fails only costs the time it took (the real import reports the error).
const SERVICE_COMMANDS = new Set(["run", "trigger", "workflows"]);
const preload = ["yargs", "zod", "zod/v3", "zod-to-json-schema"];
if (SERVICE_COMMANDS.has(process.argv[2])) preload.push("undici");
await Promise.all(preload.map((specifier) => import(specifier).catch(() => {})));

register();
const source = new URL("../src/bin.ts", import.meta.url);
await import(existsSync(source) ? source.href : new URL("../dist/bin.js", import.meta.url).href);
