/**
 * `wf run --debug`'s pause: before each step is sent, the step (kind, instruction, call site) is
 * written to stderr and the run waits for a line on stdin: Enter runs the step, `c` then Enter
 * runs on to the end without pausing again. The nearest equivalent of Playwright's Inspector
 * "Step over" / "Resume" that a remote service allows: the step has not reached the service, so no
 * step deadline runs while the user reads (docs/decisions/0049-debug-pauses-in-the-terminal.md).
 * The debugger page (its URL is the first line of the run) shows the page as each step leaves it.
 */
import { relative } from "node:path";
import type { OutputStream } from "./reporters.js";

/** A stream lines are read from: `process.stdin`, or a test's. */
export type InputStream = NodeJS.ReadableStream;

/** The pause of one `wf run --debug`: the runtime's `beforeStep`, and `close()` once the run is over. */
export interface DebugPause {
  beforeStep(step: { index: number; type: string; instruction: string; callSite?: string }): Promise<void>;
  /** Stops reading stdin. */
  close(): void;
}

/**
 * Makes the pause (see the module comment). Once stdin ends (a pipe closed, `< /dev/null`), the
 * run goes on without pausing, and says so once.
 */
export function createDebugPause(options: { stdin: InputStream; stderr: OutputStream; cwd: string }): DebugPause {
  const { stderr } = options;
  let resumed = false;
  let ended = false;
  let waiting: ((line: string | undefined) => void) | undefined;
  const lines: string[] = [];
  let reader: import("node:readline").Interface | undefined;
  const open = async () => {
    if (reader || ended) return;
    const { createInterface } = await import("node:readline");
    reader = createInterface({ input: options.stdin, terminal: false });
    reader.on("line", (line) => {
      if (waiting) {
        const take = waiting;
        waiting = undefined;
        take(line);
      } else lines.push(line);
    });
    reader.on("close", () => {
      ended = true;
      waiting?.(undefined);
      waiting = undefined;
    });
  };
  const nextLine = async (): Promise<string | undefined> => {
    await open();
    if (lines.length > 0) return lines.shift();
    if (ended) return undefined;
    return new Promise((resolve) => (waiting = resolve));
  };
  const where = (site: string | undefined) => {
    if (!site) return "";
    const plain = site.replace(/^file:\/\//, "");
    const rel = relative(options.cwd, plain);
    return ` (${rel && !rel.startsWith("..") ? rel : plain})`;
  };
  return {
    async beforeStep(step) {
      if (resumed) return;
      stderr.write(`⏸ paused before step ${step.index}: ${step.type} ${step.instruction}${where(step.callSite)}\n  Enter: run it · c, Enter: run on without pausing\n`);
      const line = await nextLine();
      if (line === undefined) {
        resumed = true;
        stderr.write("wf: stdin ended: running on without pausing.\n");
      } else if (/^\s*c(ontinue)?\s*$/i.test(line)) {
        resumed = true;
      }
    },
    close() {
      reader?.close();
    },
  };
}
