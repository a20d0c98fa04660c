import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, ask, check, ParamsValidationError, secret, step, workflow } from "@wf/core";
import { createServiceClient, runWorkflow, type RunEvent, type ServiceClient } from "../src/index.js";
import { startFaultServer, type FaultServer, type FaultServerOptions } from "./helpers/fault-server.js";

const FAST_RETRY = { retries: 4, minDelayMs: 5, maxDelayMs: 20 };
const THIS_FILE = "run-workflow.test.ts";

const prices = workflow(
  {
    name: "prices",
    params: z.object({ url: z.string().default("http://shop.test/"), limit: z.number().int().positive().default(2) }),
    output: z.object({ title: z.string(), rows: z.array(z.object({ name: z.string(), price: z.number() })) }),
  },
  async ({ params, log }) => {
    await act(`go to ${params.url}`);
    await act('click "Prices"');
    log("reading", { limit: params.limit });
    const title = await ask("the page title");
    const rows = await ask("the table of prices", z.array(z.object({ name: z.string(), price: z.number() })));
    return { title, rows: rows.slice(0, params.limit) };
  },
);

const answers: FaultServerOptions["answer"] = (step) =>
  step.step === "the table of prices"
    ? { value: [{ name: "tea", price: 3 }, { name: "cake", price: 4.5 }, { name: "pie", price: 5 }] } // a non-object schema travels wrapped in { value }
    : "Price list";

let server: FaultServer | undefined;
let client: ServiceClient | undefined;

async function setUp(options: FaultServerOptions = {}, requestTimeoutMs = 2_000) {
  server = await startFaultServer({ apiKey: "key", answer: answers, ...options });
  client = createServiceClient({ baseUrl: server.baseUrl, apiKey: "key", retry: FAST_RETRY, requestTimeoutMs });
  return { server, client };
}

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** Each idempotency key ran at most once, and every step the workflow took ran exactly once. */
function expectNoStepTwice(s: FaultServer, stepsTaken: number) {
  expect([...s.executions.values()].every((n) => n === 1)).toBe(true);
  expect(s.steps).toHaveLength(stepsTaken);
}

describe("runWorkflow", () => {
  it("runs act and ask steps, decodes typed answers, checks the output and closes the session", async () => {
    const { server, client } = await setUp();
    const events: RunEvent[] = [];
    const record = await runWorkflow(prices, { params: {}, client, onEvent: (e) => events.push(e) });

    expect(record.status).toBe("succeeded");
    expect(record.output).toEqual({ title: "Price list", rows: [{ name: "tea", price: 3 }, { name: "cake", price: 4.5 }] });
    expect(record.params).toEqual({ url: "http://shop.test/", limit: 2 });
    expect(record.steps.map((s) => [s.index, s.type, s.instruction, s.status, s.attempts])).toEqual([
      [1, "ACT", "go to http://shop.test/", "succeeded", 1],
      [2, "ACT", 'click "Prices"', "succeeded", 1],
      [3, "ASK", "the page title", "succeeded", 1],
      [4, "ASK", "the table of prices", "succeeded", 1],
    ]);
    expect(record.steps[3]!.answer).toEqual([{ name: "tea", price: 3 }, { name: "cake", price: 4.5 }, { name: "pie", price: 5 }]);
    expect(record.steps[3]!.result).toEqual({ value: [{ name: "tea", price: 3 }, { name: "cake", price: 4.5 }, { name: "pie", price: 5 }] });
    expect(record.steps[0]!.callSite).toContain(THIS_FILE);
    expect(record.steps.every((s) => s.stepId && s.durationMs >= 0 && s.finishedAt >= s.startedAt)).toBe(true);

    // The ASK with a schema sent its response format; the one without sent none.
    expect(server.steps[3]!.schema).toMatchObject({ type: "json_schema" });
    expect(server.steps[2]!.schema).toBeUndefined();
    expect(server.steps[0]!.timeoutMs).toBe(30_000);

    expect(events.map((e) => e.type)).toEqual([
      "run-started",
      ...["step-started", "step-finished", "step-started", "step-finished"],
      "log",
      ...["step-started", "step-finished", "step-started", "step-finished"],
      "run-finished",
    ]);
    expect(events[0]).toMatchObject({ type: "run-started", workflow: "prices", sessionId: record.sessionId, debuggerUrl: expect.stringContaining("/view/") });
    expect(events.at(-1)).toEqual({ type: "run-finished", record });
    expect(server.openSessions()).toBe(0);
    expectNoStepTwice(server, 4);
  });

  it("records step() groups, each step's group and the log lines, and sends each step's groups to the service", async () => {
    const { server, client } = await setUp();
    const grouped = workflow({ name: "grouped", params: z.object({ pw: secret(z.string()) }) }, async ({ params, log }) => {
      await act("go to http://shop.test/");
      const title = await step("open prices", async () => {
        await act('click "Prices"');
        return step(`read as ${params.pw}`, async () => {
          log("reading the title");
          return ask("the page title");
        });
      });
      log(`got ${title}`);
      await step("fails", () => {
        throw new Error("boom");
      }).catch(() => undefined);
    });
    const events: RunEvent[] = [];
    const record = await runWorkflow(grouped, { params: { pw: "hunter2" }, client, onEvent: (e) => events.push(e) });
    expect(record.status).toBe("succeeded");
    expect(record.groups?.map((g) => [g.id, g.title, g.parentId, g.status])).toEqual([
      [1, "open prices", undefined, "succeeded"],
      [2, "read as [secret]", 1, "succeeded"],
      [3, "fails", undefined, "failed"],
    ]);
    expect(record.groups![2]!.error).toEqual({ code: "WF_WORKFLOW_ERROR", message: "Error: boom" });
    expect(record.groups![0]!.callSite).toContain(THIS_FILE);
    expect(record.steps.map((s) => s.groupId)).toEqual([undefined, 1, 2]);
    expect(record.logs?.map((l) => [l.message, l.afterSteps, l.groupId])).toEqual([
      ["reading the title", 2, 2],
      ["got Price list", 3, undefined],
    ]);
    expect(server.steps.map((s) => s.groups)).toEqual([undefined, [{ id: "1", title: "open prices" }], [{ id: "1", title: "open prices" }, { id: "2", title: "read as [secret]" }]]);
    expect(events.map((e) => e.type)).toEqual([
      "run-started",
      "step-started", "step-finished",
      "group-started", "step-started", "step-finished",
      "group-started", "log", "step-started", "step-finished", "group-finished",
      "group-finished",
      "log",
      "group-started", "group-finished",
      "run-finished",
    ]);
  });

  it("ends succeeded through dropped connections, 503 with Retry-After, 429, slow and lost answers: no step twice, no session open", async () => {
    const { server, client } = await setUp({}, 300);
    server.fault("create", { kind: "status", status: 503, retryAfter: "0", code: "WF_BROWSER_UNAVAILABLE" });
    server.fault("run", { kind: "drop-after-body" });
    server.fault("run", { kind: "status", status: 429, retryAfter: "0" });
    server.fault("run", { kind: "slow", delayMs: 800 });
    server.fault("run", { kind: "drop-before-body" });
    server.fault("stepStatus", { kind: "drop-before-body" });
    server.fault("stepStatus", { kind: "status", status: 503, retryAfter: new Date(Date.now() - 5_000).toUTCString() });
    server.fault("stepStatus", { kind: "drop-after-body" });
    server.fault("close", { kind: "drop-after-body" });

    const record = await runWorkflow(prices, { params: { limit: 1 }, client });
    expect(record.status).toBe("succeeded");
    expect(record.output).toEqual({ title: "Price list", rows: [{ name: "tea", price: 3 }] });
    expect(record.closeError).toBeUndefined();
    expect(server.created()).toBe(1);
    expect(server.openSessions()).toBe(0);
    expectNoStepTwice(server, 4);
    expect(server.runKeys.length).toBeGreaterThan(4);
  });

  it("fails a step the service reports FAILED, naming the step, instruction, service error and call site", async () => {
    const { server, client } = await setUp({
      fail: (step) => (step.step === 'click "Prices"' ? { code: "WF_ELEMENT_NOT_FOUND", message: 'no element matches "Prices"' } : undefined),
    });
    const events: RunEvent[] = [];
    const record = await runWorkflow(prices, { client, onEvent: (e) => events.push(e) });
    expect(record.status).toBe("failed");
    expect(record.output).toBeUndefined();
    expect(record.error).toMatchObject({
      code: "WF_STEP_FAILED",
      stepIndex: 2,
      callSite: expect.stringContaining(THIS_FILE),
      details: { serviceCode: "WF_ELEMENT_NOT_FOUND", serviceMessage: 'no element matches "Prices"' },
    });
    expect(record.error!.message).toMatch(/^Step 2 ACT "click \\"Prices\\"" failed: no element matches "Prices" \[WF_ELEMENT_NOT_FOUND\]\n {4}at .*run-workflow\.test\.ts:\d+:\d+$/);
    expect(record.steps).toHaveLength(2);
    expect(record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    expect(events.filter((e) => e.type === "step-finished")).toHaveLength(2);
    expect(server.openSessions()).toBe(0);
  });

  it("re-runs a failed step with retries under a fresh idempotency key, recording the attempts", async () => {
    let failures = 0;
    const { server, client } = await setUp({
      fail: () => (failures++ < 1 ? { code: "WF_TIMEOUT", message: "the page did not load" } : undefined),
    });
    const flaky = workflow({ name: "flaky" }, async () => {
      await act("go to http://shop.test/", { retries: 2, timeoutMs: 5_000 });
    });
    const events: RunEvent[] = [];
    const record = await runWorkflow(flaky, { client, onEvent: (e) => events.push(e) });
    expect(record.status).toBe("succeeded");
    expect(record.steps).toEqual([expect.objectContaining({ index: 1, status: "succeeded", attempts: 2 })]);
    expect(record.steps[0]!.error).toBeUndefined();
    expect(events.filter((e) => e.type === "step-started").map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(server.steps.map((s) => s.timeoutMs)).toEqual([5_000, 5_000]);
    expect(server.executions.size).toBe(2);
    expectNoStepTwice(server, 2);
    expect(server.openSessions()).toBe(0);
  });

  it("fails with WF_ANSWER_INVALID when an ASK answer does not match its schema", async () => {
    const { server, client } = await setUp({ answer: () => ({ value: [{ name: "tea", price: "three" }] }) });
    const record = await runWorkflow(prices, { client });
    expect(record.status).toBe("failed");
    expect(record.error).toMatchObject({ code: "WF_ANSWER_INVALID", stepIndex: 4, callSite: expect.stringContaining(THIS_FILE) });
    expect(record.steps[3]).toMatchObject({ status: "failed", error: { code: "WF_ANSWER_INVALID" } });
    expect(server.openSessions()).toBe(0);
  });

  it("throws ParamsValidationError listing each bad field before any session is created", async () => {
    const { server, client } = await setUp();
    const error = await runWorkflow(prices, { params: { url: 42, limit: -1 }, client }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParamsValidationError);
    expect((error as Error).message).toContain("url:");
    expect((error as Error).message).toContain("limit:");
    expect(server.requests.create).toBe(0);
  });

  it("ends cancelled and closes the session when the signal aborts during a step", async () => {
    const { server, client } = await setUp({ stepDurationMs: 60_000 });
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const record = await runWorkflow(prices, {
      client,
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === "step-started") setTimeout(() => controller.abort(new Error("Ctrl-C")), 30);
      },
    });
    expect(record.status).toBe("cancelled");
    expect(record.error).toMatchObject({ code: "WF_ABORTED", stepIndex: 1 });
    expect(record.steps).toEqual([expect.objectContaining({ index: 1, status: "failed", error: expect.objectContaining({ code: "WF_ABORTED" }) })]);
    expect(events.at(-1)?.type).toBe("run-finished");
    expect(server.openSessions()).toBe(0);
    expect(server.closed()).toBe(1);
  });

  it("closes the session whose creation was under way when the signal aborted", async () => {
    const { server, client } = await setUp();
    server.fault("create", { kind: "slow", delayMs: 300 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("Ctrl-C")), 50);
    const events: RunEvent[] = [];
    await expect(runWorkflow(prices, { client, signal: controller.signal, onEvent: (e) => events.push(e) })).rejects.toMatchObject({ code: "WF_ABORTED" });
    expect(events).toEqual([]);
    expect(server.created()).toBe(1);
    expect(server.openSessions()).toBe(0);
  });

  it("ends cancelled when the handler ignores the signal between steps", async () => {
    const { server, client } = await setUp();
    const controller = new AbortController();
    const stuck = workflow({ name: "stuck" }, async () => {
      await act("go to http://shop.test/");
      controller.abort();
      await new Promise(() => {}); // never settles
    });
    const record = await runWorkflow(stuck, { client, signal: controller.signal });
    expect(record.status).toBe("cancelled");
    expect(record.error?.code).toBe("WF_ABORTED");
    expect(server.openSessions()).toBe(0);
  });

  it("falls back to polling with backoff when the status route does not long-poll", async () => {
    const { server, client } = await setUp({ longPoll: false, stepDurationMs: 120 });
    const record = await runWorkflow(prices, { client, pollIntervalMs: 10 });
    expect(record.status).toBe("succeeded");
    // At least one status request per step, and a bounded number: it waits between polls.
    expect(server.requests.stepStatus).toBeGreaterThanOrEqual(4);
    expect(server.requests.stepStatus).toBeLessThan(100);
    expect(server.openSessions()).toBe(0);
    expectNoStepTwice(server, 4);
  });

  it("takes one request per step when the service's run answer waits for the step (`?waitMs=`)", async () => {
    const { server, client } = await setUp({ waitOnRun: true });
    const record = await runWorkflow(prices, { client });
    expect(record.status).toBe("succeeded");
    expect(record.output).toEqual({ title: "Price list", rows: [{ name: "tea", price: 3 }, { name: "cake", price: 4.5 }] });
    expect(server.requests.run).toBe(4);
    expect(server.requests.stepStatus).toBe(0);
    expectNoStepTwice(server, 4);
  });

  it("long-polls a step still running when the run's wait ends, and takes a failure from the run's answer", async () => {
    const { server, client } = await setUp({ waitOnRun: true, stepDurationMs: 300 });
    const record = await runWorkflow(prices, { client, longPollMs: 50 });
    expect(record.status).toBe("succeeded");
    expect((record.output as { rows: unknown[] }).rows).toHaveLength(2);
    // Each step outlasted the run's 50 ms wait: its end came from the status route.
    expect(server.requests.stepStatus).toBeGreaterThanOrEqual(4);
    expectNoStepTwice(server, 4);

    await client.close();
    await server.close();
    const failing = await setUp({ waitOnRun: true, fail: (step) => (step.step === 'click "Prices"' ? { code: "WF_ELEMENT_NOT_FOUND", message: "no Prices link" } : undefined) });
    const failed = await runWorkflow(prices, { client: failing.client });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: "WF_STEP_FAILED" });
    expect(failed.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    expect(failing.server.requests.stepStatus).toBe(0);
  });

  it("trace retain-on-failure: a run that succeeds closes its session with discardTrace; a failed one, and trace: true, keep it", async () => {
    const { server, client } = await setUp();
    expect((await runWorkflow(prices, { client, trace: "retain-on-failure" })).status).toBe("succeeded");
    expect((await runWorkflow(prices, { client, trace: true })).status).toBe("succeeded");
    expect(server.closeBodies).toEqual([{ discardTrace: true }, undefined]);

    await client.close();
    await server.close();
    const failing = await setUp({ fail: (step) => (step.type === "ASK" ? { code: "WF_ELEMENT_NOT_FOUND", message: "no table" } : undefined) });
    expect((await runWorkflow(prices, { client: failing.client, trace: "retain-on-failure" })).status).toBe("failed");
    expect(failing.server.closeBodies).toEqual([undefined]);
  });

  it("creates its session with the context asked for, gives checks the run's default wait, and awaits beforeStep before each step is sent", async () => {
    const { server, client } = await setUp({ answer: (step) => (step.check ? { holds: true, reason: "shown", evidence: "Saved", interpreter: "grammar", attempts: 1 } : "Price list") });
    const seen: Array<[number, string, string, number]> = [];
    const flow = workflow({ name: "saved", params: z.object({ password: secret(z.string()) }) }, async ({ params }) => {
      await act(`type "${params.password}" into "Password"`);
      await check('the page shows "Saved"');
      await check('the page shows "Saved"', { timeoutMs: 100 });
    });
    const record = await runWorkflow(flow, {
      client,
      params: { password: "hunter2-secret" },
      context: { baseURL: "http://localhost:3000/", viewport: { width: 412, height: 839 }, locale: "de-DE" },
      checkTimeoutMs: 1_234,
      // The step is not sent before the hook returns: the server has seen only the steps before it.
      beforeStep: async (step) => void seen.push([step.index, step.type, step.instruction, server.steps.length]),
    });
    expect(record.error).toBeUndefined();
    expect(server.createBodies).toEqual([{ browserMode: "REMOTE", context: { baseURL: "http://localhost:3000/", viewport: { width: 412, height: 839 }, locale: "de-DE" } }]);
    expect(server.steps.map((s) => s.check?.timeoutMs)).toEqual([undefined, 1_234, 100]);
    expect(seen).toEqual([
      [1, "ACT", 'type "[secret]" into "Password"', 0],
      [2, "CHECK", 'the page shows "Saved"', 1],
      [3, "CHECK", 'the page shows "Saved"', 2],
    ]);
  });

  it("never records or emits a secret param's value", async () => {
    const { client } = await setUp({ answer: (step) => `you typed ${step.step}` });
    const login = workflow(
      { name: "login", params: z.object({ user: z.string(), password: secret(z.string()) }) },
      async ({ params, log }) => {
        await act(`type "${params.password}" into "Password"`);
        log(`logged in with ${params.password}`, { password: params.password, user: params.user });
        return ask(`did "${params.password}" work?`);
      },
    );
    const events: RunEvent[] = [];
    const record = await runWorkflow(login, { params: { user: "ann", password: "hunter2-s3cret" }, client, onEvent: (e) => events.push(e) });
    expect(record.status).toBe("succeeded");
    expect(record.params).toEqual({ user: "ann", password: "[secret]" });
    expect(record.steps[0]!.instruction).toBe('type "[secret]" into "Password"');
    const everything = JSON.stringify({ record, events });
    expect(everything).not.toContain("hunter2-s3cret");
    expect(everything).toContain("ann");
  });

  it("redacts a secret from a failed step's error too", async () => {
    const { client } = await setUp({ fail: (step) => ({ code: "WF_ELEMENT_NOT_FOUND", message: `nothing to type ${step.step} into` }) });
    const login = workflow({ name: "login", params: z.object({ pin: secret(z.number()) }) }, async ({ params }) => {
      await act(`type "${params.pin}" into "PIN"`);
    });
    const events: RunEvent[] = [];
    const record = await runWorkflow(login, { params: { pin: 987654 }, client, onEvent: (e) => events.push(e) });
    expect(record.status).toBe("failed");
    expect(record.error?.message).toContain('type \\"[secret]\\" into \\"PIN\\"');
    expect(JSON.stringify({ record, events })).not.toContain("987654");
  });

  it("fails with WF_SERVICE_PROTOCOL on a malformed answer, and still closes the session", async () => {
    const { server, client } = await setUp();
    server.fault("stepStatus", { kind: "malformed" });
    const record = await runWorkflow(prices, { client });
    expect(record.status).toBe("failed");
    expect(record.error).toMatchObject({ code: "WF_SERVICE_PROTOCOL", stepIndex: 1 });
    expect(server.openSessions()).toBe(0);
  });

  it("stops retrying on a 4xx: the run fails after one request", async () => {
    const { server, client } = await setUp();
    server.fault("run", { kind: "status", status: 409, code: "WF_SESSION_CLOSED" });
    const record = await runWorkflow(prices, { client });
    expect(record.status).toBe("failed");
    expect(record.error?.code).toBe("WF_SERVICE_ERROR");
    expect(record.error?.message).toContain(": 409 Conflict: Scripted 409. [WF_SESSION_CLOSED]");
    expect(server.requests.run).toBe(1);
    expect(server.openSessions()).toBe(0);
  });

  it("fails with WF_SERVICE_UNREACHABLE when the status route keeps dropping, and closes the session", async () => {
    const { server, client } = await setUp();
    server.fault("stepStatus", { kind: "drop-after-body" }, 5);
    const record = await runWorkflow(prices, { client });
    expect(record.status).toBe("failed");
    expect(record.error).toMatchObject({ code: "WF_SERVICE_UNREACHABLE", stepIndex: 1 });
    expect(record.error?.message).toContain("after 5 attempts");
    expect(server.openSessions()).toBe(0);
    expectNoStepTwice(server, 1);
  });

  it("throws when the session cannot be created, leaving nothing open", async () => {
    const { server, client } = await setUp();
    server.fault("create", { kind: "status", status: 401, code: "WF_UNAUTHORIZED" });
    const events: RunEvent[] = [];
    await expect(runWorkflow(prices, { client, onEvent: (e) => events.push(e) })).rejects.toMatchObject({ code: "WF_SERVICE_ERROR", status: 401 });
    expect(events).toEqual([]);
    expect(server.openSessions()).toBe(0);
  });

  it("records a handler's own error and an output that does not match the output schema", async () => {
    const { server, client } = await setUp();
    const broken = workflow({ name: "broken" }, async () => {
      await act("go to http://shop.test/");
      throw new RangeError("no rows");
    });
    const badOutput = workflow({ name: "bad-output", output: z.object({ n: z.number() }) }, async () => ({ n: "x" as unknown as number }));
    const first = await runWorkflow(broken, { client });
    expect(first.status).toBe("failed");
    expect(first.error).toEqual({ code: "WF_WORKFLOW_ERROR", message: "RangeError: no rows" });
    const second = await runWorkflow(badOutput, { client });
    expect(second.status).toBe("failed");
    expect(second.error?.code).toBe("WF_OUTPUT_INVALID");
    expect(server.openSessions()).toBe(0);
  });
});
