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
 * Then reads (issue 35): each read of `read-orders.html` (labelled values, a table's rows) is
 * answered once by the model double with `deriveRecipe` (its recipe recorded); then, alternately,
 * on a second server with no model, the same question runs as the grammar's ASK (the model-free
 * reader) and as the recipe's replay. Prints the medians, their ratio, and last
 * `ASK replay / grammar ASK: N×` (goal ≤ 1.2×). Last, what deriving a recipe costs a model ASK:
 * alternately, the model double's ASK with and without `deriveRecipe` (`derive / plain: N×`, and
 * the difference in ms), which only a run writing its lock pays.
 *
 * Run: `pnpm --filter @wf/server bench:lock` (`WF_BENCH_ROUNDS=30` for more rounds, default 15;
 * `WF_BENCH_ONLY=ask` for the reads alone).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import type { ReadRecipe, ReplayAction, StepStatus } from "@wf/core/protocol";
import { startServer } from "../src/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { askReply, pageOf, startModelDouble, type ModelDouble, type RecordedRequest } from "../tests/helpers/model-double.js";
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


const schemaOf = (schema: Record<string, unknown>) => ({ type: "json_schema", json_schema: { name: "answer", strict: true, schema } });
const strictObject = (properties: Record<string, unknown>) => ({ type: "object", additionalProperties: false, required: Object.keys(properties), properties });

/** The reads of `read-orders.html`: a question, its schema, and the model double's grounded answer. */
const READS = [
  {
    name: "two labelled values",
    step: "the account manager and the balance due",
    schema: schemaOf(strictObject({ manager: { type: "string" }, balance: { type: "number" } })),
    answer: (r: RecordedRequest) => askReply(r, { manager: "Dana Whitfield", balance: 1284.5 }, [{ path: "/manager", quote: "Dana Whitfield" }, { path: "/balance", quote: "$1,284.50" }]),
  },
  {
    name: "a table's rows (every order)",
    step: "the orders",
    schema: schemaOf(strictObject({ value: { type: "array", items: strictObject({ order: { type: "string" }, customer: { type: "string" }, status: { type: "string" }, total: { type: "number" } }) } })),
    answer: (r: RecordedRequest) => {
      const rows = [
        ["#1042", "Ada Lovelace", "Pending", 120, "$120.00"],
        ["#1043", "Charles Babbage", "Shipped", 75.5, "$75.50"],
        ["#1044", "Grace Hopper", "Pending", 1299, "$1,299.00"],
        ["#1045", "Alan Turing", "Delivered", 42, "$42.00"],
      ] as const;
      return askReply(
        r,
        { value: rows.map(([order, customer, status, total]) => ({ order, customer, status, total })) },
        rows.flatMap(([order, customer, status, , shown], i) => [
          { path: `/value/${i}/order`, quote: order },
          { path: `/value/${i}/customer`, quote: customer },
          { path: `/value/${i}/status`, quote: status },
          { path: `/value/${i}/total`, quote: shown },
        ]),
      );
    },
  },
];

/** The reads: ASK replay against the grammar's ASK, then a model ASK with and without deriving its recipe. */
async function benchReads(model: ModelDouble, pagesUrl: string, modelServer: Awaited<ReturnType<typeof startServer>>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-lock-ask-"));
  const plain = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false });
  const url = `${pagesUrl}/read-orders.html`;
  try {
    const withModel = (await modelServer.context.sessions.createSession({ kind: "STEP", screenshot: "only-on-failure" })).sessionId;
    const noModel = (await plain.context.sessions.createSession({ kind: "STEP", screenshot: "only-on-failure" })).sessionId;
    const run = async (server: typeof plain, sessionId: string, body: Record<string, unknown>): Promise<StepStatus> => {
      const status = await server.context.sessions.runStep(sessionId, body as never);
      if (status.status !== "SUCCEEDED") throw new Error(`${String(body.step)}: ${status.error?.code} ${status.error?.message}`);
      return status;
    };
    const open = (server: typeof plain, sessionId: string) => run(server, sessionId, { type: "ACT", step: `go to "${url}"` });
    const rows: Array<{ name: string; grammar: number; replay: number }> = [];
    const derive: { with: number[]; without: number[] } = { with: [], without: [] };
    for (const read of READS) {
      await open(modelServer, withModel);
      model.script = (request) => ({ content: read.answer(request) });
      const recorded = await run(modelServer, withModel, { type: "ASK", step: read.step, schema: read.schema, deriveRecipe: true });
      if (!recorded.recipe) throw new Error(`${read.name}: no recipe (${recorded.noRecipe})`);
      const recipe: ReadRecipe = recorded.recipe;
      const grammar: number[] = [];
      const replay: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (["grammar", "replay"] as const) : (["replay", "grammar"] as const);
        for (const kind of order) {
          await open(plain, noModel);
          const start = performance.now();
          const status = await run(plain, noModel, { type: "ASK", step: read.step, schema: read.schema, ...(kind === "replay" ? { recipe } : {}) });
          (kind === "grammar" ? grammar : replay).push(performance.now() - start);
          if (JSON.stringify(status.result) !== JSON.stringify(recorded.result)) throw new Error(`${read.name}: the ${kind} read ${JSON.stringify(status.result)}, the model ${JSON.stringify(recorded.result)}`);
        }
        // What deriving costs the model's ASK (the double answers at once, so the difference shows).
        for (const on of round % 2 === 0 ? [true, false] : [false, true]) {
          await open(modelServer, withModel);
          const start = performance.now();
          await run(modelServer, withModel, { type: "ASK", step: read.step, schema: read.schema, ...(on ? { deriveRecipe: true } : {}) });
          (on ? derive.with : derive.without).push(performance.now() - start);
        }
      }
      const row = { name: read.name, grammar: median(grammar), replay: median(replay) };
      rows.push(row);
      console.log(`${row.name.padEnd(40)} grammar ASK ${row.grammar.toFixed(1)} ms, ASK replay ${row.replay.toFixed(1)} ms: ${(row.replay / row.grammar).toFixed(2)}×`);
    }
    const sum = (k: "grammar" | "replay") => rows.reduce((t, r) => t + r[k], 0);
    console.log(`${ROUNDS} rounds per read, medians in ms.`);
    console.log(`ASK replay / grammar ASK: ${(sum("replay") / sum("grammar")).toFixed(2)}×`);
    const [on, off] = [median(derive.with), median(derive.without)];
    console.log(`model ASK (instant double) with deriveRecipe ${on.toFixed(1)} ms, without ${off.toFixed(1)} ms: derive / plain ${(on / off).toFixed(2)}×, +${(on - off).toFixed(1)} ms per ASK`);
  } finally {
    await plain.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

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
    for (const shape of process.env.WF_BENCH_ONLY === "ask" ? [] : SHAPES) {
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
    if (rows.length > 0) console.log(`${ROUNDS} rounds per shape, medians in ms.`);
    if (rows.length > 0) console.log(`replay / grammar per step: ${(sum("replay") / sum("grammar")).toFixed(2)}×`);
    await benchReads(model, pages.url, server);
  } finally {
    await server.close();
    await pages.close();
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
