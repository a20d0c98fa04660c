/**
 * The `wf` process: the only place that reads `process.argv`, handles signals and exits.
 * Ctrl-C (SIGINT) or SIGTERM aborts the command (a run closes its session), then exits 130;
 * a second Ctrl-C exits at once.
 */
import { existsSync } from "node:fs";
import { WfError } from "@wf/core/errors";
import { allowProcessWideTsx } from "./_import.js";
import { runCli } from "./cli.js";
import { EXIT } from "./errors.js";
import { timingMark } from "./timing.js";

timingMark("cli loaded");

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

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals) => {
  interrupts += 1;
  if (interrupts > 1) process.exit(EXIT.interrupted);
  controller.abort(new WfError("WF_INTERRUPTED", `Interrupted (${signal}).`));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await runCli(process.argv.slice(2), { signal: controller.signal });
// A run that was interrupted exits 130 whatever the command made of it.
const finalCode = controller.signal.aborted && code !== EXIT.ok ? EXIT.interrupted : code;
// Flush stdout/stderr before leaving; open handles (a browser, a pool) must not keep the process up.
process.exitCode = finalCode;
await new Promise<void>((done) => process.stdout.write("", () => done()));
timingMark("exit");
process.exit(finalCode);
