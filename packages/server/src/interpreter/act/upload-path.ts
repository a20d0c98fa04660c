/**
 * Where `upload "path" to "field"` reads a file from: a path under the server's upload root, also
 * through symlinks, that is a file; anything else is refused with `WF_UPLOAD_REFUSED`.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { InterpreterError } from "../errors.js";

/** Resolves an upload path under `root`; refuses anything outside it, also through symlinks, and missing files. */
export function resolveUpload(root: string, given: string): string {
  const resolved = path.resolve(root, given);
  const refuse = (why: string) =>
    new InterpreterError("WF_UPLOAD_REFUSED", `Refused to upload ${JSON.stringify(given)}: ${why}. Uploads must be files under ${root}.`, {
      path: given,
      resolvedPath: resolved,
    });
  const inside = (p: string, r: string) => {
    const rel = path.relative(r, p);
    return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
  };
  if (!inside(resolved, root)) throw refuse("it is outside the upload root");
  let real: string;
  try {
    real = realpathSync(resolved);
  } catch {
    throw refuse("no such file");
  }
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // root does not exist: nothing can be inside it
  }
  if (!inside(real, realRoot)) throw refuse("it links to a file outside the upload root");
  if (!statSync(real).isFile()) throw refuse("it is not a file");
  return real;
}
