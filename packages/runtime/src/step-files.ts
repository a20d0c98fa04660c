/**
 * The files an ACT uploads, read from this machine to send with the step to a service that does
 * not share its disk (`files` of a step run, `@wf/core/protocol`). Which files: the paths the
 * instruction names (quoted, or a bare `name.ext`) when it uploads (`upload`, `attach`, or
 * `choose|select|set "<path>" for …`) and they exist as files, resolved against `baseDir`.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { MAX_STEP_UPLOAD_BYTES, type StepFile } from "@wf/core/protocol";
import { UploadError } from "./errors.js";

/** Instructions that upload: `upload`/`attach` anywhere, or the grammar's `choose|select|set "<file>" to|for …`. */
const UPLOADS = /\b(?:upload|attach)/i;
const GRAMMAR_UPLOAD = /^\s*(?:please\s+)?(?:choose|select|set)\s+(?:the\s+)?(?:file\s+)?["'“‘]/i;
/** Where the instruction itself says which file: `upload "<path>"`, `attach '<path>'`. */
const NAMED_UPLOAD = /^\s*(?:please\s+)?(?:upload|attach)\s+(?:the\s+)?(?:file\s+)?["'“‘]([^"'”’]+)["'”’]/i;

/**
 * Reads the files an instruction uploads.
 *
 * @param instruction - the ACT instruction, secrets filled in.
 * @param baseDir - the folder relative paths resolve against (the workflow's working directory).
 * @returns the files to send (`path` as the instruction names it), or undefined when it uploads none.
 * @throws {@link UploadError} `WF_UPLOAD_FILE_NOT_FOUND` when `upload "<path>"`/`attach "<path>"`
 *   names a file that does not exist (the message names the path and `baseDir`);
 *   `WF_UPLOAD_TOO_LARGE` when the files hold more than 10 MiB together. Nothing is read past the limit.
 */
export async function stepFiles(instruction: string, baseDir: string): Promise<StepFile[] | undefined> {
  if (!UPLOADS.test(instruction) && !GRAMMAR_UPLOAD.test(instruction)) return undefined;
  const named = NAMED_UPLOAD.exec(instruction)?.[1];
  const candidates = [...new Set([...quoted(instruction), ...bare(instruction)])].filter(looksLikeFile);
  const found: Array<{ path: string; file: string; size: number }> = [];
  for (const path of candidates) {
    const file = resolve(baseDir, path);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile()) found.push({ path, file, size: info.size });
    else if (path === named) {
      throw new UploadError(
        "WF_UPLOAD_FILE_NOT_FOUND",
        `The instruction uploads ${JSON.stringify(path)}, but ${info ? "that is not a file" : "no such file exists"}: ${file} (resolved against ${baseDir}, the workflow's working directory). Give a path to a file, relative to that folder or absolute.`,
        path,
      );
    }
  }
  if (found.length === 0) return undefined;
  const total = found.reduce((n, f) => n + f.size, 0);
  if (total > MAX_STEP_UPLOAD_BYTES) {
    throw new UploadError(
      "WF_UPLOAD_TOO_LARGE",
      `The step uploads ${total} bytes (${found.map((f) => `${f.path}: ${f.size}`).join(", ")}); a step may send at most ${MAX_STEP_UPLOAD_BYTES} bytes (10 MiB) to a remote service. Upload smaller files, one per step, or run with the embedded server (no --base-url), which reads them from disk.`,
      found[0]!.path,
    );
  }
  return Promise.all(found.map(async (f) => ({ path: f.path, name: basename(f.file), contentBase64: (await readFile(f.file)).toString("base64") })));
}

function quoted(text: string): string[] {
  return [...text.matchAll(/"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?:^|[\s(])'([^']+)'(?=$|[\s.,;:!?)])/g)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4])!);
}

/** Unquoted `name.ext` and `dir/name.ext` tokens (what a free-form instruction for the model writes). */
function bare(text: string): string[] {
  return [...text.replace(/"[^"]*"|“[^”]*”|‘[^’]*’/g, " ").matchAll(/(?:^|\s)((?:~|\.{1,2})?[\w@%+=,-]*(?:[/\\][\w@%+=,.-]+)*\.[A-Za-z0-9]{1,8})(?=$|[\s,;:!?)]|\.(?:\s|$))/g)].map((m) => m[1]!);
}

function looksLikeFile(path: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(path) && (/[/\\]/.test(path) || /\.[A-Za-z0-9]{1,8}$/.test(path));
}
