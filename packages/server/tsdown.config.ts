import { defineConfig } from "tsdown";
import { PUBLISHED_BUILD } from "../../tsdown.base.ts";

export default defineConfig({ ...PUBLISHED_BUILD, entry: ["src/index.ts", "src/env.ts", "src/env-flag.ts", "src/prelaunch.ts"] });
