// `pnpm wf:build` (at the repository's root): builds dist-clone/, the clone's build of `wf` (see
// tsdown.clone.config.ts), and records the inputs it was made from (clone-build-state.mjs) so that
// bin/wf.js runs it only while no source has changed since. The inputs are read before the build:
// a file edited during the build makes the result stale at once, never current by mistake.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CLONE_DIST, MANIFEST, currentInputs } from "./clone-build-state.mjs";

const inputs = currentInputs();
rmSync(MANIFEST, { force: true });
execFileSync(process.execPath, [fileURLToPath(import.meta.resolve("tsdown/run")), "-c", "tsdown.clone.config.ts", "--log-level", "warn"], {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  stdio: "inherit",
});
writeFileSync(MANIFEST, JSON.stringify({ format: 1, inputs }));
console.log(`wf: built ${CLONE_DIST} (bin/wf.js runs it while the sources are unchanged; through tsx otherwise)`);
