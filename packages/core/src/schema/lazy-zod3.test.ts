/**
 * zod 3's support is loaded on the first zod 3 schema, not with @wf/core (it is ~50 modules of
 * every `wf run`'s start-up). Runs in a new Node process, where nothing is loaded yet, with a
 * module hook that reports every ES module of zod-to-json-schema loaded (a static import would be
 * one); the lazy load goes through `require`, seen in Node's CommonJS cache.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const CORE_DIR = fileURLToPath(new URL("../..", import.meta.url));

const HOOKS = `export async function load(url, context, next) { if (url.includes("zod-to-json-schema")) console.log("ESM " + url); return next(url, context); }`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

const SCRIPT = `
import { createRequire } from "node:module";
import { z } from "zod";
import { z as z3 } from "zod/v3";
const core = await import("./src/index.ts");
const required = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("zod-to-json-schema"));
core.toResponseFormat(z.array(z.object({ a: z.string() })), "four");
console.log("zod 4 converted, required: " + required());
const format = core.toResponseFormat(z3.array(z3.object({ a: z3.string() })), "three");
console.log("zod 3 converted, required: " + required() + ", root: " + format.json_schema.schema.required);
`;

it("a zod 4 schema is translated without loading zod-to-json-schema; the first zod 3 schema loads it", async () => {
  const out = await new Promise<string>((done, fail) => {
    execFile(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "--import", "tsx", "--input-type=module", "-e", SCRIPT], { cwd: CORE_DIR }, (error, stdout, stderr) =>
      error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout),
    );
  });
  expect(out.trim().split("\n")).toEqual(["zod 4 converted, required: false", "zod 3 converted, required: true, root: value"]);
}, 60_000);
