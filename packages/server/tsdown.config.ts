import { defineConfig } from "tsdown";
import { PUBLISHED_BUILD } from "../../tsdown.base.ts";

export default defineConfig({
  ...PUBLISHED_BUILD,
  // Named entries: the published subpaths (`@wf/server/env`, …) keep their file names in dist/.
  entry: {
    index: "src/index.ts",
    env: "src/config/env.ts",
    "env-flag": "src/config/env-flag.ts",
    prelaunch: "src/browser/prelaunch.ts",
    "store-ahead": "src/store/ahead.ts",
  },
  // The debugger page's files, read at run time beside the built module (src/http/view.ts, `debuggerAssetDir`).
  copy: [{ from: "assets/debugger", to: "dist/assets" }],
});
