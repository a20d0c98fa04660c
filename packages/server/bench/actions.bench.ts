/**
 * Benchmark (not a test): the same flow of N actions (default 50) on a local page, once through
 * the server over HTTP (each step run, then long-polled to its end) and once as a plain Playwright
 * script in the same browser. The server runs it with a screenshot after every step
 * (`screenshot: "on"`, once) and with the session's default settings (no `screenshot` sent: only on
 * failure, as Playwright Test; no picture here, as no step fails), the latter in rounds (default 3)
 * alternating with the plain script. Prints the median time per action of each, the load, each
 * round's ratio and the ratios of the medians to the plain script, the default settings' ratio last.
 * Each round also runs the default settings without an idempotency key (the step's QUEUED row
 * committed before it runs, as every step was before decision 0068) and prints the commits of
 * step rows per action (load-independent) with and without a key.
 *
 * Run: `pnpm --filter @wf/server bench` (`WF_BENCH_ACTIONS=100` for more actions per round,
 * `WF_BENCH_ROUNDS=5` for more rounds, `WF_BENCH_SCREENSHOTS=0` without the picture of every step;
 * `WF_BENCH_DATABASE_URL=memory:` keeps the records in memory instead of the default embedded
 * PGlite database, to see what the store's commits cost).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { CreateSessionResponse, ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type BeforeCommit } from "../src/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { median, benchClient } from "./_service.js";

const ACTIONS = Number(process.env.WF_BENCH_ACTIONS ?? 50);
const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 3);
/** `WF_BENCH_SCREENSHOTS=0` leaves out the run with a picture of every step (the default settings' ratio is the goal). */
const SCREENSHOTS = process.env.WF_BENCH_SCREENSHOTS !== "0";

/** The flow: alternately type an item name and click "Add item". */
function flow(): { kind: "type" | "click"; text: string }[] {
  return Array.from({ length: ACTIONS }, (_, i) => (i % 2 === 0 ? { kind: "type" as const, text: `item ${i / 2 + 1}` } : { kind: "click" as const, text: "Add item" }));
}


async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-"));
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/server/", import.meta.url)));
  const key = "bench-key";
  const databaseUrl = process.env.WF_BENCH_DATABASE_URL;
  // Commits of step rows, counted (a load-independent measure of what a step costs the store).
  let stepCommits = 0;
  const beforeStoreCommit: BeforeCommit = (_operation, record) => {
    if (record && "stepId" in record) stepCommits += 1;
  };
  const server = await startServer({ port: 0, apiKeys: [key], dataDir, beforeStoreCommit, ...(databaseUrl ? { databaseUrl } : {}) });
  const pageUrl = `${pages.url}/form.html`;
  try {
    const { call, runToEnd } = benchClient(server.url, key);

    // Through the server, in a session with the given screenshot mode.
    // Without an idempotency key (`keyless`), the step's QUEUED row is committed before it runs, as
    // every step was before decision 0068; with one (as `@wf/runtime` sends), the outcome's
    // transaction creates it.
    const commits = { keyed: [] as number[], keyless: [] as number[] };
    const throughServer = async (screenshot?: "on", keyless = false): Promise<number[]> => {
      const session = CreateSessionResponse.parse(await call("POST", ROUTES.stepCreate, screenshot ? { screenshot } : {}));
      await runToEnd(session.workflowId, { type: "ACT", step: `go to "${pageUrl}"` });
      const times: number[] = [];
      const commitsBefore = stepCommits;
      for (const action of flow()) {
        const instruction = action.kind === "type" ? `type "${action.text}" into "Item name"` : `click "${action.text}"`;
        const start = performance.now();
        await runToEnd(session.workflowId, { type: "ACT", step: instruction }, { idempotencyKey: !keyless });
        times.push(performance.now() - start);
      }
      if (!screenshot) commits[keyless ? "keyless" : "keyed"].push((stepCommits - commitsBefore) / ACTIONS);
      await call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }));
      return times;
    };

    // A plain Playwright script, in the same browser.
    const plainScript = async (): Promise<number[]> => {
      const context = await server.context.browser.newContext();
      const page = await context.newPage();
      await page.goto(pageUrl);
      const times: number[] = [];
      for (const action of flow()) {
        const start = performance.now();
        if (action.kind === "type") await page.getByLabel("Item name").fill(action.text);
        else await page.getByRole("button", { name: action.text }).click();
        times.push(performance.now() - start);
      }
      await context.close();
      return times;
    };

    // In turns, so that each sees the same machine: the picture of every step once, then rounds of
    // the default settings and the plain script alternately (the load of a shared machine moves).
    const loadBefore = loadavg()[0]!;
    const every = SCREENSHOTS ? median(await throughServer("on")) : Number.NaN;
    const plainTimes: number[] = [];
    const defaultTimes: number[] = [];
    const keylessTimes: number[] = [];
    const rounds: string[] = [];
    const keylessRounds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const server = await throughServer();
      const plain = await plainScript();
      const keyless = await throughServer(undefined, true);
      defaultTimes.push(...server);
      plainTimes.push(...plain);
      keylessTimes.push(...keyless);
      rounds.push(`${(median(server) / median(plain)).toFixed(2)}×`);
      keylessRounds.push(`${(median(keyless) / median(plain)).toFixed(2)}×`);
    }
    const defaults = median(defaultTimes);
    const keyless = median(keylessTimes);
    const plain = median(plainTimes);
    const perStep = (counts: number[]) => counts.map((c) => c.toFixed(2)).join(" ");
    process.stdout.write(
      `${ACTIONS} actions on ${pageUrl}${databaseUrl ? ` (records: ${databaseUrl})` : ""}, ${ROUNDS} rounds, load (1 min) ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}\n` +
        (SCREENSHOTS ? `  through the server (HTTP), a screenshot after every step:     median ${every.toFixed(1)} ms per action\n` : "") +
        `  through the server, default settings (only-on-failure):       median ${defaults.toFixed(1)} ms per action\n` +
        `  through the server, default settings, no idempotency key:     median ${keyless.toFixed(1)} ms per action\n` +
        `  plain Playwright script:                                       median ${plain.toFixed(1)} ms per action\n` +
        `  step-row commits per action, by round: with a key ${perStep(commits.keyed)}; without ${perStep(commits.keyless)}\n` +
        `  ratio server / plain (default settings, no idempotency key: QUEUED committed first), by round: ${keylessRounds.join(" ")}\n` +
        `  ratio server / plain (default settings, no idempotency key): ${(keyless / plain).toFixed(2)}×\n` +
        (SCREENSHOTS ? `  ratio server / plain (a screenshot after every step): ${(every / plain).toFixed(2)}×\n` : "") +
        `  ratio server / plain (default settings), by round: ${rounds.join(" ")}\n` +
        `  ratio server / plain (default settings): ${(defaults / plain).toFixed(2)}×\n`,
    );
  } finally {
    await server.close();
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
