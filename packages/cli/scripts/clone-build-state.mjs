// Whether the clone's build of `wf` (dist-clone/, written by `pnpm wf:build`) is current: the launcher
// (bin/wf.js) runs it only then, and the CLI's TypeScript through tsx otherwise. Plain JavaScript, so
// the launcher reads it with Node's own loader before anything else loads.
//
// The build records every input it was made from (each file's path, size and mtime): the sources
// and assets of the four packages, their package.json and build configurations, the lockfile. The
// build is current when the same files exist now with the same size and mtime, so an edited, added,
// removed or restored file (even one restored with an older mtime) makes it stale. Test files are
// not inputs (the build never reads them).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this file is packages/cli/scripts/clone-build-state.mjs). */
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** The clone's build folder. */
export const CLONE_DIST = fileURLToPath(new URL("../dist-clone/", import.meta.url));
/** The record of the inputs, written last by the build. */
export const MANIFEST = join(CLONE_DIST, "inputs.json");

const PACKAGES = ["core", "runtime", "server", "cli"];
const TREES = ["src", "assets"];
const FILES = ["package.json", "tsdown.config.ts", "tsdown.clone.config.ts"];
const ROOT_FILES = ["package.json", "pnpm-lock.yaml", "tsdown.base.ts"];
const NOT_INPUT = /\.test(-d)?\.tsx?$/;

/** Every input of the build as `[path relative to the repository, size, mtimeMs]`, sorted by path. */
export function currentInputs() {
  const inputs = [];
  const add = (relative) => {
    let stat;
    try {
      stat = statSync(join(REPO, relative));
    } catch {
      return;
    }
    if (stat.isFile()) inputs.push([relative, stat.size, stat.mtimeMs]);
    else if (stat.isDirectory()) {
      for (const entry of readdirSync(join(REPO, relative))) if (!NOT_INPUT.test(entry)) add(`${relative}/${entry}`);
    }
  };
  for (const file of ROOT_FILES) add(file);
  for (const name of PACKAGES) for (const entry of [...TREES, ...FILES]) add(`packages/${name}/${entry}`);
  return inputs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * True when dist-clone/ holds a build of exactly the current inputs. False when there is no build,
 * its record is unreadable or of another shape, or any input differs (see the file's comment).
 */
export function cloneBuildIsCurrent() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return false;
  }
  if (recorded?.format !== 1 || !Array.isArray(recorded.inputs)) return false;
  const now = currentInputs();
  if (now.length !== recorded.inputs.length) return false;
  return now.every((input, i) => {
    const was = recorded.inputs[i];
    return Array.isArray(was) && was[0] === input[0] && was[1] === input[1] && was[2] === input[2];
  });
}
