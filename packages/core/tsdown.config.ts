import { defineConfig } from "tsdown";

// The published build: ES modules + declarations in dist/. The workspace itself runs from src/
// (package.json `exports`); `publishConfig` points the packed package at dist/ instead.
export default defineConfig({
  entry: ["src/index.ts", "src/protocol/index.ts"],
  format: "esm",
  platform: "node",
  target: "node20.19",
  fixedExtension: false,
  dts: true,
  clean: true,
});
