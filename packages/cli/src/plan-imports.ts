/**
 * The import graph of a workflow file, read statically (no module is run): the files it reaches
 * through relative imports, which `wf run --watch` re-runs a workflow for and `wf plan`/`wf check`
 * lint as its helper modules.
 */
import { statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import type { SourceFile } from "ts-morph";

/**
 * The files `file` depends on through relative imports, transitively (itself first; type-only
 * imports and packages left out): what `wf run --watch` re-runs a workflow for when one of them
 * is saved. Reads the files statically, as {@link planWorkflowFile} does; a file that does not
 * parse still yields the imports it can read.
 *
 * @param file - absolute path of a workflow file.
 * @returns absolute paths, the file first.
 */
export async function workflowDependencies(file: string): Promise<string[]> {
  const { Project } = await import("ts-morph");
  const project = new Project({ skipFileDependencyResolution: true, skipLoadingLibFiles: true, compilerOptions: { allowJs: true, noEmit: true } });
  const root = resolve(file);
  const seen = [root];
  if (!isFile(root)) return seen;
  const visit = (from: SourceFile) => {
    for (const path of relativeImportsOf(from)) {
      if (seen.includes(path)) continue;
      seen.push(path);
      visit(project.getSourceFile(path) ?? project.addSourceFileAtPath(path));
    }
  };
  visit(project.addSourceFileAtPath(root));
  return seen;
}

/** Extensions of the modules a relative import may name; `.js` in an import names a `.ts` file (NodeNext). */
const SOURCE_EXTENSIONS: Record<string, string[]> = {
  ".ts": [".ts"],
  ".tsx": [".tsx"],
  ".mts": [".mts"],
  ".cts": [".cts"],
  ".js": [".ts", ".tsx", ".js"],
  ".jsx": [".tsx", ".jsx"],
  ".mjs": [".mts", ".mjs"],
  ".cjs": [".cts", ".cjs"],
};

/**
 * Absolute paths of the source files `sourceFile` imports or re-exports by relative path, in
 * source order; type-only imports and paths that name no source file (JSON, missing) are left out.
 */
export function relativeImportsOf(sourceFile: SourceFile): string[] {
  const specifiers: string[] = [];
  for (const decl of sourceFile.getImportDeclarations()) if (!decl.isTypeOnly()) specifiers.push(decl.getModuleSpecifierValue());
  for (const decl of sourceFile.getExportDeclarations()) {
    const specifier = decl.getModuleSpecifierValue();
    if (specifier !== undefined && !decl.isTypeOnly()) specifiers.push(specifier);
  }
  const out: string[] = [];
  for (const specifier of specifiers) {
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
    const base = resolve(dirname(sourceFile.getFilePath()), specifier);
    const ext = extname(base);
    const candidates = SOURCE_EXTENSIONS[ext]
      ? SOURCE_EXTENSIONS[ext]!.map((e) => base.slice(0, -ext.length) + e)
      : [".ts", ".tsx", ".mts", ".js", "/index.ts", "/index.js"].map((e) => (e.startsWith("/") ? join(base, e) : base + e));
    const found = candidates.find(isFile);
    if (found && !out.includes(found)) out.push(found);
  }
  return out;
}

/** True when `path` is an existing regular file. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
