#!/usr/bin/env node
// `pnpm examples:pages`: installs the pages the examples read, the PostgreSQL 15 documentation
// Debian ships (`postgresql-doc-15`, the folder pg-docs.ts names). Does nothing when they are
// there; as root on Debian/Ubuntu runs apt-get; else prints the command and exits 1.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const PAGE = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";
const PACKAGE = "postgresql-doc-15";

if (existsSync(PAGE)) {
  console.log(`The examples' pages are installed (${PAGE}). Nothing to do.`);
  process.exit(0);
}
const isRoot = process.getuid?.() === 0;
if (!isRoot || !existsSync("/usr/bin/apt-get")) {
  console.error(`The examples read ${PAGE}, which is missing. Install it: ${isRoot ? "" : "sudo "}apt-get install -y ${PACKAGE} (Debian/Ubuntu).`);
  process.exit(1);
}
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
for (const args of [["update"], ["install", "-y", "--no-install-recommends", PACKAGE]]) {
  console.log(`apt-get ${args.join(" ")}`);
  const { status } = spawnSync("apt-get", args, { stdio: "inherit", env });
  if (status !== 0) {
    console.error(`apt-get ${args.join(" ")} failed (exit ${status}).`);
    process.exit(1);
  }
}
if (!existsSync(PAGE)) {
  console.error(`${PACKAGE} is installed but ${PAGE} is not there.`);
  process.exit(1);
}
console.log(`Installed the examples' pages (${PAGE}).`);
