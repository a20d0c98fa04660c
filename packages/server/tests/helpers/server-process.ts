/**
 * A server as its own process (`src/main.ts` through tsx), for tests that kill it or run several
 * side by side: `spawnServer(env)` resolves with the child and its URL once it listens.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVER_MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Starts `src/main.ts` on a free port with the API key `apiKey` and `env` over the test's own
 * environment, logging off. Resolves once it prints where it listens.
 * @throws {@link Error} with its output when it exits before listening.
 */
export function spawnServer(apiKey: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", SERVER_MAIN], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, WF_LOG_LEVEL: "silent", ...env, WF_API_KEYS: apiKey, WF_PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  });
}

/** Resolves once `child` exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}
