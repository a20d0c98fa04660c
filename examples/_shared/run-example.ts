/**
 * Test helper: runs an example the way a user does, `wf run <file> --reporter json`, in a child
 * process (so each example gets its own embedded server and browser, and the real CLI is what is
 * tested), and returns the run record it prints.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the workspace. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Time an example's test may take, in ms. A run starts its own embedded server and Chromium, and
 * CI machines are shared by many suites, so this is generous; it is a ceiling, not a measure.
 */
export const EXAMPLE_TIMEOUT_MS = 240_000;

/** What {@link runExample} returns. */
export interface ExampleRun {
  /** The exit code of `wf run` (0 success, 1 workflow failed, 2 usage or configuration error). */
  exitCode: number;
  /** The run record printed by the json reporter, when stdout held one. */
  record: { status: string; output?: unknown; error?: { code: string; message: string }; steps: Array<{ type: string; instruction: string; status: string; answer?: unknown; error?: { code: string; message: string } }> } | undefined;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node packages/cli/bin/wf.js run <file> --reporter json` with the given params.
 *
 * @param file - path of the workflow file, relative to the workspace root.
 * @param params - passed as `--param key=value`.
 * @param env - extra environment variables for the child.
 * @param timeoutMs - kill the child after this long, in ms. @default {@link EXAMPLE_TIMEOUT_MS} less 10 s
 * @param flags - more flags of `wf run`, e.g. `["--lock", "frozen"]`. @default none
 */
export function runExample(
  file: string,
  params: Record<string, string> = {},
  env: Record<string, string> = {},
  timeoutMs = EXAMPLE_TIMEOUT_MS - 10_000,
  flags: string[] = [],
): Promise<ExampleRun> {
  // Each run's HTML report in a folder of its own: examples run at once from the same root.
  const reportDir = mkdtempSync(join(tmpdir(), "wf-example-report-"));
  const args = ["packages/cli/bin/wf.js", "run", file, "--reporter", "json", "--report-dir", reportDir];
  for (const [key, value] of Object.entries(params)) args.push("--param", `${key}=${value}`);
  args.push(...flags);
  // No service URL: the CLI starts its embedded server, the default a user gets.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...env };
  delete childEnv.WF_SERVICE_URL;
  delete childEnv.WF_BASE_URL;
  delete childEnv.WF_API_KEY;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env: childEnv, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      rmSync(reportDir, { recursive: true, force: true });
      const exitCode = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ exitCode, record: parseRecord(stdout), stdout, stderr });
    });
  });
}

function parseRecord(stdout: string): ExampleRun["record"] {
  const text = stdout.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // A reporter may print lines before the record: take the last JSON object in the output.
    const start = text.lastIndexOf("\n{");
    try {
      return start >= 0 ? JSON.parse(text.slice(start + 1)) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Explains a failed run in an assertion message. */
export function describeRun(run: ExampleRun): string {
  return `wf run exited ${run.exitCode}\n--- stdout\n${run.stdout.slice(0, 4000)}\n--- stderr\n${run.stderr.slice(0, 4000)}`;
}
