/**
 * Benchmark (not a test): what a model step costs beyond a grammar step, with an instant model.
 * Starts the server in-process with a model double that answers at once (the right element's
 * reference, read from the page it was sent), opens a small to-do app, and runs N pairs of ACT
 * steps in one session (default 15): a grammar step (`check "Buy milk"`) and a model step (an
 * instruction the grammar does not understand; the double unticks "Buy milk"), then the same with
 * a model step the grammar parses but finds no target for, and a model ASK (the to-do items and
 * how many there are, answered with quotes). Prints the medians, where a model step's time goes (before the provider is called: the grammar's parse,
 * the hand-over, the page view; the provider call; after the answer: ref, action, records), then
 * the parts of the page view timed on their own (and an ASK answer's check against the page), the
 * machine's load, and, as its last two lines, each kind of hand-over as overhead beyond a grammar
 * step on the same page (measured alternately in the same run): `model step overhead beyond a
 * grammar step, not parsed: N ms (median)`, then the same for `parsed, not found`.
 *
 * Run: `pnpm --filter @wf/server bench:model-step` (`WF_BENCH_RUNS=30` for more pairs).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { toResponseFormat } from "@wf/core";
import type { StepStatus } from "@wf/core/protocol";
import { readPageView, startServer } from "../src/index.js";
import { ACT_RESPONSE_SCHEMA, ACT_SYSTEM_PROMPT, createModelProvider } from "../src/interpreter/model/index.js";
import { groundAnswer } from "../src/interpreter/model/grounding.js";
import { answerErrors } from "../src/interpreter/read/index.js";
import { locateTarget } from "../src/interpreter/locate/index.js";
import { identifyViewElements } from "../src/interpreter/page/index.js";
import { startStaticServer } from "../tests/helpers/static-server.js";
import { askReply, refFor, startModelDouble } from "../tests/helpers/model-double.js";
import { median } from "./_service.js";

const RUNS = Number(process.env.WF_BENCH_RUNS ?? 15);


const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "wf-bench-model-"));
  const pages = await startStaticServer(fileURLToPath(new URL("../tests/fixtures/model/", import.meta.url)));
  const model = await startModelDouble();
  // The instant model: unticks "Buy milk", noting when each request arrived.
  const arrived: number[] = [];
  // The instant model: unticks "Buy milk" for an ACT, lists the to-do items (with quotes) for an ASK.
  const ITEMS = ["Buy milk", "Walk the dog", "Pay the electricity bill", "Book the dentist", "Water the plants"];
  const askAnswer = { items: ITEMS, count: ITEMS.length };
  const askQuotes = ITEMS.map((quote) => ({ path: "/count", quote }));
  model.script = (request) => {
    arrived.push(performance.now());
    if (request.body.response_format?.json_schema?.name !== "wf_act") return { content: askReply(request, askAnswer, askQuotes) };
    return { content: { reason: "The milk item's checkbox.", actions: [{ verb: "uncheck", ref: refFor(request, "Buy milk", "checkbox"), value: null }] } };
  };
  const Todos = z.object({ items: z.array(z.string()), count: z.number() });
  const todosSchema = toResponseFormat(Todos, "todos") as unknown as Record<string, unknown>;
  const server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, model: "instant", modelBaseUrl: model.baseUrl, logger: false });
  const todo = `${pages.url}/todo.html`;
  try {
    // Pictures are the same for both kinds of step: leave them out of both.
    const { sessionId } = await server.context.sessions.createSession({ kind: "STEP", screenshot: "only-on-failure" });
    const run = async (step: string): Promise<{ wallMs: number; status: StepStatus }> => {
      const start = performance.now();
      const status = await server.context.sessions.runStep(sessionId, { type: "ACT", step });
      const wallMs = performance.now() - start;
      if (status.status !== "SUCCEEDED") throw new Error(`${step}: ${status.error?.code} ${status.error?.message}`);
      return { wallMs, status };
    };
    await run(`go to "${todo}"`);
    const NOT_UNDERSTOOD = "the milk one is not bought after all"; // the grammar cannot parse it: straight to the model
    const NOT_FOUND = "untick the milk one"; // the grammar reads `uncheck "milk one"`, finds no such element, hands over
    // Warm-up: one of each, not counted.
    await run('check "Buy milk"');
    await run(NOT_UNDERSTOOD);

    const grammar: number[] = [];
    const modelTotal: number[] = [];
    const beforeCall: number[] = [];
    const call: number[] = [];
    const afterAnswer: number[] = [];
    const notFound: number[] = [];
    const askModel: number[] = [];
    const modelStep = async (step: string) => {
      const sent = arrived.length;
      const start = performance.now();
      const m = await run(step);
      if (m.status.interpreter !== "model" || arrived.length !== sent + 1) throw new Error(`${step}: not one model call`);
      return { ...m, before: arrived[sent]! - start, provider: m.status.usage!.durationMs };
    };
    const grammarStep = async () => {
      const g = await run('check "Buy milk"');
      if (g.status.interpreter !== "grammar") throw new Error("the grammar step went to the model");
      grammar.push(g.wallMs);
    };
    for (let i = 0; i < RUNS; i++) {
      await grammarStep();
      const m = await modelStep(NOT_UNDERSTOOD);
      modelTotal.push(m.wallMs);
      beforeCall.push(m.before);
      call.push(m.provider);
      afterAnswer.push(m.wallMs - m.before - m.provider);
      await grammarStep();
      notFound.push((await modelStep(NOT_FOUND)).wallMs);
      const askStart = performance.now();
      const asked = await server.context.sessions.runStep(sessionId, { type: "ASK", step: "the to-do items and how many there are", schema: todosSchema });
      if (asked.status !== "SUCCEEDED" || asked.interpreter !== "model") throw new Error(`ASK: ${asked.error?.code} ${asked.error?.message}`);
      askModel.push(performance.now() - askStart);
    }

    console.log(`to-do app (${todo.split("/").pop()}), ${RUNS} rounds of steps through the server in-process, no screenshots, instant model double`);
    console.log(`grammar step (check "Buy milk")           median ${ms(median(grammar))}`);
    console.log(`model step (${JSON.stringify(NOT_UNDERSTOOD)})`);
    console.log(`                                           median ${ms(median(modelTotal))}`);
    console.log(`  until the provider is called             median ${ms(median(beforeCall))}  (parse, hand-over, page view with its wait for a quiet page, prompt)`);
    console.log(`  the provider call (SDK + loopback HTTP)  median ${ms(median(call))}`);
    console.log(`  after the answer                         median ${ms(median(afterAnswer))}  (answer check, ref resolution, the action, the step's record)`);
    console.log(`model step after a grammar not-found (${JSON.stringify(NOT_FOUND)})`);
    console.log(`                                           median ${ms(median(notFound))}  (the grammar's look, the page settled by its events, the hand-over)`);
    console.log(`model ASK (the to-do items and their count, with quotes)`);
    console.log(`                                           median ${ms(median(askModel))}  (page view, provider call, schema and page checks of the answer, record)`);

    let quietWait = 0;
    // The page view's parts, timed on their own on the same page in a context of the same browser.
    const context = await server.context.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(todo);
      const view = (quietMs?: number) =>
        readPageView(page, { purpose: "act", query: NOT_UNDERSTOOD, budgetTokens: 11_000, secrets: [], ...(quietMs !== undefined ? { quietMs } : {}) }, () => 30_000);
      const timed = async (what: () => Promise<unknown>): Promise<number> => {
        const start = performance.now();
        await what();
        return performance.now() - start;
      };
      const parts = {
        whole: [] as number[],
        read: [] as number[],
        load: [] as number[],
        networkidle: [] as number[],
        check: [] as number[],
        provider: [] as number[],
        ref: [] as number[],
        locate: [] as number[],
        ground: [] as number[],
      };
      const provider = createModelProvider({ model: "instant", baseUrl: model.baseUrl });
      const text = (await view(0)).text;
      for (let i = 0; i < RUNS; i++) {
        // A change first, as a step before the model's would make one.
        await page.getByRole("checkbox", { name: "Walk the dog" }).click();
        parts.whole.push(await timed(() => view()));
        parts.read.push(await timed(() => view(0)));
        parts.load.push(await timed(() => page.waitForLoadState("load")));
        parts.networkidle.push(await timed(() => page.waitForLoadState("networkidle")));
        // What the model path does to turn a ref back into the element (resolveRef's calls), beside the grammar's search.
        const element = (await view(0)).elements.find((e) => e.role === "checkbox" && e.name === "Buy milk")!;
        const locator = page.locator(element.selector);
        parts.ref.push(
          await timed(async () => {
            await locator.evaluateAll(identifyViewElements);
            await locator.normalize();
          }),
        );
        parts.locate.push(await timed(() => locateTarget(page, { text: "Buy milk", quoted: true }, "check", 5_000)));
        parts.check.push(await timed(async () => answerErrors({ reason: "x", actions: [{ verb: "uncheck", ref: "e1", value: null }] }, ACT_RESPONSE_SCHEMA.schema)));
        // An ASK answer checked against a view already in hand (a fresh view: its folded text is built on first use).
        const askView = await readPageView(page, { purpose: "ask", query: "the to-do items", budgetTokens: 11_000, secrets: [], quietMs: 0 }, () => 30_000);
        parts.ground.push(
          await timed(async () => {
            const g = groundAnswer(askAnswer, askQuotes, todosSchema.json_schema ? (todosSchema.json_schema as { schema: Record<string, unknown> }).schema : todosSchema, askView.source, todo);
            if (g.problems.length > 0) throw new Error(`grounding: ${JSON.stringify(g.problems)}`);
          }),
        );
        parts.provider.push(
          await timed(() =>
            provider.complete({
              messages: [
                { role: "system", content: ACT_SYSTEM_PROMPT },
                { role: "user", content: `Instruction: ${NOT_UNDERSTOOD}\n\nThe page:\n${text}` },
              ],
              schema: ACT_RESPONSE_SCHEMA,
              timeoutMs: 10_000,
              signal: new AbortController().signal,
            }),
          ),
        );
      }
      console.log(`page view, on its own (after a click)      median ${ms(median(parts.whole))}`);
      console.log(`  without the quiet wait (quietMs 0)       median ${ms(median(parts.read))}  (the DOM pass and its rendering)`);
      console.log(`  so the quiet wait itself                 median ${ms(median(parts.whole) - median(parts.read))}`);
      console.log(`  waitForLoadState("load") on a loaded page     ${ms(median(parts.load))}`);
      console.log(`  waitForLoadState("networkidle"), idle page    ${ms(median(parts.networkidle))}`);
      console.log(`provider.complete on its own               median ${ms(median(parts.provider))}`);
      console.log(`ref to element (identify, normalize) ${ms(median(parts.ref))}  (the grammar's search for the same element: ${ms(median(parts.locate)).trim()})`);
      console.log(`answer check (z.fromJSONSchema + parse)    median ${ms(median(parts.check))}`);
      console.log(`ASK answer checked against the page view   median ${ms(median(parts.ground))}  (5 texts, a count of 5 quotes)`);
      quietWait = median(parts.whole) - median(parts.read);
    } finally {
      await context.close();
    }
    await server.context.sessions.finishSession(sessionId, { status: "SUCCEEDED" });
    const overhead = median(modelTotal) - median(grammar);
    const notFoundOverhead = median(notFound) - median(grammar);
    console.log(`the same less the page view's quiet wait (measured on its own): ~${Math.round(overhead - quietWait)} ms (an estimate)`);
    console.log(`load average (1, 5, 15 min): ${loadavg().map((l) => l.toFixed(2)).join(", ")}; goal ≤ 100 ms for each case`);
    console.log(`model step overhead beyond a grammar step, not parsed (${JSON.stringify(NOT_UNDERSTOOD)}): ${Math.round(overhead)} ms (median)`);
    console.log(`model step overhead beyond a grammar step, parsed, not found (${JSON.stringify(NOT_FOUND)}): ${Math.round(notFoundOverhead)} ms (median)`);
  } finally {
    await server.close();
    await model.close();
    await pages.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
