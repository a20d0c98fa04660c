/**
 * The dependency rules of ARCHITECTURE.md ("Packages": may import / never imports), checked by
 * `pnpm check-deps` (part of `pnpm test`). A new violation fails the test run.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles between source files, type imports included.",
      from: { path: "^packages/[^/]+/src" },
      to: { circular: true },
    },
    {
      name: "core-is-pure",
      severity: "error",
      comment: "@wf/core is what workflow files import: zod and the zod → JSON Schema converters, no I/O, no HTTP client or server, no browser.",
      from: { path: "^packages/core/src", pathNot: "\\.test(-helper)?\\.ts$" },
      to: { path: ["^node:(fs|net|http|https|child_process|dgram|tls|worker_threads)", "undici", "fastify", "playwright", "^packages/(runtime|server|cli)/"] },
    },
    {
      name: "runtime-has-no-server",
      severity: "error",
      comment: "@wf/runtime talks to a service over HTTP: core and undici, never fastify or playwright, never the server or the CLI.",
      from: { path: "^packages/runtime/src" },
      to: { path: ["fastify", "playwright", "^packages/(server|cli)/"] },
    },
    {
      name: "server-without-runtime",
      severity: "error",
      comment:
        "@wf/server never imports the runtime or the CLI. One exception, written in ARCHITECTURE.md: the stored-workflow executor (src/stored/) uses the action lock's policy and file format from @wf/runtime/lock, so a stored run replays exactly as wf run does.",
      from: { path: "^packages/server/src", pathNot: "^packages/server/src/stored/" },
      to: { path: ["^packages/(runtime|cli)/", "@wf/runtime", "@wf/cli"] },
    },
    {
      name: "stored-uses-only-the-lock",
      severity: "error",
      comment: "src/stored/ may use @wf/runtime/lock (see server-without-runtime), nothing else of the runtime, and never the CLI.",
      from: { path: "^packages/server/src/stored/" },
      to: { path: ["^packages/cli/", "^packages/runtime/src/(?!lock\\.ts$|locked-steps\\.ts$|lock-diff\\.ts$|model-budget\\.ts$)"] },
    },
    {
      name: "examples-use-the-public-surface",
      severity: "error",
      comment: "Examples import core and zod; their tests run the wf command. Never server or runtime internals.",
      from: { path: "^examples/" },
      to: { path: ["^packages/(server|runtime)/src/"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(node_modules|dist|/tests/fixtures/)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
