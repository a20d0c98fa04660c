import { defineConfig, type UserConfig } from "tsdown";
import published from "./tsdown.config.ts";

// The clone's build of `wf` (`pnpm wf:build`, scripts/build-clone.mjs): what bin/wf.js runs in this
// repository while the build is current, so the clone starts like the installed CLI instead of
// loading every module through tsx. The published build with three differences:
// - @wf/core is bundled too (in the workspace its exports are TypeScript sources Node cannot load),
//   and its three entry points are built beside the CLI (core.js, core-errors.js, core-protocol.js),
//   sharing the CLI's chunks, as is the CLI's own index (cli.js, what wf.config.ts imports): a
//   workflow run by this build imports them (src/_compile.ts), so the CLI and the workflow share
//   one @wf/core as they do when installed;
// - no declarations, no cached help: nothing reads them in the clone;
// - written to dist-clone/, so the published dist/ (what packing builds) is never overwritten.
const base = published as UserConfig;
const alwaysBundle = (base.deps as { alwaysBundle: (id: string) => boolean }).alwaysBundle;
const inCore = (id: string) => id === "@wf/core" || id.startsWith("@wf/core/");

export default defineConfig({
  ...base,
  entry: { bin: "src/bin.ts", cli: "src/index.ts", core: "../core/src/index.ts", "core-errors": "../core/src/errors.ts", "core-protocol": "../core/src/protocol/index.ts" },
  outDir: "dist-clone",
  deps: { ...(base.deps as object), alwaysBundle: (id: string) => inCore(id) || alwaysBundle(id) },
  copy: [
    { from: "assets/report", to: "dist-clone/assets" },
    { from: "../server/assets/debugger", to: "dist-clone/assets" },
  ],
  dts: false,
});
