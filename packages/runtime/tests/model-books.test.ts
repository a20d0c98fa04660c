/**
 * The runtime's side of issue 31's budget and books, against the fault-injecting stand-in of the
 * service: `usage.calls` (HTTP requests to the provider) counts against `maxModelCalls`; once it is
 * spent, every later step is sent with `allowModel: false` and one the service cannot do without the
 * model fails `WF_MODEL_BUDGET_EXCEEDED` (an ASK too: never answered without the model instead);
 * usage the service estimated stays flagged in the step's record and the run's total.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, ask, workflow } from "@wf/core";
import type { RunStepRequest, StepUsage } from "@wf/core/protocol";
import { createServiceClient, runWorkflow, type ServiceClient } from "../src/index.js";
import { startFaultServer, type FaultServer, type FaultServerOptions } from "./helpers/fault-server.js";

const Total = z.object({ total: z.number().nullable() });

const twoAsks = workflow({ name: "two-asks" }, async () => {
  await act("go to http://shop.test/");
  const first = await ask("the order total", Total);
  const second = await ask("the order total again", Total);
  return { first: first.total, second: second.total };
});

const usage = (calls: number, extra: Partial<StepUsage> = {}): StepUsage => ({ model: "m", promptTokens: 100 * calls, completionTokens: 10 * calls, totalTokens: 110 * calls, calls, durationMs: 5, ...extra });

let server: FaultServer | undefined;
let client: ServiceClient | undefined;

async function setUp(options: FaultServerOptions) {
  server = await startFaultServer({ apiKey: "key", answer: () => ({ total: 17.5 }), ...options });
  client = createServiceClient({ baseUrl: server.baseUrl, apiKey: "key", retry: { retries: 2, minDelayMs: 5, maxDelayMs: 20 } });
  return { server, client };
}

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A service with a model: ASKs report `usage`, and one sent with `allowModel: false` is refused, as the wf server does. */
const withModel = (callsPerAsk: (step: RunStepRequest) => number): FaultServerOptions => ({
  usage: (step) => (step.type === "ASK" && step.allowModel !== false ? usage(callsPerAsk(step)) : undefined),
  fail: (step) =>
    step.type === "ASK" && step.allowModel === false
      ? { code: "WF_MODEL_FORBIDDEN", message: "The step needs the model, and it was sent with allowModel: false (no model was called)." }
      : undefined,
});

describe("the run's model budget counts requests", () => {
  it("a first ASK whose provider answered after the SDK's retry (2 requests) takes a budget of 1 over: the step fails WF_MODEL_BUDGET_EXCEEDED", async () => {
    const { client, server } = await setUp(withModel((step) => (step.step === "the order total" ? 2 : 1)));
    const record = await runWorkflow(twoAsks, { params: {}, client, maxModelCalls: 1 });
    expect(record.status).toBe("failed");
    expect(record.steps[1]).toMatchObject({ status: "failed", usage: { calls: 2 }, error: { code: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(record.steps[1]!.error!.message).toMatch(/every request to the provider is a call: the SDK's retries/);
    expect(record.steps).toHaveLength(2);
    expect(server.steps.filter((s) => s.type === "ASK")).toHaveLength(1);
  });

  it("once the budget is spent, the next ASK goes with allowModel: false and fails WF_MODEL_BUDGET_EXCEEDED; no answer without the model", async () => {
    const { client, server } = await setUp(withModel(() => 1));
    const record = await runWorkflow(twoAsks, { params: {}, client, maxModelCalls: 1 });
    expect(record.status).toBe("failed");
    expect(record.steps[1]).toMatchObject({ status: "succeeded", answer: { total: 17.5 } });
    expect(record.steps[2]).toMatchObject({ status: "failed", error: { code: "WF_MODEL_BUDGET_EXCEEDED" } });
    expect(record.steps[2]!.answer).toBeUndefined();
    expect(server.steps[2]).toMatchObject({ type: "ASK", allowModel: false });
    expect(record).toMatchObject({ maxModelCalls: 1, usage: { calls: 1 } });
  });
});

describe("estimated usage stays flagged", () => {
  it("a step whose usage the service estimated keeps estimated: true, and so does the run's total", async () => {
    const { client } = await setUp({ usage: (step) => (step.step === "the order total" ? usage(1, { estimated: true }) : step.type === "ASK" ? usage(1) : undefined) });
    const record = await runWorkflow(twoAsks, { params: {}, client });
    expect(record.status).toBe("succeeded");
    expect(record.steps[1]!.usage).toMatchObject({ calls: 1, estimated: true });
    expect(record.steps[2]!.usage!.estimated).toBeUndefined();
    expect(record.usage).toMatchObject({ calls: 2, estimated: true });
  });

  it("a run whose usage is all as reported has no estimated flag", async () => {
    const { client } = await setUp({ usage: (step) => (step.type === "ASK" ? usage(1) : undefined) });
    const record = await runWorkflow(twoAsks, { params: {}, client });
    expect(record.usage).toMatchObject({ calls: 2 });
    expect(record.usage!.estimated).toBeUndefined();
  });
});
