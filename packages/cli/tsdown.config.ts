import { readFileSync } from "node:fs";
import { defineConfig } from "tsdown";
import { PUBLISHED_BUILD } from "../../tsdown.base.ts";

// The published build (tsdown.base.ts at the root). A user's project installs @wf/core
// and @wf/cli only, so the CLI carries the service client and the embedded server inside its
// build: @wf/runtime and @wf/server are bundled (they are devDependencies here), and their own
// dependencies (fastify, playwright-core, undici…) must be dependencies of @wf/cli, installed
// beside it. The build stops if one is missing, instead of silently bundling it.
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { dependencies?: Record<string, string> };
const BUNDLED = ["@wf/runtime", "@wf/server"];
const own = readJson("./package.json").dependencies ?? {};
const needed = [readJson("../runtime/package.json"), readJson("../server/package.json")].flatMap((p) => Object.keys(p.dependencies ?? {}));
const missing = [...new Set(needed)].filter((name) => !BUNDLED.includes(name) && !(name in own));
if (missing.length > 0) {
  throw new Error(`@wf/cli bundles @wf/runtime and @wf/server, so their dependencies must be its own: add ${missing.join(", ")} to packages/cli/package.json "dependencies" (same ranges).`);
}

export default defineConfig({
  ...PUBLISHED_BUILD,
  entry: ["src/index.ts", "src/bin.ts", "src/cached-help.ts"],
  deps: { alwaysBundle: (id) => BUNDLED.some((name) => id === name || id.startsWith(`${name}/`)) },
  // The bundled packages' declarations are inlined too: dist/index.d.ts names no package the user lacks.
  dts: { eager: true },
});
