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
      name: "runtime-reads-node-http-as-commonjs",
      severity: "error",
      comment:
        "Every `wf run` loads @wf/runtime before its first request. An ES import of node:http reads every export, and on Node 22 http.WebSocket and its siblings are getters that load Node's own undici (~20 ms of start-up); the runtime takes what it needs with process.getBuiltinModule (src/errors.ts).",
      from: { path: "^packages/runtime/src", pathNot: "\\.test\\.ts$" },
      to: { path: "^(node:)?https?$", dependencyTypesNot: ["type-only"] },
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
      name: "interpreter-through-its-entries",
      severity: "error",
      comment:
        "The rest of the server reaches the interpreter through interpreter/index.ts (the grammar side, the seam's types, replay, the page view) and interpreter/model/index.ts (the model side), never a file inside it.",
      from: { path: "^packages/server/src/", pathNot: "^packages/server/src/interpreter/" },
      to: { path: "^packages/server/src/interpreter/", pathNot: "^packages/server/src/interpreter/(index|model/index)\\.ts$" },
    },
    {
      name: "model-interpreter-loaded-on-demand",
      severity: "error",
      comment:
        "interpreter/model/ loads the openai SDK (~14 MB): outside the interpreter, only a dynamic import() or a type import may reach it, so a server without a model never loads it (src/index.ts, createInterpreter).",
      from: { path: "^packages/server/src/", pathNot: "^packages/server/src/interpreter/" },
      to: { path: "^packages/server/src/interpreter/model/", dependencyTypesNot: ["dynamic-import", "type-only"] },
    },
    {
      name: "interpreter-folder-through-its-index",
      severity: "error",
      comment: "Inside the interpreter, a folder (grammar/, locate/, page/, read/, check/, act/, lock/, model/) reaches another only through that folder's index.ts.",
      from: { path: "^packages/server/src/interpreter/([^/]+)/" },
      to: { path: "^packages/server/src/interpreter/[^/]+/(?!index\\.ts$)", pathNot: "^packages/server/src/interpreter/$1/" },
    },
    {
      name: "interpreter-top-through-folder-index",
      severity: "error",
      comment: "The interpreter's own files (deterministic.ts, index.ts, …) reach its folders through their index.ts.",
      from: { path: "^packages/server/src/interpreter/[^/]+\\.ts$" },
      to: { path: "^packages/server/src/interpreter/[^/]+/(?!index\\.ts$)" },
    },
    {
      name: "interpreter-shared-files-import-no-folder",
      severity: "error",
      comment: "errors.ts, types.ts, _clock.ts and _text.ts are what every folder shares: they import no folder of the interpreter.",
      from: { path: "^packages/server/src/interpreter/(errors|types|_clock|_text)\\.ts$" },
      to: { path: "^packages/server/src/interpreter/[^/]+/" },
    },
    {
      name: "interpreter-no-folder-imports-the-top",
      severity: "error",
      comment: "No folder of the interpreter imports deterministic.ts or index.ts (they are built from the folders, not the other way round).",
      from: { path: "^packages/server/src/interpreter/[^/]+/" },
      to: { path: "^packages/server/src/interpreter/(deterministic|index)\\.ts$" },
    },
    ...[
      // folder: the folders it may not import. The layers, from the bottom: page/ (the in-page
      // scripts and the page view), grammar/ (parsing, no browser), locate/, then act/, read/ and
      // check/, then lock/ (record and replay), and model/ on top, which may use everything.
      ["page", "grammar|locate|act|read|check|lock|model"],
      ["grammar", "page|locate|act|read|check|lock|model"],
      ["locate", "act|read|check|lock|model"],
      ["act", "read|check|lock|model"],
      ["read", "grammar|act|check|lock|model"],
      ["check", "act|lock|model"],
      ["lock", "model"],
    ].map(([folder, forbidden]) => ({
      name: `interpreter-${folder}-layer`,
      severity: "error",
      comment: `interpreter/${folder}/ never imports interpreter/(${forbidden})/ (the layers are written in ARCHITECTURE.md, "The interpreter").`,
      from: { path: `^packages/server/src/interpreter/${folder}/` },
      to: { path: `^packages/server/src/interpreter/(${forbidden})/` },
    })),
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
