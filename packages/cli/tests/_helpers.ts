/**
 * Helpers of the CLI tests: a static file server for the fixture pages, a runner of the real
 * `wf` binary, a collecting output stream, and scratch copies of the deliberately broken fixtures
 * (kept as `.ts.txt` so the workspace type-check does not trip on them).
 */
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
export const ROOT = join(CLI_DIR, "..", "..");
export const FIXTURES = join(CLI_DIR, "tests", "fixtures");
export const WF_BIN = join(CLI_DIR, "bin", "wf.js");

/** A static server of `root` (default `tests/fixtures/pages`) on 127.0.0.1 and a random port. */
export async function startPages(root = join(FIXTURES, "pages")): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    try {
      const body = await readFile(join(root, path === "/" ? "index.html" : path));
      res.writeHead(200, { "content-type": extname(path) === ".html" || path === "/" ? "text/html; charset=utf-8" : "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A folder under `packages/cli/.tmp/` (inside the package, so `@wf/core` and `zod` resolve from it). */
export async function scratchDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  await mkdir(join(CLI_DIR, ".tmp"), { recursive: true });
  const dir = await mkdtemp(join(CLI_DIR, ".tmp", "t-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Copies `tests/fixtures/broken/<name>.ts.txt` to `<dir>/<name>.ts` and returns its path. */
export async function brokenFixture(dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.ts`);
  await copyFile(join(FIXTURES, "broken", `${name}.ts.txt`), path);
  return path;
}

/** An output stream that collects what is written. */
export function collector(options: { isTTY?: boolean; columns?: number } = {}): { write(chunk: string): boolean; text(): string; isTTY?: boolean; columns?: number } {
  let out = "";
  return {
    ...options,
    write(chunk: string) {
      out += chunk;
      return true;
    },
    text: () => out,
  };
}

/** What {@link runWf} returns. */
export interface WfProcess {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node packages/cli/bin/wf.js <args>` in a child process (stdout and stderr are pipes: no TTY).
 *
 * @param options.env - added to a copy of the environment without any `WF_*` variable.
 * @param options.onStdout - sees stdout as it arrives, with the child, e.g. to send SIGINT.
 */
export function runWf(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number; onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<WfProcess> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("WF_") && k !== "FORCE_COLOR" && k !== "NO_COLOR") env[k] = v;
  Object.assign(env, options.env);
  const child = spawn(process.execPath, [WF_BIN, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    options.onStdout?.(stdout, child);
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
