/**
 * Compiling a user's TypeScript file for the installed `wf` without a loader: esbuild bundles the
 * file with the local files it imports into one ES module (packages stay imports), written to a
 * cache beside the project's `node_modules`, and Node imports that with its own loader. A second
 * run with unchanged sources imports the cached module without starting esbuild at all.
 *
 * What the user's code sees is what it saw under tsx: `import.meta.url`/`filename`/`dirname` are
 * those of each source file (not of the cache file), and stack traces and step call sites point at
 * the `.ts` line:column (inline source map, Node's source-map support on). One difference: each
 * compiled file carries its own copy of the local helpers it imports (see docs/decisions/0015-client-side-speed.md).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Bump when the compile options or the manifest change: older cache entries are then rebuilt. */
const CACHE_FORMAT = 1;

/** The modules that give each source file its own `import.meta` values (see `importMetaPlugin`). */
const META_NAMESPACE = "wf-import-meta";
const META_IDS = { url: "__wf_import_meta_url", filename: "__wf_import_meta_filename", dirname: "__wf_import_meta_dirname" } as const;

interface Manifest {
  format: number;
  /** Absolute path of each source file read, with the sha-256 of its content. */
  inputs: Array<[path: string, sha256: string]>;
}

/**
 * Set by the launcher (bin/wf.js) when it runs the clone's build (dist-clone/): bare specifiers
 * (`@wf/core`, `@wf/core/errors`, …) mapped to the `file:` URLs of that build's modules. In the
 * workspace those packages export TypeScript sources that Node cannot load, and the workflow must
 * share the CLI's own @wf/core; the compiled file imports these URLs instead.
 */
const ALIASES = Symbol.for("wf.cli.moduleAliases");

/** The launcher's aliases (see {@link ALIASES}), or undefined outside the clone's build. */
export function moduleAliases(): Readonly<Record<string, string>> | undefined {
  return (globalThis as Record<symbol, unknown>)[ALIASES] as Record<string, string> | undefined;
}

/** Loads of the same compiled file in one process, so a fresh import gets a new module URL. */
let loads = 0;
/** Files written by this process, so two writes of the same file at once use two temporary names. */
let writes = 0;

/**
 * Compiles `entry` (an absolute path) unless the cache holds it for the same sources, and returns the
 * `file:` URL to import.
 *
 * @param options.fresh - return a URL no earlier import used (watch mode re-evaluates the file). @default false
 * @returns undefined when no `node_modules` folder holds the entry's directory or a parent of it
 *   (the compiled file must sit where Node resolves the same packages as the source does), or
 *   when the cache cannot be written: the caller then loads the file another way.
 * @throws esbuild's build error (`Build failed with 1 error: flow.ts:3:7: ERROR: …`) when the file does not compile.
 */
export async function compileUserFile(entry: string, options: { fresh?: boolean } = {}): Promise<string | undefined> {
  const root = projectRoot(dirname(entry));
  if (!root) return undefined;
  const dir = join(root, "node_modules", ".cache", "wf");
  const aliases = moduleAliases();
  // The same file compiled with and without aliases gives two outputs: each is cached apart.
  const stem = `${basename(entry).replace(/\.[^.]+$/, "")}-${sha256(aliases ? `${entry}\0${JSON.stringify(aliases)}` : entry).slice(0, 12)}`;
  const output = join(dir, `${stem}.mjs`);
  const manifestPath = join(dir, `${stem}.json`);
  if (!(await upToDate(manifestPath, output))) {
    const { code, manifest } = await compile(entry, root, output, aliases);
    try {
      await mkdir(dir, { recursive: true });
      // Written aside then renamed: a second wf compiling the same file at once never reads half a file.
      await writeAtomic(output, code);
      await writeAtomic(manifestPath, JSON.stringify(manifest));
    } catch {
      // A read-only node_modules (some CI caches): load the file through tsx instead.
      return undefined;
    }
  }
  const url = pathToFileURL(output).href;
  return options.fresh ? `${url}?load=${++loads}` : url;
}

/** The nearest directory, from `start` up, that holds a `node_modules` folder. */
function projectRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules" && existsSync(join(dir, "node_modules"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

async function upToDate(manifestPath: string, output: string): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Manifest;
  } catch {
    return false;
  }
  if (manifest.format !== CACHE_FORMAT || !Array.isArray(manifest.inputs) || !existsSync(output)) return false;
  const current = await Promise.all(manifest.inputs.map(([path]) => readFile(path).then(sha256, () => "")));
  return manifest.inputs.every(([, hash], i) => current[i] === hash);
}

async function compile(entry: string, root: string, output: string, aliases: Readonly<Record<string, string>> | undefined): Promise<{ code: string; manifest: Manifest }> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    // Packages stay imports, resolved by Node from the cache folder inside the project's
    // node_modules exactly as from the source: @wf/core and zod are the CLI's own instances.
    packages: "external",
    format: "esm",
    platform: "node",
    target: `node${process.versions.node}`,
    sourcemap: "inline",
    sourcesContent: false,
    outfile: output,
    write: false,
    metafile: true,
    logLevel: "silent",
    define: { "import.meta.url": META_IDS.url, "import.meta.filename": META_IDS.filename, "import.meta.dirname": META_IDS.dirname },
    plugins: [importMetaPlugin(), ...(aliases ? [aliasPlugin(aliases)] : [])],
  });
  const code = result.outputFiles.find((file) => file.path === output)?.text ?? result.outputFiles[0]!.text;
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.startsWith(`${META_NAMESPACE}:`))
    .map((input) => resolve(root, input));
  const manifest: Manifest = {
    format: CACHE_FORMAT,
    inputs: await Promise.all(inputs.map(async (path): Promise<[string, string]> => [path, sha256(await readFile(path))])),
  };
  return { code, manifest };
}

/**
 * Gives each source file its own `import.meta.url`/`filename`/`dirname`: `define` turns them into
 * identifiers, and a file that uses `import.meta` gets an import of them from a small module of
 * its own, appended at its end (imports are hoisted, so no line of the source moves and the
 * source map stays exact). esbuild renames the identifiers per file when it joins them.
 */
function importMetaPlugin(): import("esbuild").Plugin {
  return {
    name: "wf-import-meta",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${META_NAMESPACE}:`) }, (args) => ({ path: args.path.slice(META_NAMESPACE.length + 1), namespace: META_NAMESPACE }));
      build.onLoad({ filter: /.*/, namespace: META_NAMESPACE }, (args) => ({
        loader: "js",
        contents: [
          `export const url = ${JSON.stringify(pathToFileURL(args.path).href)};`,
          `export const filename = ${JSON.stringify(args.path)};`,
          `export const dirname = ${JSON.stringify(dirname(args.path))};`,
        ].join("\n"),
      }));
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        if (args.namespace !== "file") return undefined;
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const names = Object.entries(META_IDS).map(([name, id]) => `${name} as ${id}`).join(", ");
        return { contents: `${source}\nimport { ${names} } from ${JSON.stringify(`${META_NAMESPACE}:${args.path}`)};\n`, loader: "default" };
      });
    },
  };
}

/** Turns each import of an aliased bare specifier into an import of its URL (see {@link ALIASES}). */
function aliasPlugin(aliases: Readonly<Record<string, string>>): import("esbuild").Plugin {
  const names = Object.keys(aliases).map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  return {
    name: "wf-module-aliases",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (args) => ({ path: aliases[args.path]!, external: true }));
    },
  };
}

async function writeAtomic(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}-${++writes}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
