#!/usr/bin/env node
// Installs a Debian package the project needs outside npm, when a file it provides is missing:
// `node scripts/apt-install.mjs <package> <file it provides> <what it is for>`. Does nothing when
// the file is there; as root on Debian/Ubuntu runs apt-get; else prints the command and exits 1.
// Used by `pnpm examples:pages` (the PostgreSQL documentation the examples read) and
// `pnpm test:postgres` (PostgreSQL's server binaries, for the storage tests).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const [pkg, file, what] = process.argv.slice(2);
if (!pkg || !file || !what) {
  console.error("Usage: node scripts/apt-install.mjs <package> <file it provides> <what it is for>");
  process.exit(2);
}
if (existsSync(file)) {
  console.log(`${what} is installed (${file}). Nothing to do.`);
  process.exit(0);
}
const isRoot = process.getuid?.() === 0;
if (!isRoot || !existsSync("/usr/bin/apt-get")) {
  console.error(`${what} is missing (${file}). Install it: ${isRoot ? "" : "sudo "}apt-get install -y ${pkg} (Debian/Ubuntu).`);
  process.exit(1);
}
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
for (const args of [["update"], ["install", "-y", "--no-install-recommends", pkg]]) {
  console.log(`apt-get ${args.join(" ")}`);
  const { status } = spawnSync("apt-get", args, { stdio: "inherit", env });
  if (status !== 0) {
    console.error(`apt-get ${args.join(" ")} failed (exit ${status}).`);
    process.exit(1);
  }
}
if (!existsSync(file)) {
  console.error(`${pkg} is installed but ${file} is not there.`);
  process.exit(1);
}
console.log(`Installed ${what} (${file}).`);
