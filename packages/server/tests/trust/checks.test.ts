/**
 * Never a wrong success, for checks: a statement the model decides holds only on evidence that is
 * page content, long enough to say something, and about the statement. Through the real server
 * and a real Chromium, against a double of the provider that says every false statement holds,
 * with evidence a bare substring match on the view's text used to accept.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StepStatus } from "@wf/core/protocol";
import type { ModelDouble } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
const session = sessionSteps(() => fixture.server);

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/check/", import.meta.url)));
  model = fixture.model;
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
  expect(await session.act(`go to "${fixture.pages.url}/orders.html"`)).toMatchObject({ status: "SUCCEEDED" });
});

afterEach(() => session.close());

/** Runs `statement` as a check (an ASK with `check`), evaluated once. */
function check(statement: string): Promise<StepStatus> {
  return fixture.server.context.sessions.runStep(session.sessionId, { type: "ASK", step: statement, check: { timeoutMs: 0 } });
}

/** A model that says the statement holds, resting on `evidence`. */
function holdsOn(evidence: string) {
  return () => ({ content: { holds: true, reason: "The page shows it.", evidence } });
}

describe("a false statement the model says holds never passes on this evidence", () => {
  it.each([
    ["a letter of the page", "Ada's order has been refunded", "e"],
    ["a word out of a line", "Ada's order has been refunded", "Order"],
    ["the view's own header line", "the order was cancelled", "Page: Orders — Acme Shop"],
    ["the view's URL line", "the order was cancelled", "URL: "],
    ["the page title alone", "Ada's order was cancelled", "Orders — Acme Shop"],
    ["a role word of the view", "the Pay button can be clicked", "button"],
    ["a state the view adds", "the Pay button can be clicked", "(disabled)"],
    ["another row's status", "Grace's order is pending", "Pending"],
    ["another customer's row", "Linus's order has shipped", "Grace Shipped"],
    ["a line about something else", "Ada's order has been refunded", "Free shipping over 50 €"],
  ])("%s: %j on %j", async (_what, statement, evidence) => {
    model.script = holdsOn(evidence === "URL: " ? `URL: ${fixture.pages.url}/orders.html` : evidence);
    const status = await check(statement);
    expect(status).toMatchObject({ status: "FAILED", interpreter: "model", error: { code: "WF_ANSWER_UNCERTAIN" } });
    expect(status.error!.message).toMatch(/A check passes only on evidence quoted from the page/);
  });
});

describe("a statement that holds passes on real evidence", () => {
  it.each([
    ["two whole cells of its row", "Ada's order is still waiting to ship", "Ada Pending"],
    ["its row as the view shows it", "Grace's order has shipped", "| Grace | Shipped |"],
    ["a whole line", "order #1042 was placed", "Order #1042 placed"],
    ["a span of several words", "returns are accepted within 30 days", "Returns within 30 days"],
  ])("%s: %j on %j", async (_what, statement, evidence) => {
    model.script = holdsOn(evidence);
    const status = await check(statement);
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", result: { holds: true, interpreter: "model", attempts: 1 } });
  });
});
