/**
 * Files a session's steps brought with them (`files` of a step run: what a client that does not
 * share the service's disk sends for `upload "<path>" to "<field>"`). Their bytes are written to a
 * temporary folder of the session, one sub-folder per step, and deleted when the session ends.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_STEP_UPLOAD_BYTES, type StepFile } from "@wf/core/protocol";
import { HttpProblem } from "../errors.js";

/** The uploaded files of one session. */
export class SessionUploads {
  private dir: Promise<string> | undefined;
  private steps = 0;

  /**
   * Writes a step's files to the session's folder.
   * @returns each file's `path` (as the instruction names it) → the local file with its bytes.
   * @throws {@link HttpProblem} `WF_UPLOAD_TOO_LARGE` (413) when they hold more than
   *   {@link MAX_STEP_UPLOAD_BYTES} together.
   */
  async save(files: readonly StepFile[]): Promise<Map<string, string>> {
    const decoded = files.map((file) => ({ file, bytes: Buffer.from(file.contentBase64, "base64") }));
    checkUploadSize(decoded.map((d) => ({ name: d.file.name, bytes: d.bytes.length })));
    const root = await (this.dir ??= mkdtemp(join(tmpdir(), "wf-uploads-")));
    const stepDir = join(root, String(++this.steps));
    const saved = new Map<string, string>();
    for (const [i, { file, bytes }] of decoded.entries()) {
      // One folder per file keeps its own name (what the page sees) without clashes.
      const dir = join(stepDir, String(i));
      await mkdir(dir, { recursive: true });
      const local = join(dir, file.name);
      await writeFile(local, bytes);
      saved.set(file.path, local);
    }
    return saved;
  }

  /** Deletes the session's folder. Never throws. */
  async close(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    if (dir) await rm(await dir.catch(() => ""), { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Checks that a step's files fit {@link MAX_STEP_UPLOAD_BYTES} together.
 * @throws {@link HttpProblem} `WF_UPLOAD_TOO_LARGE` (413) naming the files and their sizes.
 */
export function checkUploadSize(files: ReadonlyArray<{ name: string; bytes: number }>): void {
  const total = files.reduce((n, f) => n + f.bytes, 0);
  if (total <= MAX_STEP_UPLOAD_BYTES) return;
  throw new HttpProblem(
    "WF_UPLOAD_TOO_LARGE",
    `The step's files hold ${total} bytes (${files.map((f) => `${f.name}: ${f.bytes}`).join(", ")}); a step may bring at most ${MAX_STEP_UPLOAD_BYTES} bytes (10 MiB). Upload smaller files, or one per step.`,
    { errors: [{ path: "/files", message: `must hold at most ${MAX_STEP_UPLOAD_BYTES} bytes together` }] },
  );
}
