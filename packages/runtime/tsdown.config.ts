import { defineConfig } from "tsdown";

// The published build: ES modules + declarations in dist/ (see packages/core/tsdown.config.ts).
export default defineConfig({
  entry: ["src/index.ts"],
  format: "esm",
  platform: "node",
  target: "node20.19",
  fixedExtension: false,
  dts: true,
  clean: true,
});
