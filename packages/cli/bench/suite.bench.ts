/**
 * A suite in wf against the same suite in Playwright Test (issue 36), not a test: the 14 scenarios
 * of `suite/` (a team admin app, a back office's orders page, a to-do app, and the PostgreSQL
 * documentation, served from disk on 127.0.0.1) written twice: as wf workflows of grammar steps
 * (`suite/wf/`: act, ask, check) and as Playwright Test specs with explicit locators doing the same
 * actions and `expect`s (`suite/pw/`). Both compare what they read with `suite/expected.ts`.
 *
 * Each round runs `wf run suite/wf --workers 2` and `playwright test` (2 workers) one after the
 * other, alternating which goes first, as a user runs them (a fresh process each, wall time from
 * spawn to exit); a run that does not pass stops the bench. wf's defaults and Playwright's
 * settings match: trace `retain-on-failure`, screenshot `only-on-failure`, the system Chromium.
 *
 * The reads: the suite is first recorded once with `--lock write` against an instant model double
 * that answers each ASK with `expected.ts` and its page quotes (issue 35's read recipes), then every
 * round replays it with `--lock frozen`, no model configured and `--max-model-calls 0`, when every
 * ASK got a recipe; otherwise the rounds keep the model double (`--lock read`) and the bench says so.
 *
 * Prints each round, the medians, a breakdown of where wf's suite spends its time (from the
 * `WF_TIMING=1` milestones of the CLI and the embedded server: worker start to the first session,
 * per workflow the file's compile, the session's create with the trace's start, its steps, the
 * session's close with the trace's stop, the report's collection of screenshots and traces), the
 * load, and last `ratio wf suite / playwright test: N×` (goal ≤ 1.0×).
 *
 *   pnpm --filter @wf/cli bench:suite [rounds]      (3 rounds by default; WF_BENCH_ROUNDS too)
 *
 * `WF_BENCH_WF_ARGS` adds arguments to `wf run` (e.g. `--trace off`). Needs /usr/bin/chromium (or
 * WF_CHROMIUM_PATH) and Debian's postgresql-doc-15.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { askReply, pageOf, startModelDouble, type Quote, type RecordedRequest, type Reply } from "../../server/tests/helpers/model-double.js";
import { startStaticServer } from "../../server/tests/helpers/static-server.js";
import { ACCOUNT, ACCOUNT_BALANCE_TEXT, BIGINT_SIZE, LIMITS, MEMBERS, PENDING_ORDERS, PENDING_TOTALS_TEXT } from "./suite/expected.js";
import { median } from "./_startup.js";

const ROUNDS = Number(process.argv[2] ?? process.env.WF_BENCH_ROUNDS ?? 3);
const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO = join(CLI_DIR, "..", "..");
const SUITE = join(CLI_DIR, "bench", "suite");
const WF = join(CLI_DIR, "bin", "wf.js");
const PLAYWRIGHT = join(CLI_DIR, "node_modules", "@playwright", "test", "cli.js");
const CHROMIUM = process.env.WF_CHROMIUM_PATH ?? "/usr/bin/chromium";
const PG_DOCS = "/usr/share/doc/postgresql-doc-15/html";
const WORKERS = 2;
const EXTRA_ARGS = (process.env.WF_BENCH_WF_ARGS ?? "").split(/\s+/).filter(Boolean);

for (const [what, path] of [["Chromium", CHROMIUM], ["the PostgreSQL documentation (apt-get install postgresql-doc-15)", PG_DOCS], ["@playwright/test (pnpm install)", PLAYWRIGHT]] as const) {
  if (!existsSync(path)) throw new Error(`bench:suite needs ${what} at ${path}.`);
}

/** Each value of an answer with the page text it came from, as a grounded model answer carries it. */
function quotesOf(value: unknown, path = "", text: (path: string, value: unknown) => string = (_p, v) => String(v)): Quote[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => quotesOf(v, `${path}/${i}`, text));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => quotesOf(v, `${path}/${k}`, text));
  return [{ path, quote: text(path, value) }];
}

/** The instant model double's answer to each ASK of the suite (the question as the page prompt carries it). */
const ANSWERS: Record<string, () => { answer: unknown; quotes: Quote[] }> = {
  "the members table": () => ({ answer: { value: MEMBERS }, quotes: quotesOf(MEMBERS, "/value") }),
  "the pending orders": () => ({
    answer: { value: PENDING_ORDERS },
    quotes: quotesOf(PENDING_ORDERS, "/value", (p, v) => (p.endsWith("/total") ? PENDING_TOTALS_TEXT[Number(p.split("/")[2])]! : String(v))),
  }),
  "the account manager and the balance due": () => ({ answer: ACCOUNT, quotes: [{ path: "/manager", quote: ACCOUNT.manager }, { path: "/balance", quote: ACCOUNT_BALANCE_TEXT }] }),
  "the item and upper limit of each limitation": () => ({ answer: { value: LIMITS }, quotes: quotesOf(LIMITS, "/value") }),
  "the storage size of bigint": () => ({ answer: { value: BIGINT_SIZE }, quotes: [{ path: "/value", quote: BIGINT_SIZE }] }),
};

/** Requests the double had no answer for (an ACT the grammar handed over, on a loaded machine): refused with a 500, counted. */
let unanswered = 0;

function modelReply(request: RecordedRequest): Reply {
  const page = pageOf(request);
  const question = Object.keys(ANSWERS).find((q) => page.includes(`Question: ${q}`));
  if (!question) {
    unanswered++;
    return { status: 500, message: `the suite's model double answers the suite's ASKs only, not: ${page.split("\n")[0]}` };
  }
  const { answer, quotes } = ANSWERS[question]!();
  return { content: askReply(request, answer, quotes), usage: { prompt_tokens: 400, completion_tokens: 40 } };
}

interface Run {
  ms: number;
  stderr: string;
  stdout: string;
  spawnedAt: number;
}

async function spawnRun(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(WF_|OPENAI_|PW_|PLAYWRIGHT_|CI$)/.test(k)) base[k] = v;
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...base, NO_COLOR: "1", ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const ms = performance.timeOrigin + performance.now() - spawnedAt;
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  return { ms, stdout, stderr, spawnedAt };
}

/** The ASK entries of the suite's lock files: how many, and those with no recipe (with the reason). */
async function readLocks(dir: string): Promise<{ asks: number; without: string[] }> {
  let asks = 0;
  const without: string[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith(".wf.lock.json"))) {
    const lock = JSON.parse(await readFile(join(dir, name), "utf8")) as { entries: { instruction: string; read?: { recipe?: unknown; noRecipe?: string } }[] };
    for (const entry of lock.entries) {
      if (!entry.read) continue;
      asks++;
      if (!entry.read.recipe) without.push(`${name}: "${entry.instruction}": ${entry.read.noRecipe ?? "no recipe"}`);
    }
  }
  return { asks, without };
}

/** One `wf timing:` milestone: ms since the run's spawn, the label without its parenthesis, the workflow file in it if any. */
interface Mark {
  atMs: number;
  label: string;
  file?: string;
}

function marksOf(run: Run): Mark[] {
  return [...run.stderr.matchAll(/^wf timing: ([\d.]+) (.+)$/gm)].map((m) => {
    // In a suite, the CLI's milestones end with `(…, <workflow file>)`.
    const file = / \((?:.*, )?([^,()]+\.ts)\)$/.exec(m[2]!)?.[1];
    return { atMs: Number(m[1]) - run.spawnedAt, label: m[2]!.replace(/ \(.*\)$/, ""), ...(file ? { file } : {}) };
  });
}

/** Sums of the phases of one wf suite run, in ms (per-workflow phases summed over the workflows). */
function breakdown(run: Run): Record<string, number> {
  const marks = marksOf(run);
  const at = (label: string) => marks.find((m) => m.label === label)?.atMs ?? Number.NaN;
  const out: Record<string, number> = {
    "start: spawn → workflows selected (each file compiled)": at("suite: workflows selected"),
    "start: workflows selected → service ready (server, Chromium)": at("suite: service ready") - at("suite: workflows selected"),
    "start: spawn → first session created": Math.min(...marks.filter((m) => m.label === "session created").map((m) => m.atMs)),
  };
  const files = [...new Set(marks.map((m) => m.file).filter((f): f is string => !!f))];
  const phase = (name: string, from: string, to: string) => {
    let sum = 0;
    for (const file of files) {
      const a = from === "last step finished" ? marks.filter((m) => m.file === file && /^step \d+ finished$/.test(m.label)).at(-1)?.atMs : marks.find((m) => m.file === file && m.label === from)?.atMs;
      const b = to === "last step finished" ? marks.filter((m) => m.file === file && /^step \d+ finished$/.test(m.label)).at(-1)?.atMs : marks.find((m) => m.file === file && m.label === to)?.atMs;
      if (a !== undefined && b !== undefined) sum += b - a;
    }
    out[name] = sum;
  };
  phase("per workflow: compile (config ready → workflow ready)", "run: config ready", "run: workflow ready");
  phase("per workflow: session create + trace start", "service ready", "session created");
  out["  of which: trace start (server)"] = 0;
  phase("per workflow: steps (session created → last step)", "session created", "last step finished");
  phase("per workflow: session close + trace stop", "last step finished", "run finished");
  phase("per workflow: screenshots and traces collected", "run finished", "screenshots and trace collected");
  // The server's own milestones of a session's create name no session; two creates at once are paired in order.
  const taken = marks.filter((m) => m.label === "session: browser context taken").map((m) => m.atMs);
  const traced = marks.filter((m) => m.label === "session: trace ready").map((m) => m.atMs);
  out["  of which: trace start (server)"] = taken.reduce((sum, t, i) => sum + ((traced[i] ?? t) - t), 0);
  out["last workflow done → exit"] = run.ms - Math.max(...marks.filter((m) => m.label === "screenshots and trace collected").map((m) => m.atMs));
  return out;
}

async function main(): Promise<void> {
  await mkdir(join(CLI_DIR, ".tmp"), { recursive: true });
  const scratch = await mkdtemp(join(CLI_DIR, ".tmp", "bench-suite-"));
  // One root served on 127.0.0.1: the pages the scenarios open, each folder under a name.
  const root = join(scratch, "pages");
  await mkdir(root);
  await symlink(join(REPO, "examples", "team-admin", "app"), join(root, "team"));
  await symlink(join(REPO, "packages", "server", "tests", "fixtures", "model"), join(root, "model"));
  await symlink(PG_DOCS, join(root, "pg"));
  const pages = await startStaticServer(root);
  const model = await startModelDouble(modelReply);
  // The wf suite is copied (its lock files are written beside it), inside the package so it resolves @wf/core and zod.
  const wfDir = join(scratch, "wf");
  await cp(join(SUITE, "wf"), wfDir, { recursive: true });
  await cp(join(SUITE, "expected.ts"), join(scratch, "expected.ts"));
  const files = (await readdir(wfDir)).filter((n) => n.endsWith(".ts"));
  try {
    const wfArgs = (lock: string, extra: string[] = []) => [WF, "run", wfDir, "--workers", String(WORKERS), "--app-url", pages.url, "--reporter", "dot", "--lock", lock, ...extra, ...EXTRA_ARGS];
    const wfEnv = { WF_REPORT_DIR: join(scratch, "wf-report"), WF_CHROMIUM_PATH: CHROMIUM, WF_TIMING: "1" };
    const withModel = { ...wfEnv, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-bench-suite", WF_MODEL: "bench-double" };

    // A loaded machine can hand a grammar step to the model (which the double refuses): the recording is tried again then.
    for (let attempt = 1; ; attempt++) {
      try {
        await spawnRun(wfArgs("write"), withModel, scratch);
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        console.log(`the recording run failed (attempt ${attempt}; ${unanswered} requests the double refused), trying again`);
      }
    }
    const locks = await readLocks(wfDir);
    const recorded = model.requests.length;
    const replay = locks.without.length === 0 && locks.asks > 0;
    console.log(`bench:suite: ${files.length} scenarios, ${WORKERS} workers, ${ROUNDS} rounds; pages on ${pages.url}; Playwright Test ${JSON.parse(await readFile(join(CLI_DIR, "node_modules", "@playwright", "test", "package.json"), "utf8")).version}`);
    console.log(
      replay
        ? `reads: replayed from the lock (${locks.asks} ASKs recorded once with --lock write against an instant model double, ${recorded} model calls; the rounds run --lock frozen with no model and --max-model-calls 0)`
        : `reads: the instant model double (${locks.without.length} of ${locks.asks} ASKs got no read recipe:\n  ${locks.without.join("\n  ")})`,
    );
    const wfRound = replay ? () => spawnRun(wfArgs("frozen", ["--max-model-calls", "0"]), { ...wfEnv, CI: "true" }, scratch) : () => spawnRun(wfArgs("read"), withModel, scratch);
    const pwRound = () =>
      spawnRun([PLAYWRIGHT, "test", "-c", join(SUITE, "playwright.config.ts")], { SUITE_BASE_URL: pages.url, SUITE_OUTPUT_DIR: join(scratch, "pw-results"), CHROMIUM_PATH: CHROMIUM }, SUITE);

    const wfMs: number[] = [];
    const pwMs: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let round = 1; round <= ROUNDS; round++) {
      const load = loadavg()[0]!.toFixed(1);
      const order = round % 2 === 1 ? (["wf", "pw"] as const) : (["pw", "wf"] as const);
      const got: Partial<Record<"wf" | "pw", Run>> = {};
      for (const side of order) got[side] = side === "wf" ? await wfRound() : await pwRound();
      wfMs.push(got.wf!.ms);
      pwMs.push(got.pw!.ms);
      for (const [name, ms] of Object.entries(breakdown(got.wf!))) (phases[name] ??= []).push(ms);
      console.log(`  round ${round} (${order.join(" then ")}, load ${load}): wf ${(got.wf!.ms / 1000).toFixed(1)} s, playwright test ${(got.pw!.ms / 1000).toFixed(1)} s`);
    }
    if (replay && model.requests.length !== recorded) throw new Error(`the replayed rounds called the model ${model.requests.length - recorded} times`);
    console.log(`where wf's suite spends its time (median of the rounds, ms; per-workflow phases summed over the ${files.length} workflows, which run ${WORKERS} at a time):`);
    for (const [name, values] of Object.entries(phases)) console.log(`  ${name.padEnd(58)} ${median(values).toFixed(0).padStart(7)}`);
    console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    console.log(`median: wf suite ${(median(wfMs) / 1000).toFixed(2)} s, playwright test ${(median(pwMs) / 1000).toFixed(2)} s`);
    console.log(`ratio wf suite / playwright test: ${(median(wfMs) / median(pwMs)).toFixed(2)}×`);
  } finally {
    await pages.close();
    await model.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
