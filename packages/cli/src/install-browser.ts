/**
 * `installBrowser()`: the programmatic `wf install-browser`. Makes sure the embedded server (and
 * `wf serve`) finds a Chromium that starts:
 *
 * 1. One is found where the server looks (`WF_CHROMIUM_PATH`, else the usual system paths, else
 *    Playwright's own download) and `--version` runs: nothing to do. Running it twice is harmless.
 * 2. Else Playwright's own download, as `playwright install chromium` does (with `--with-deps`
 *    as root on Debian/Ubuntu, so the libraries it needs come too).
 * 3. When that fails (no network to Playwright's download host, a system it has no build for):
 *    the system's package manager, `apt-get install -y chromium fonts-liberation`, as root on
 *    Debian/Ubuntu; anywhere else, the exact command to run is printed.
 *
 * With `dryRun`, prints what it would run and runs nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseCliEnv } from "./config.js";
import { EXIT, type ExitCode } from "./errors.js";
import type { OutputStream } from "./reporters.js";

/** Options of {@link installBrowser}. */
export interface InstallBrowserOptions {
  /** Print what would run; run nothing. @default false */
  dryRun?: boolean;
  /** Read for `WF_CHROMIUM_PATH`, `WF_BROWSER_ENDPOINT`, `PLAYWRIGHT_BROWSERS_PATH`; passed to the commands. @default process.env */
  env?: Record<string, string | undefined>;
  /** Progress and the commands' own output. @default process.stdout */
  stdout?: OutputStream;
  /** @default process.stderr */
  stderr?: OutputStream;
  /** Aborting it stops the command that is running. */
  signal?: AbortSignal;
}

/** What {@link installBrowser} did. */
export interface InstallBrowserResult {
  /**
   * `found`: a working Chromium was already there (or `WF_BROWSER_ENDPOINT` names a remote one);
   * `installed`: one was installed and starts; `dry-run`: nothing ran; `manual`: nothing could be
   * installed from here, the command to run was printed.
   */
  status: "found" | "installed" | "dry-run" | "manual";
  /** The Chromium the server will use, when there is one. */
  executablePath?: string;
  /** The commands run (with `dryRun`: that would run), each as one shell line. */
  commands: string[];
  /** 0 when a working Chromium is there (or `dryRun`), 1 otherwise. */
  exitCode: ExitCode;
}

/** The system packages of the fallback: the browser and a font, so pages render text. */
export const APT_PACKAGES = ["chromium", "fonts-liberation"] as const;

/**
 * Installs a Chromium for wf, as described in this module's comment.
 *
 * @returns what happened; never throws for a failed install (the result says `manual` with the
 *   command to run, exit code 1).
 */
export async function installBrowser(options: InstallBrowserOptions = {}): Promise<InstallBrowserResult> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const say = (line: string) => stdout.write(`${line}\n`);
  const commands: string[] = [];
  const vars = parseCliEnv(env, ["WF_BROWSER_ENDPOINT", "WF_CHROMIUM_PATH"]);

  if (vars.WF_BROWSER_ENDPOINT) {
    say(`WF_BROWSER_ENDPOINT is set (${vars.WF_BROWSER_ENDPOINT}): the server connects to that browser over CDP. Nothing to install.`);
    return { status: "found", commands, exitCode: EXIT.ok };
  }
  const before = await lookUp(env);
  if (before.working) {
    say(`Chromium is already installed: ${before.working.path} (${before.working.version}). Nothing to do.`);
    return { status: "found", executablePath: before.working.path, commands, exitCode: EXIT.ok };
  }
  say(before.broken ? `Chromium at ${before.broken.path} does not start (${before.broken.reason}).` : `No Chromium found (looked at ${before.candidates.join(", ")}).`);
  // A WF_CHROMIUM_PATH that names nothing: install anyway, look for the result where the server
  // looks without it, and say to unset it (installed() does).
  const afterEnv = vars.WF_CHROMIUM_PATH && !before.working ? { ...env, WF_CHROMIUM_PATH: undefined } : env;

  const system = detectSystem();
  const playwright = [process.execPath, playwrightCli(), "install", ...(system.apt && system.root ? ["--with-deps"] : []), "chromium"];
  const apt = [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "--no-install-recommends", ...APT_PACKAGES],
  ];
  const aptLine = (sudo: boolean) => apt.map((c) => (sudo ? `sudo ${c.join(" ")}` : c.join(" "))).join(" && ");

  if (options.dryRun) {
    say(`Would run: ${shellLine(playwright)}`);
    commands.push(shellLine(playwright));
    if (system.apt && system.root) {
      say(`If that fails (no network to Playwright's download host, or a system it has no build for), would run: ${aptLine(false)}`);
      commands.push(...apt.map(shellLine));
    } else {
      say(`If that fails, would print the command to run yourself: ${manualHint(system, aptLine)}`);
    }
    return { status: "dry-run", commands, exitCode: EXIT.ok };
  }

  say(`Downloading Playwright's Chromium: ${shellLine(playwright)}`);
  commands.push(shellLine(playwright));
  if ((await run(playwright, { env, stdout, stderr, signal: options.signal })) === 0) {
    const after = await lookUp(afterEnv);
    if (after.working) return installed(after.working, commands, vars.WF_CHROMIUM_PATH, say);
    say(`Playwright's download finished, but no working Chromium is found${after.broken ? ` (${after.broken.path}: ${after.broken.reason})` : ""}.`);
  } else {
    say("Playwright's download failed (see above).");
  }

  if (system.apt && system.root) {
    say(`Installing the system's Chromium: ${aptLine(false)}`);
    for (const command of apt) {
      commands.push(shellLine(command));
      const code = await run(command, { env: { ...env, DEBIAN_FRONTEND: "noninteractive" }, stdout, stderr, signal: options.signal });
      if (code !== 0) {
        say(`\`${shellLine(command)}\` failed (exit ${code}). Fix what it says, then run \`wf install-browser\` again.`);
        return { status: "manual", commands, exitCode: EXIT.failed };
      }
    }
    const after = await lookUp(afterEnv);
    if (after.working) return installed(after.working, commands, vars.WF_CHROMIUM_PATH, say);
    say(`apt-get installed ${APT_PACKAGES.join(", ")}, but no working Chromium is found${after.broken ? ` (${after.broken.path}: ${after.broken.reason})` : ""}. Set WF_CHROMIUM_PATH to one.`);
    return { status: "manual", commands, exitCode: EXIT.failed };
  }
  say(`Install one yourself: ${manualHint(system, aptLine)}`);
  return { status: "manual", commands, exitCode: EXIT.failed };
}

/** The result of an install that found `found`; `chromiumPath` is `WF_CHROMIUM_PATH`, said to unset when it names another file. */
function installed(found: Working, commands: string[], chromiumPath: string | undefined, say: (line: string) => void): InstallBrowserResult {
  say(`Chromium is installed: ${found.path} (${found.version}). \`wf run\` and \`wf serve\` will use it.`);
  if (chromiumPath && chromiumPath !== found.path) say(`Note: WF_CHROMIUM_PATH is set to ${chromiumPath}; unset it, or set it to ${found.path}.`);
  return { status: "installed", executablePath: found.path, commands, exitCode: EXIT.ok };
}

interface Working {
  path: string;
  version: string;
}

interface LookUp {
  /** Where the server looks, in order. */
  candidates: string[];
  working?: Working;
  /** The first one found that does not start. */
  broken?: { path: string; reason: string };
}

/** Looks where the server looks (its own `resolveServerOptions`) and checks that the browser starts. */
async function lookUp(env: Record<string, string | undefined>): Promise<LookUp> {
  const { resolveServerOptions } = await import("@wf/server");
  const { chromiumCandidates } = resolveServerOptions({ apiKeys: ["unused"] }, env as NodeJS.ProcessEnv);
  let broken: LookUp["broken"];
  for (const path of chromiumCandidates.filter((p) => existsSync(p))) {
    const version = spawnSync(path, ["--headless", "--no-sandbox", "--version"], { encoding: "utf8", timeout: 30_000 });
    if (version.status === 0) return { candidates: chromiumCandidates, working: { path, version: version.stdout.trim() || "version unknown" } };
    broken ??= { path, reason: (version.stderr || version.error?.message || `exit ${version.status}`).trim().split("\n")[0]! };
  }
  return { candidates: chromiumCandidates, ...(broken ? { broken } : {}) };
}

/** playwright-core's own command line (`playwright install`), from the copy the server uses. */
function playwrightCli(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("playwright-core/package.json")), "cli.js");
}

interface System {
  /** Debian, Ubuntu or a derivative, with apt-get. */
  apt: boolean;
  root: boolean;
}

function detectSystem(): System {
  let apt = false;
  if (process.platform === "linux" && existsSync("/usr/bin/apt-get")) {
    try {
      const release = readFileSync("/etc/os-release", "utf8");
      apt = /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(release);
    } catch {
      apt = false;
    }
  }
  return { apt, root: process.getuid?.() === 0 };
}

function manualHint(system: System, aptLine: (sudo: boolean) => string): string {
  if (system.apt) return `${aptLine(!system.root)} (then run \`wf install-browser\` again to check).`;
  return "install Google Chrome or Chromium with your system's package manager, then set WF_CHROMIUM_PATH to its executable if it is not in a usual place.";
}

function shellLine(command: readonly string[]): string {
  return command.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/** Runs a command, its output forwarded to ours; resolves its exit code (127 when it could not start). */
function run(
  command: readonly string[],
  io: { env: Record<string, string | undefined>; stdout: OutputStream; stderr: OutputStream; signal: AbortSignal | undefined },
): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), { env: io.env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], ...(io.signal ? { signal: io.signal } : {}) });
    child.stdout.on("data", (chunk: Buffer) => io.stdout.write(chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => io.stderr.write(chunk.toString()));
    child.on("error", (error) => {
      io.stderr.write(`${command[0]}: ${error.message}\n`);
      done(127);
    });
    child.on("close", (code) => done(code ?? 1));
  });
}
