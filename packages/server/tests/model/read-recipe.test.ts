/**
 * Read recipes (issue 35): an ASK the model answers comes back with a recipe that reproduced its
 * answer exactly on the same page, or with the reason there is none; sent back as the step's
 * `recipe`, it reads the page with no model call: the new data when the data changed, and a
 * `WF_LOCK_STALE` failure (never the old answer) when what it reads is gone. Through the real
 * session manager and Chromium, with a double of the model provider.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ReadRecipe, StepStatus } from "@wf/core/protocol";
import type { RunningServer } from "../../src/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { askReply, type ModelDouble } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
let pages: StaticServer;
let server: RunningServer;
const session = sessionSteps(() => fixture.server);

const schemaOf = (schema: Record<string, unknown>) => ({ type: "json_schema", json_schema: { name: "answer", strict: true, schema } });
const strictObject = (properties: Record<string, unknown>) => ({ type: "object", additionalProperties: false, required: Object.keys(properties), properties });

const PENDING = schemaOf(strictObject({ value: { type: "array", items: strictObject({ order: { type: "string" }, customer: { type: "string" }, total: { type: "number" } }) } }));
const ACCOUNT = schemaOf(strictObject({ manager: { type: "string" }, balance: { type: "number" } }));
const COUNT = schemaOf(strictObject({ value: { type: "integer" } }));

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/model/", import.meta.url)));
  ({ model, pages, server } = fixture);
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected model call" });
  await session.open();
});

afterEach(() => session.close());

async function goTo(variant = ""): Promise<void> {
  const status = await server.context.sessions.runStep(session.sessionId, { type: "ACT", step: `go to "${pages.url}/read-orders.html${variant ? `?variant=${variant}` : ""}"` });
  expect(status.error ?? undefined).toBeUndefined();
}

/** An ASK: with `recipe`, its replay; without, the model's answer and (`deriveRecipe`, as a lock being written asks) its recipe. */
function ask(step: string, schema: Record<string, unknown>, recipe?: ReadRecipe, deriveRecipe = true): Promise<StepStatus> {
  return server.context.sessions.runStep(session.sessionId, { type: "ASK", step, schema, ...(recipe ? { recipe } : deriveRecipe ? { deriveRecipe } : {}) });
}

const pendingNow = [
  { order: "#1042", customer: "Ada Lovelace", total: 120 },
  { order: "#1044", customer: "Grace Hopper", total: 1299 },
];

/** The model answers the pending orders, quoting each cell it copied. */
function answerPending(): void {
  model.script = (request) => ({
    content: askReply(request, { value: pendingNow }, [
      { path: "/value/0/order", quote: "#1042" },
      { path: "/value/0/customer", quote: "Ada Lovelace" },
      { path: "/value/0/total", quote: "$120.00" },
      { path: "/value/1/order", quote: "#1044" },
      { path: "/value/1/customer", quote: "Grace Hopper" },
      { path: "/value/1/total", quote: "$1,299.00" },
    ]),
  });
}

async function recordPending(): Promise<ReadRecipe> {
  await goTo();
  answerPending();
  const status = await ask("the pending orders", PENDING);
  expect(status.error ?? undefined).toBeUndefined();
  expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", result: { value: pendingNow } });
  expect(status.noRecipe).toBeUndefined();
  model.script = () => ({ status: 500, message: "a replayed read must not call the model" });
  model.requests.length = 0;
  return status.recipe!;
}

describe("read recipes", { timeout: 120_000 }, () => {
  it("a table's rows selected by status: the recipe names the table by headers, each field a column, the rows by their status; replayed on the same page with no model call", async () => {
    const recipe = await recordPending();
    expect(recipe.parts).toHaveLength(1);
    expect(recipe.parts[0]).toMatchObject({
      path: "/value",
      where: [{ header: expect.stringMatching(/^status$/i), equals: "Pending" }],
      columns: { order: { header: expect.stringMatching(/^order$/i), as: "text" }, customer: { header: expect.stringMatching(/^customer$/i), as: "text" }, total: { header: expect.stringMatching(/^total$/i), as: "number" } },
    });
    const replayed = await ask("the pending orders", PENDING, recipe);
    expect(replayed.error ?? undefined).toBeUndefined();
    expect(replayed).toMatchObject({ status: "SUCCEEDED", replayed: true, interpreter: "grammar", result: { value: pendingNow } });
    expect(replayed.usage ?? null).toBeNull();
    expect(model.requests).toHaveLength(0);
  });

  it("the data changed: the replay reads the new rows and values, not the recorded answer", async () => {
    const recipe = await recordPending();
    await goTo("changed");
    const replayed = await ask("the pending orders", PENDING, recipe);
    expect(replayed.error ?? undefined).toBeUndefined();
    expect(replayed.result).toEqual({
      value: [
        { order: "#1042", customer: "Ada Lovelace", total: 120 },
        { order: "#1044", customer: "Grace Hopper", total: 1349 },
        { order: "#1046", customer: "Edsger Dijkstra", total: 18.25 },
      ],
    });
    expect(model.requests).toHaveLength(0);
  });

  it("the structure changed (the table became cards): WF_LOCK_STALE saying what it looked for and what the page has, no answer", async () => {
    const recipe = await recordPending();
    await goTo("moved");
    const replayed = await ask("the pending orders", PENDING, recipe);
    expect(replayed.status).toBe("FAILED");
    expect(replayed.error?.code).toBe("WF_LOCK_STALE");
    expect(replayed.error?.message).toMatch(/no longer applies/);
    expect(replayed.error?.message).toMatch(/a table with the headers "Order", "Customer", "Status", "Total"|a table with the headers/i);
    expect(replayed.error?.message).toMatch(/the page has no tables/);
    expect(replayed.result).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it("values by their labels: replayed with the new balance; a reworded label is stale", async () => {
    await goTo();
    model.script = (request) => ({
      content: askReply(request, { manager: "Dana Whitfield", balance: 1284.5 }, [
        { path: "/manager", quote: "Dana Whitfield" },
        { path: "/balance", quote: "$1,284.50" },
      ]),
    });
    const recorded = await ask("the account manager and the balance due", ACCOUNT);
    expect(recorded.error ?? undefined).toBeUndefined();
    expect(recorded.noRecipe).toBeUndefined();
    expect(recorded.recipe).toEqual({
      parts: [
        { path: "/manager", label: expect.stringMatching(/^Account manager:?$/), as: "text" },
        { path: "/balance", label: expect.stringMatching(/^Balance due:?$/), as: "number" },
      ],
    });
    model.script = () => ({ status: 500, message: "a replayed read must not call the model" });
    model.requests.length = 0;
    await goTo("changed");
    const changed = await ask("the account manager and the balance due", ACCOUNT, recorded.recipe);
    expect(changed).toMatchObject({ status: "SUCCEEDED", replayed: true, result: { manager: "Dana Whitfield", balance: 1310 } });
    await goTo("moved");
    const moved = await ask("the account manager and the balance due", ACCOUNT, recorded.recipe);
    expect(moved.error?.code).toBe("WF_LOCK_STALE");
    expect(moved.error?.message).toMatch(/the value labelled "Balance due:?"/);
    expect(moved.error?.message).toMatch(/"Amount owed:?"/);
    expect(model.requests).toHaveLength(0);
  });

  it("an answer that needs judgement (a count) gets no recipe, and says why", async () => {
    await goTo();
    model.script = (request) => ({
      content: askReply(request, { value: 2 }, [
        { path: "/value", quote: "#1042" },
        { path: "/value", quote: "#1044" },
      ]),
    });
    const status = await ask("how many orders are pending", COUNT);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status.result).toEqual({ value: 2 });
    expect(status.recipe).toBeUndefined();
    expect(status.noRecipe).toMatch(/needs judgement: \/value is a count/);
  });

  it("without deriveRecipe (no lock being written) the model's answer gets no recipe and no reason: the page is not read again for one", async () => {
    await goTo();
    answerPending();
    const status = await ask("the pending orders", PENDING, undefined, false);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", result: { value: pendingNow } });
    expect(status.recipe).toBeUndefined();
    expect(status.noRecipe).toBeUndefined();
  });

  describe("selections the question names, and cells holding several values", () => {
    const TAGGED = schemaOf(strictObject({ value: { type: "array", items: strictObject({ name: { type: "string" }, tags: { type: "array", items: { type: "string" } } }) } }));
    const PRICED = schemaOf(strictObject({ value: { type: "array", items: strictObject({ name: { type: "string" }, price: { type: "number" } }) } }));

    async function goToIntegrations(variant = ""): Promise<void> {
      const status = await server.context.sessions.runStep(session.sessionId, { type: "ACT", step: `go to "${pages.url}/read-integrations.html${variant ? `?variant=${variant}` : ""}"` });
      expect(status.error ?? undefined).toBeUndefined();
    }

    /** Records `question` with the model's `answer` (each value quoted as the page writes it); the model must not be called after. */
    async function record(question: string, schema: Record<string, unknown>, answer: { value: Array<Record<string, unknown>> }, quotes: Array<{ path: string; quote: string }>): Promise<ReadRecipe> {
      await goToIntegrations();
      model.script = (request) => ({ content: askReply(request, answer, quotes) });
      const status = await ask(question, schema);
      expect(status.error ?? undefined).toBeUndefined();
      expect(status.noRecipe).toBeUndefined();
      model.script = () => ({ status: 500, message: "a replayed read must not call the model" });
      model.requests.length = 0;
      return status.recipe!;
    }

    const onA = 'the integrations whose description contains "on a", with their tags';

    it("description contains \"on a\", tags split: replayed on changed data, the added row that holds the phrase is read and the one that does not is not", async () => {
      const recipe = await record(
        onA,
        TAGGED,
        { value: [{ name: "Cron", tags: ["ops", "time"] }, { name: "Queue", tags: ["ops", "messaging"] }] },
        [
          { path: "/value/0/name", quote: "Cron" },
          { path: "/value/0/tags/0", quote: "ops, time" },
          { path: "/value/0/tags/1", quote: "ops, time" },
          { path: "/value/1/name", quote: "Queue" },
          { path: "/value/1/tags/0", quote: "ops, messaging" },
          { path: "/value/1/tags/1", quote: "ops, messaging" },
        ],
      );
      expect(recipe.parts[0]).toMatchObject({
        where: [{ header: expect.stringMatching(/^description$/i), contains: "on a" }],
        columns: { name: { header: expect.stringMatching(/^name$/i), as: "text" }, tags: { header: expect.stringMatching(/^tags$/i), as: "text", split: "," } },
      });
      await goToIntegrations("changed");
      const replayed = await ask(onA, TAGGED, recipe);
      expect(replayed.error ?? undefined).toBeUndefined();
      expect(replayed).toMatchObject({ status: "SUCCEEDED", replayed: true });
      expect(replayed.result).toEqual({ value: [{ name: "Cron", tags: ["ops", "time"] }, { name: "Queue", tags: ["ops", "messaging"] }, { name: "Mailer", tags: ["mail", "ops"] }] });
      expect(model.requests).toHaveLength(0);
    });

    it("price over $10: the row at exactly $10 stays out; on changed data the new price and the added row over $10 are read, the one under is not; as cards it is stale", async () => {
      const recipe = await record(
        "the integrations that cost over $10 a month",
        PRICED,
        { value: [{ name: "Cron", price: 12.5 }, { name: "Queue", price: 30 }] },
        [
          { path: "/value/0/name", quote: "Cron" },
          { path: "/value/0/price", quote: "$12.50" },
          { path: "/value/1/name", quote: "Queue" },
          { path: "/value/1/price", quote: "$30.00" },
        ],
      );
      expect(recipe.parts[0]).toMatchObject({ where: [{ header: expect.stringMatching(/^price$/i), gt: 10 }] });
      await goToIntegrations("changed");
      const replayed = await ask("the integrations that cost over $10 a month", PRICED, recipe);
      expect(replayed.error ?? undefined).toBeUndefined();
      expect(replayed.result).toEqual({ value: [{ name: "Cron", price: 12.5 }, { name: "Queue", price: 35 }, { name: "Archive", price: 15 }] });
      await goToIntegrations("moved");
      const moved = await ask("the integrations that cost over $10 a month", PRICED, recipe);
      expect(moved.error?.code).toBe("WF_LOCK_STALE");
      expect(moved.error?.message).toMatch(/a table with the headers/);
      expect(moved.result).toBeUndefined();
      expect(model.requests).toHaveLength(0);
    });
  });

  it("text ASKs (no schema): the main heading and the alert's message read from their elements; replayed with the new texts; gone, they are stale", async () => {
    await server.context.sessions.runStep(session.sessionId, { type: "ACT", step: `go to "${pages.url}/read-integrations.html"` });
    const recordText = async (question: string, text: string): Promise<ReadRecipe> => {
      model.script = (request) => ({ content: askReply(request, { value: text }, [{ path: "/value", quote: text }]) });
      const status = await server.context.sessions.runStep(session.sessionId, { type: "ASK", step: question, deriveRecipe: true });
      expect(status.error ?? undefined).toBeUndefined();
      expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", result: text });
      expect(status.noRecipe).toBeUndefined();
      return status.recipe!;
    };
    const heading = await recordText("the main heading", "Integrations");
    expect(heading).toEqual({ parts: [{ path: "", element: { role: "heading", level: 1 }, as: "text" }] });
    const alert = await recordText("the alert's message", "Billing sync failed: retry in 5 minutes");
    expect(alert).toEqual({ parts: [{ path: "", element: { role: "alert" }, as: "text" }] });
    model.script = () => ({ status: 500, message: "a replayed read must not call the model" });
    model.requests.length = 0;
    const replay = (question: string, recipe: ReadRecipe) => server.context.sessions.runStep(session.sessionId, { type: "ASK", step: question, recipe });
    await server.context.sessions.runStep(session.sessionId, { type: "ACT", step: `go to "${pages.url}/read-integrations.html?variant=changed"` });
    expect(await replay("the main heading", heading)).toMatchObject({ status: "SUCCEEDED", replayed: true, result: "Connected apps" });
    expect(await replay("the alert's message", alert)).toMatchObject({ status: "SUCCEEDED", replayed: true, result: "Billing sync failed: retry in 10 minutes" });
    await server.context.sessions.runStep(session.sessionId, { type: "ACT", step: `go to "${pages.url}/read-integrations.html?variant=moved"` });
    const gone = await replay("the main heading", heading);
    expect(gone.error?.code).toBe("WF_LOCK_STALE");
    expect(gone.error?.message).toMatch(/the one heading of level 1; the page has no heading of level 1/);
    const noAlert = await replay("the alert's message", alert);
    expect(noAlert.error?.code).toBe("WF_LOCK_STALE");
    expect(noAlert.result).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it("a recipe is for an ASK only: an ACT or a check sent with one is a 422-class refusal", async () => {
    await expect(server.context.sessions.runStep(session.sessionId, { type: "ACT", step: "go back", recipe: { parts: [{ path: "/x", label: "X", as: "text" }] } })).rejects.toThrow(/read recipe/);
  });
});
