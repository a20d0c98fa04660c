#!/usr/bin/env node
// `pnpm check-engines`: every package in pnpm-lock.yaml must accept the oldest Node the workspace
// declares (root package.json `engines.node`, e.g. ">=20.19" → 20.19.0). Reads the `engines` pnpm
// records in the lockfile (no registry query). Exit 1 listing each package that does not, with
// what to do: pin it, or override it in the root package.json ("pnpm"."overrides").
import { readFileSync } from "node:fs";
import semver from "semver";

const root = new URL("../", import.meta.url);
const declared = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).engines?.node;
const oldest = declared && semver.minVersion(declared);
if (!oldest) {
  console.error(`check-engines: the root package.json declares no usable engines.node (${declared}).`);
  process.exit(2);
}

// The `packages:` section of a lockfile v9: a "  'name@version':" (or unquoted) key, then indented fields.
const lock = readFileSync(new URL("pnpm-lock.yaml", root), "utf8");
const section = lock.slice(lock.indexOf("\npackages:\n"), lock.indexOf("\nsnapshots:\n"));
const bad = [];
let checked = 0;
for (const block of section.split(/\n(?=  \S)/)) {
  const key = /^  '?(.+?)'?:\s*$/m.exec(block)?.[1];
  const node = /^    engines: \{.*?\bnode: '?([^,}']+)'?/m.exec(block)?.[1]?.trim();
  if (!key || !node) continue;
  checked += 1;
  if (!semver.satisfies(oldest, node, { includePrerelease: true })) bad.push(`${key} (engines.node "${node}")`);
}
if (bad.length > 0) {
  console.error(
    `check-engines: ${bad.length} package(s) in pnpm-lock.yaml do not support Node ${oldest} (root engines.node "${declared}"):\n` +
      bad.map((b) => `  ${b}`).join("\n") +
      `\nPin an older version, or override it in the root package.json "pnpm"."overrides" (then pnpm install).`,
  );
  process.exit(1);
}
console.log(`check-engines: ${checked} packages with engines.node in pnpm-lock.yaml; all accept Node ${oldest}.`);
