/**
 * Benchmark (not a test): what a step replayed from the action lock costs next to the grammar's own
 * step for the same action on the same page. Each shape of the lock fixtures (a nameless checkbox
 * in a list item, an unlabelled select in a table row, a Close button in one of two dialogs, a
 * button named by aria-label in a card, and an element only its recorded locator names) is
 * recorded once through a double of the model provider; then, alternately, the recorded
 * instruction runs as a plain grammar step and the same action runs as a replay (the step's
 * `replay`, no model call), each on the page opened afresh (the opening not timed). Through the
 * session manager, without screenshots. Prints per shape the median ms of each and their ratio,
 * and last `replay / grammar per step: N×` (the sum of the replay medians over the sum of the
 * grammar medians; goal ≤ 1.2×).
 *
 * Run: `pnpm --filter @wf/server bench:lock` (`WF_BENCH_ROUNDS=30` for more rounds, default 15).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import type { ReplayAction, StepStatus } from "@wf/core/protocol";
import { startServer } from "../src/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { pageOf, startModelDouble, type RecordedRequest } from "../tests/helpers/model-double.js";
import { median } from "./_service.js";

const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 15);

/** The `role` element on the page line that shows `text`, the `nth` such line (as a model would pick it). */
function refOnLine(request: RecordedRequest, text: string, role: string, nth = 1): string {
  const page = pageOf(request);
  const has = (unit: string) => unit.includes(text) && new RegExp(`\\[e\\d+\\] ${role}\\b`).test(unit);
  // A line (a table row), else a list item's block (the page view writes an item as "-" and its lines).
  let units = page.split("\n").filter(has);
  if (units.length === 0) units = page.split(/\n(?=-(?: |$))/m).filter(has);
  const unit = units[nth - 1];
  const ref = unit && new RegExp(`\\[(e\\d+)\\] ${role}\\b`).exec(unit)?.[1];
  if (!ref) throw new Error(`no ${role} on a line or item showing ${JSON.stringify(text)} in the page sent:\n${page.slice(0, 3000)}`);
  return ref;
}

/** The `role` element named `name` after the text `after` in the page sent. */
function refAfter(request: RecordedRequest, after: string, role: string, name: string): string {
  const page = pageOf(request);
  const m = new RegExp(`\\[(e\\d+)\\] ${role} "${name}"`).exec(page.slice(page.indexOf(after)));
  if (!m) throw new Error(`no ${role} "${name}" after ${after}`);
  return m[1]!;
}

interface Shape {
  name: string;
  page: string;
  step: string;
  answer(request: RecordedRequest): { verb: string; ref: string; value: string | null };
}

const SHAPES: Shape[] = [
  { name: "nameless checkbox in a list item", page: "lock-todos.html", step: "tick off paying the rent", answer: (r) => ({ verb: "check", ref: refOnLine(r, "Pay rent", "checkbox"), value: null }) },
  { name: "unlabelled select in a table row", page: "lock-schema.html", step: "archive the state", answer: (r) => ({ verb: "select", ref: refOnLine(r, "state", "combobox"), value: "archived" }) },
  { name: "Close in one of two dialogs", page: "lock-dialogs.html", step: "close sharing", answer: (r) => ({ verb: "click", ref: refAfter(r, "Share settings", "button", "Close"), value: null }) },
  { name: "aria-label button in a card", page: "lock-cart.html", step: "add the green cup", answer: (r) => ({ verb: "click", ref: refAfter(r, "Green cup", "button", "Add to cart"), value: null }) },
  {
    name: "locator first (second of twin items)",
    page: "lock-todos.html?variant=twin",
    step: "tick off the second rent",
    answer: (r) => ({ verb: "check", ref: refOnLine(r, "Pay rent", "checkbox", 2), value: null }),
  },
];


async function main(): Promise<void> {
  const model = await startModelDouble();
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/model/", import.meta.url)));
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-lock-"));
  const server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, model: "test-model", modelBaseUrl: model.baseUrl, modelApiKey: "sk-bench" });
  const { sessions } = server.context;
  try {
    const { sessionId } = await sessions.createSession({ kind: "STEP", screenshot: "only-on-failure" });
    const run = async (step: string, replay?: ReplayAction[]): Promise<StepStatus> => {
      const status = await sessions.runStep(sessionId, { type: "ACT", step, ...(replay ? { replay } : {}) });
      if (status.status !== "SUCCEEDED") throw new Error(`${step}: ${status.error?.code} ${status.error?.message}`);
      return status;
    };
    const rows: Array<{ name: string; grammar: number; replay: number }> = [];
    for (const shape of SHAPES) {
      const url = `${pages.url}/${shape.page}`;
      await run(`go to "${url}"`);
      model.script = (request) => ({ content: { reason: "bench", actions: [shape.answer(request)] } });
      const recorded = (await run(shape.step)).result as { actions: ReplayAction[] };
      model.script = () => ({ status: 500, message: "no model call expected" });
      const actions = recorded.actions.map((a) => ({ instruction: a.instruction, ...(a.element ? { element: a.element } : {}) }));
      const calls = model.requests.length;
      const grammar: number[] = [];
      const replay: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so neither always follows the other.
        const order = round % 2 === 0 ? (["grammar", "replay"] as const) : (["replay", "grammar"] as const);
        for (const kind of order) {
          await run(`go to "${url}"`);
          const start = performance.now();
          if (kind === "grammar") await run(actions.map((a) => a.instruction).join(", then "));
          else await run(shape.step, actions);
          (kind === "grammar" ? grammar : replay).push(performance.now() - start);
        }
      }
      if (model.requests.length !== calls) throw new Error(`${shape.name}: the replay or the grammar called the model`);
      const row = { name: shape.name, grammar: median(grammar), replay: median(replay) };
      rows.push(row);
      console.log(`${row.name.padEnd(40)} ${actions[0]!.instruction}${actions[0]!.element?.primary ? " (locator first)" : ""}`);
      console.log(`${"".padEnd(40)} grammar ${row.grammar.toFixed(1)} ms, replay ${row.replay.toFixed(1)} ms: ${(row.replay / row.grammar).toFixed(2)}×`);
    }
    await sessions.finishSession(sessionId, { status: "SUCCEEDED" });
    const sum = (k: "grammar" | "replay") => rows.reduce((t, r) => t + r[k], 0);
    console.log(`${ROUNDS} rounds per shape, medians in ms.`);
    console.log(`replay / grammar per step: ${(sum("replay") / sum("grammar")).toFixed(2)}×`);
  } finally {
    await server.close();
    await pages.close();
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
