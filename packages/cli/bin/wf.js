#!/usr/bin/env node
// Launcher of the `wf` command.
//
// Installed (no src/ beside dist/): the CLI is built JavaScript and loads with Node's own loader;
// tsx is registered only when a user's TypeScript file is first imported (see src/_import.ts), so
// none of the CLI's own modules pay for tsx's loader hooks.
//
// In this repository (src/ present): the clone's build (dist-clone/, `pnpm wf:build`) while it is
// current, i.e. built from exactly the sources now on disk (scripts/clone-build-state.mjs); it loads
// like the installed CLI. Otherwise (no build, or any source changed since) tsx is registered first
// so the CLI itself runs from its TypeScript sources: a stale build never runs. Once tsx's hooks are registered, every module is
// resolved and loaded through tsx's loader thread, a round trip each, so the heavy plain-JS
// dependencies every command needs are imported first with Node's own loader (best effort: a
// preload that fails only costs its time; the real import reports the error).
import { existsSync } from "node:fs";
import module from "node:module";

// Playwright's PWDEBUG=1 means `wf run --debug` (src/bin.ts hands it to the command). playwright-core
// must not see it: it reads it once, as it loads (preloaded below), and would launch its own
// Inspector, which pauses every browser call of a step past the step's deadline.
if (process.env.PWDEBUG !== undefined) {
  globalThis[Symbol.for("wf.cli.pwdebug")] = process.env.PWDEBUG;
  delete process.env.PWDEBUG;
}

// Node 22's compile cache (V8's code cache of every module on disk, between runs); absent on Node 20.
// Enabled before the CLI loads so its modules are cached too; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const source = new URL("../src/bin.ts", import.meta.url);
const cloneBuild = existsSync(source) && process.env.WF_CLONE_BUILD !== "0" ? await import("../scripts/clone-build-state.mjs").catch(() => undefined) : undefined;
if (cloneBuild?.cloneBuildIsCurrent()) {
  if (process.env.WF_TIMING === "1") process.stderr.write(`wf timing: ${performance.timeOrigin.toFixed(1)} process start\n`);
  // A workflow imports @wf/core (and wf.config.ts @wf/cli) from this build: one instance with the CLI's.
  const dist = new URL("../dist-clone/", import.meta.url);
  globalThis[Symbol.for("wf.cli.moduleAliases")] = {
    "@wf/core": new URL("core.js", dist).href,
    "@wf/core/errors": new URL("core-errors.js", dist).href,
    "@wf/core/protocol": new URL("core-protocol.js", dist).href,
    "@wf/cli": new URL("cli.js", dist).href,
  };
  await import(new URL("bin.js", dist).href);
} else if (existsSync(source)) {
  const SERVICE_COMMANDS = new Set(["run", "trigger", "workflows"]);
  const preload = ["yargs", "zod"];
  if (SERVICE_COMMANDS.has(process.argv[2])) preload.push("undici");
  // `wf run` on the embedded server: its two biggest dependencies (~300 ms through tsx's loader, ~half without).
  const flag = (name) => process.argv.some((arg) => arg === name || arg.startsWith(`${name}=`));
  const baseUrlGiven = flag("--service-url") || flag("--base-url") || Boolean(process.env.WF_SERVICE_URL) || Boolean(process.env.WF_BASE_URL);
  if (process.argv[2] === "run" && !baseUrlGiven) preload.push("playwright-core", "fastify");
  await Promise.all(preload.map((specifier) => import(specifier).catch(() => {})));
  const { register } = await import("tsx/esm/api");
  register();
  if (process.env.WF_TIMING === "1") process.stderr.write(`wf timing: ${performance.timeOrigin.toFixed(1)} process start\nwf timing: ${(performance.timeOrigin + performance.now()).toFixed(1)} tsx registered\n`);
  globalThis[Symbol.for("wf.cli.tsxRegistered")] = true;
  await import(source.href);
} else {
  // `wf --help` prints the text yargs rendered at build time when it is what yargs would print now
  // (src/cached-help.ts says when), without loading the CLI.
  if (process.env.WF_TIMING === "1") process.stderr.write(`wf timing: ${performance.timeOrigin.toFixed(1)} process start\n`);
  const args = process.argv.slice(2);
  let help;
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    help = await Promise.all([import("../dist/cached-help.js"), import("../dist/help-table.js")])
      .then(([{ cachedHelp }, { default: table }]) => cachedHelp(args, process.stdout.columns, process.env, existsSync(".env"), table))
      .catch(() => undefined);
  }
  if (help !== undefined) process.stdout.write(help);
  else await import(new URL("../dist/bin.js", import.meta.url).href);
}
