/**
 * What the start-up benchmarks share: an instant local service that notes when the first request
 * of a `wf run` arrives (and answers 401 at once, so the run ends right after), spawning `wf` and
 * timing it, and the median.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cloneBuildIsCurrent } from "../scripts/clone-build-state.mjs";

const PACKAGES_DIR = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Packs @wf/core and @wf/cli (their `prepack` builds them) and installs the tarballs with npm, with
 * zod, into a new project outside the workspace: wf as a user gets it (built JavaScript, the embedded
 * server bundled into the CLI). Copies each `[from, to]` of `files` (files or folders) into it.
 * Returns the project's folder; its parent (the tarballs) is the caller's to delete.
 */
export function installBuild(prefix: string, files: [from: string, to: string][] = []): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const name of ["core", "cli"]) execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: join(PACKAGES_DIR, name), stdio: "ignore" });
  const project = join(dir, "project");
  execFileSync("mkdir", [project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "wf-bench", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", join(dir, "wf-core-0.1.0.tgz"), join(dir, "wf-cli-0.1.0.tgz"), "zod"], { cwd: project, stdio: "ignore" });
  for (const [from, to] of files) cpSync(from, join(project, to), { recursive: true });
  return project;
}

/** The instant service: its port, and `close()`. */
export interface InstantService {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The arguments of a `wf run <workflow>` (a copy of tests/fixtures/params.ts) against this service. */
  runArgs(workflow: string): string[];
  /** Spawns `node <bin> …args` in `cwd`; resolves with ms from spawn to exit, and to the first request (undefined if none). */
  spawnOnce(bin: string, args: string[], cwd: string): Promise<{ exitMs: number; requestMs: number | undefined }>;
  close(): void;
}

/** Starts the instant service on a free port of 127.0.0.1. */
export async function startInstantService(): Promise<InstantService> {
  let firstRequestAt: number | undefined;
  const server = createServer((req, res) => {
    firstRequestAt ??= performance.now();
    req.resume();
    res.writeHead(401, { "content-type": "application/problem+json" });
    res.end(JSON.stringify({ type: "about:blank", title: "Unauthorized", status: 401, code: "WF_UNAUTHORIZED", detail: "bench" }));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    runArgs: (workflow) => ["run", workflow, "--param", "query=bench", "--param", "limit=1", "--service-url", `http://127.0.0.1:${port}`, "--api-key", "bench"],
    async spawnOnce(bin, args, cwd) {
      firstRequestAt = undefined;
      const startedAt = performance.now();
      const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
      await new Promise<void>((done) => child.on("close", () => done()));
      return { exitMs: performance.now() - startedAt, requestMs: firstRequestAt === undefined ? undefined : firstRequestAt - startedAt };
    },
    close: () => server.close(),
  };
}

/** What `bin/wf.js` runs in this checkout now: the clone's build while it is current, else the sources through tsx. */
export function sourceCheckoutRuns(): string {
  return cloneBuildIsCurrent()
    ? "the clone's build (packages/cli/dist-clone/, current)"
    : "the TypeScript sources through tsx (no current clone build: `pnpm wf:build` at the root makes one)";
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}
