import { defineConfig } from "tsdown";
import { PUBLISHED_BUILD } from "../../tsdown.base.ts";

export default defineConfig({
  ...PUBLISHED_BUILD,
  entry: ["src/index.ts", "src/env.ts", "src/env-flag.ts", "src/prelaunch.ts", "src/store-ahead.ts"],
  // The debugger page's files, read at run time beside the built module (src/http/view.ts, `debuggerAssetDir`).
  copy: [{ from: "assets/debugger", to: "dist/assets" }],
});
