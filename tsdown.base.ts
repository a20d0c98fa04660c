/**
 * The published build every package shares: ES modules and declarations in dist/, for Node 20.19.
 * The workspace itself runs from src/ (package.json `exports`); `publishConfig` points the packed
 * package at dist/ instead. Each package's tsdown.config.ts adds its entries.
 */
export const PUBLISHED_BUILD = {
  format: "esm",
  platform: "node",
  target: "node20.19",
  fixedExtension: false,
  dts: true,
  clean: true,
} as const;
