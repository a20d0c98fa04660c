/**
 * `pnpm --filter @wf/server start`: runs the server from the environment (`WF_*` variables, see
 * the README) and stops cleanly on SIGINT/SIGTERM. The only file of the package that exits the
 * process.
 */
import { isWfError } from "@wf/core";
import { prepareStore } from "./store/ahead.js";

// This process is the server's own, so PGlite is compiled baseline-only (smaller, quicker to
// start; see PgliteWasmTier), and its compile starts before the rest of the server is imported.
prepareStore(process.env.WF_DATABASE_URL, "baseline");

async function main(): Promise<void> {
  const [{ startServer }, { resolveLogger }] = await Promise.all([import("./index.js"), import("./observability/logging.js")]);
  // Logs at `info` unless WF_LOG_LEVEL says otherwise (`silent` turns it off).
  const server = await startServer({ logger: resolveLogger(undefined, { WF_LOG_LEVEL: "info", ...process.env }), pgliteWasmTier: "baseline" });
  process.stderr.write(`wf server listening on ${server.url} (health: ${server.url}/apis/request/health)\n`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`wf server: ${signal}, stopping…\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`wf server: failed to stop cleanly: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // A long-running service logs a stray rejection instead of dying with every session it holds.
  process.on("unhandledRejection", (reason) => {
    process.stderr.write(`wf server: unhandled rejection (kept running): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`wf server failed to start: ${isWfError(error) ? `[${error.code}] ${error.message}` : String(error)}\n`);
  process.exit(1);
});
