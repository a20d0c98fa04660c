// The floor under `wf run`'s start-up (bench/startup.bench.ts): a script that loads only what any
// run needs before its first request, and sends it. zod, because the user's workflow imports it
// (the bench's flow.ts does), and undici's `Pool` from its own file, as @wf/runtime's service client
// loads it; then one POST to the URL given as the last argument. No CLI, no configuration, no
// workflow file. Plain JavaScript, copied into the project it measures, so `zod` and `undici`
// resolve to that project's copies.
import { createRequire } from "node:module";
import { z } from "zod";

const Pool = createRequire(import.meta.url)("undici/lib/dispatcher/pool.js");
const body = JSON.stringify(z.object({ floor: z.boolean() }).parse({ floor: true }));
const { origin } = new URL(process.argv.at(-1));
const pool = new Pool(origin);
await new Promise((done) =>
  pool.dispatch(
    { origin, path: "/", method: "POST", headers: { "content-type": "application/json" }, body },
    { onRequestStart() {}, onResponseStart() {}, onResponseData() {}, onResponseEnd: done, onResponseError: done },
  ),
);
process.exit(0);
