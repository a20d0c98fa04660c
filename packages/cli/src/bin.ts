/**
 * The `wf` process: the only place that reads `process.argv`, handles signals and exits.
 * Ctrl-C (SIGINT) or SIGTERM aborts the command (a run closes its session), then exits 130;
 * a second Ctrl-C exits at once.
 */
import { existsSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { WfError } from "@wf/core/errors";
import { allowProcessWideTsx } from "./_import.js";
import { runCli } from "./cli.js";
import { EXIT } from "./errors.js";
import { timingMark } from "./timing.js";

timingMark("cli loaded");

// A short-lived command talks HTTP through undici, whose parser is WebAssembly (llhttp). V8 tiers
// a hot WebAssembly function up with TurboFan on a background thread: for llhttp's parser that is
// ~80 ms of CPU, and in `wf run` it became hot during the first step, competing on a 2-core machine
// with Chromium loading the page (`go to` 88 ms against the plain script's 46; with no TurboFan
// tier-up, 51). A 100× budget (V8's default: 1,800,000) leaves the parser on its baseline code
// for the few dozen messages of a run, and still tiers up WebAssembly that runs much longer (a
// workflow's own). Not for `wf serve`, a long-lived server (its PGlite's tier: `pgliteWasmTier`).
// Set before the first request, when undici compiles llhttp. docs/decisions/0043-undici-wasm-parser-baseline-tier.md.
if (process.argv[2] !== "serve") setFlagsFromString("--wasm-tiering-budget=180000000");

// User files load through tsx registered for the whole process (at once in this repository, on
// the first user file when installed; see _import.ts), sharing the CLI's module graph.
allowProcessWideTsx();

// A .env in the working directory applies to the whole process (the embedded server reads its
// WF_* variables too); variables already set win. resolveCliConfig() reads it the same way.
if (existsSync(".env")) {
  try {
    process.loadEnvFile(".env");
  } catch (error) {
    process.stderr.write(`wf: could not read .env: ${(error as Error).message}. Fix or remove the file.\n`);
    process.exit(EXIT.usage);
  }
}

// Playwright's PWDEBUG=1 is `wf run --debug` (read by resolveCliConfig from the command's
// environment). playwright-core must not see it: it reads it once, as it loads, and would launch
// its Inspector, which pauses every browser call of a step past the step's deadline and needs a
// display of its own (without one, the launch failed as "No Chromium browser found"). The launcher
// (bin/wf.js) took it out of the process's environment before anything loaded.
const pwdebug = process.env.PWDEBUG ?? ((globalThis as Record<symbol, unknown>)[Symbol.for("wf.cli.pwdebug")] as string | undefined);
delete process.env.PWDEBUG;
const env = pwdebug === undefined ? process.env : { ...process.env, PWDEBUG: pwdebug };

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals) => {
  interrupts += 1;
  if (interrupts > 1) process.exit(EXIT.interrupted);
  controller.abort(new WfError("WF_INTERRUPTED", `Interrupted (${signal}).`));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await runCli(process.argv.slice(2), { signal: controller.signal, env });
// A run that was interrupted exits 130 whatever the command made of it.
const finalCode = controller.signal.aborted && code !== EXIT.ok ? EXIT.interrupted : code;
// Flush stdout/stderr before leaving; open handles (a browser, a pool) must not keep the process up.
process.exitCode = finalCode;
await new Promise<void>((done) => process.stdout.write("", () => done()));
timingMark("exit");
process.exit(finalCode);
