/**
 * Benchmark (not a test): the per-step fixed costs of the main example (issue 26). On the page
 * `examples/pg-numeric-types` reads (`datatype-numeric.html` of Debian's `postgresql-doc-15`, served
 * from disk as a `file:` URL, as `wf run` opens it), in turns in one run:
 *
 * - through the server (HTTP, each step run then long-polled to its end, as the runtime does):
 *   `go to "file:///…"` and the grammar ASK `the table of numeric types` with the example's schema
 *   (an array of `{ name, storageSize, description, range }`);
 * - the plain playwright-core script a user would write, in the same browser: `page.goto(url)` and
 *   `page.$$eval("table tbody tr", …)` of the rows' cell texts.
 *
 * Prints the median of each, a breakdown of the ASK inside the server's process (the partial and
 * the full read of the page, and the answer built in Node from the partial one, each measured on a
 * fresh page of its own, as the step meets it), and, last,
 * `ratio ask / plain read: N×`. Each run is preceded by one warm-up of each.
 *
 * The server runs with `warmSessions: "first"`, as `wf run`'s embedded server does: no context is
 * opened ahead for the next session while a step runs. `WF_BENCH_WARM=1` measures `wf serve`'s
 * default instead (`warmSessions: true`: the next session's context opens while the first steps
 * of this one run, and competes with them on a small machine).
 *
 * Run: `pnpm --filter @wf/server bench:ask [runs]` (15 runs by default).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { toResponseFormat } from "@wf/core";
import { CreateSessionResponse, ROUTES, routePath } from "@wf/core/protocol";
import { startServer } from "../src/index.js";
import { median, benchClient } from "./_service.js";

const RUNS = Number(process.argv[2] ?? process.env.WF_BENCH_RUNS ?? 15);
const PAGE = "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html";
const QUESTION = "the table of numeric types";

/** The example's row, as `examples/pg-numeric-types/workflow.ts` declares it. */
const NumericType = z.object({
  name: z.string().describe("the type's name, e.g. smallint"),
  storageSize: z.string().describe('e.g. "2 bytes" or "variable"'),
  description: z.string(),
  range: z.string(),
});
const FORMAT = toResponseFormat(z.object({ value: z.array(NumericType) }), "answer");


async function main(): Promise<void> {
  if (!existsSync(PAGE)) throw new Error(`${PAGE} is missing: install it with \`apt-get install postgresql-doc-15\``);
  const url = `file://${PAGE}`;
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-ask-"));
  const key = "bench-key";
  const server = await startServer({ port: 0, apiKeys: [key], dataDir, allowFileUrls: true, warmSessions: process.env.WF_BENCH_WARM === "1" ? true : "first" });
  try {
    const { call, runToEnd } = benchClient(server.url, key);

    let answerRows = 0;
    const throughServer = async () => {
      const session = CreateSessionResponse.parse(await call("POST", ROUTES.stepCreate, {}));
      const t0 = performance.now();
      await runToEnd(session.workflowId, { type: "ACT", step: `go to "${url}"` });
      const t1 = performance.now();
      const status = await runToEnd(session.workflowId, { type: "ASK", step: QUESTION, schema: FORMAT });
      const t2 = performance.now();
      answerRows = ((status.result as { value?: unknown[] } | undefined)?.value ?? (status.result as unknown[] | undefined) ?? []).length ?? 0;
      await call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }));
      return { goto: t1 - t0, read: t2 - t1 };
    };

    let plainRows = 0;
    const plainScript = async () => {
      const context = await server.context.browser.newContext();
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(url);
      const t1 = performance.now();
      const rows = await page.$$eval("table tbody tr", (trs) => trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells, (cell) => (cell.textContent ?? "").trim())));
      const t2 = performance.now();
      plainRows = rows.length;
      await context.close();
      return { goto: t1 - t0, read: t2 - t1 };
    };

    // Inside the server's process: the page read in the browser (partial, as the step reads it
    // first, and full), and the answer built from the partial read. Loaded on demand, so that the
    // bench also runs against a checkout from before these modules (the parts then print n/a).
    const inServer = await import("../src/interpreter/read/index.js").then((read) => [read, read] as const).catch(() => undefined);
    const parts = async () => {
      if (!inServer) return { partial: NaN, full: NaN, answer: NaN };
      const [{ readPage }, { answerFromPage }] = inServer;
      const fresh = async () => {
        const context = await server.context.browser.newContext();
        const page = await context.newPage();
        await page.goto(url);
        return { page, close: () => context.close() };
      };
      const a = await fresh();
      let t = performance.now();
      const data = await readPage(a.page, { partial: true });
      const partial = performance.now() - t;
      t = performance.now();
      answerFromPage(data, QUESTION, FORMAT.json_schema.schema);
      const answer = performance.now() - t;
      await a.close();
      const b = await fresh();
      t = performance.now();
      await readPage(b.page);
      const full = performance.now() - t;
      await b.close();
      return { partial, full, answer };
    };

    await throughServer();
    await plainScript();
    await parts();
    const wf = { goto: [] as number[], read: [] as number[] };
    const plain = { goto: [] as number[], read: [] as number[] };
    const inside = { partial: [] as number[], full: [] as number[], answer: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const a = await throughServer();
      const b = await plainScript();
      const c = await parts();
      wf.goto.push(a.goto);
      wf.read.push(a.read);
      plain.goto.push(b.goto);
      plain.read.push(b.read);
      inside.partial.push(c.partial);
      inside.full.push(c.full);
      inside.answer.push(c.answer);
    }
    const ms = (v: number[]) => (v.some(Number.isNaN) ? "    n/a" : `${median(v).toFixed(1).padStart(7)} ms`);
    process.stdout.write(
      `${RUNS} runs on ${url} (medians; ${answerRows} rows answered, ${plainRows} read by $$eval)\n` +
        `  go to, through the server (HTTP):                 ${ms(wf.goto)}\n` +
        `  page.goto, plain script:                          ${ms(plain.goto)}\n` +
        `  grammar ASK, through the server (HTTP):           ${ms(wf.read)}\n` +
        `    in the server: the partial read of the page      ${ms(inside.partial)}\n` +
        `    in the server: the answer built from it          ${ms(inside.answer)}\n` +
        `    in the server: a full read (when it cannot tell) ${ms(inside.full)}\n` +
        `  $$eval of the rows, plain script:                 ${ms(plain.read)}\n` +
        `ratio go to / plain goto: ${(median(wf.goto) / median(plain.goto)).toFixed(2)}×\n` +
        `ratio ask / plain read: ${(median(wf.read) / median(plain.read)).toFixed(2)}×\n`,
    );
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
