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

// yargs and its small dependencies (~45 modules) are bundled too: loading them as one module
// halves yargs's share of every `wf` start (~90 → ~45 ms, measured in an installed project; issue
// 14). yargs stays a dependency: its locale files are read from the installed package, so the
// bundled copy is pointed there (the path it derives from its own file would be dist's).
const YARGS = ["yargs", "yargs-parser", "cliui", "y18n", "escalade", "get-caller-file", "string-width", "strip-ansi", "wrap-ansi", "ansi-styles", "ansi-regex", "emoji-regex", "get-east-asian-width"];
const YARGS_LOCALES = "directory: resolve(__dirname, '../../../locales')";
const yargsLocales = {
  name: "wf:yargs-locales",
  transform(code: string, id: string) {
    if (!id.replaceAll("\\", "/").endsWith("/yargs/lib/platform-shims/esm.mjs")) return null;
    if (!code.includes(YARGS_LOCALES)) throw new Error("yargs's ESM shim no longer sets its locale directory as wf's build expects: update the wf:yargs-locales plugin in packages/cli/tsdown.config.ts.");
    return code.replace(YARGS_LOCALES, `directory: fileURLToPath(new URL("./locales/", import.meta.resolve("yargs")))`);
  },
};
const inPackage = (names: string[], id: string) => names.some((name) => id === name || id.startsWith(`${name}/`));

export default defineConfig({
  ...PUBLISHED_BUILD,
  entry: ["src/index.ts", "src/bin.ts", "src/cached-help.ts", "src/vitest.ts", "src/vitest-setup.ts"],
  // `@wf/cli/vitest` imports vitest from the user's project (never a dependency of ours, never bundled).
  deps: { alwaysBundle: (id) => inPackage(BUNDLED, id) || inPackage(YARGS, id), neverBundle: [/^vitest(\/|$)/], onlyBundle: false },
  plugins: [yargsLocales],
  // Files read at run time beside the built modules (all in dist/): the HTML report's page
  // (src/report/page.ts) and the bundled server's debugger page (server src/http/view.ts).
  copy: [
    { from: "assets/report", to: "dist/assets" },
    { from: "../server/assets/debugger", to: "dist/assets" },
  ],
  // The bundled packages' declarations are inlined too: dist/index.d.ts names no package the user lacks.
  dts: { eager: true },
});
