import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { Agent, request } from "undici";
import { isWfError } from "@wf/core";
import { createServiceClient, ServiceError, type ServiceClient } from "../src/index.js";
import { startFaultServer, type FaultServer } from "./helpers/fault-server.js";

const FAST_RETRY = { retries: 4, minDelayMs: 5, maxDelayMs: 20 };

async function caught(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe("service client against the fault server", () => {
  let server: FaultServer;
  let client: ServiceClient;

  beforeAll(async () => {
    server = await startFaultServer({ apiKey: "k-123", stepDurationMs: 5 });
    client = createServiceClient({ baseUrl: server.baseUrl, apiKey: "k-123", retry: FAST_RETRY, requestTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("sends the api-key and validates the answer", async () => {
    expect(await client.health()).toEqual({ status: "ok", version: "fault-server" });
  });

  it("does not retry a 401 and reads its problem details", async () => {
    const wrong = createServiceClient({ baseUrl: server.baseUrl, apiKey: "nope", retry: FAST_RETRY });
    const before = server.requests.health;
    const error = await caught(wrong.health());
    await wrong.close();
    expect(server.requests.health - before).toBe(1);
    expect(error.code).toBe("WF_SERVICE_ERROR");
    expect(error.status).toBe(401);
    expect(error.problem?.code).toBe("WF_UNAUTHORIZED");
    expect(error.message).toBe(`[GET] "${server.baseUrl}/apis/request/health": 401 Unauthorized: Missing or wrong api-key header. [WF_UNAUTHORIZED]`);
    expect(isWfError(error)).toBe(true);
  });

  it("retries 503 with Retry-After (seconds and HTTP date) and 429, then succeeds", async () => {
    const before = server.requests.health;
    server.fault("health", { kind: "status", status: 503, retryAfter: "0", code: "WF_BROWSER_UNAVAILABLE" });
    server.fault("health", { kind: "status", status: 503, retryAfter: new Date(Date.now() - 1000).toUTCString() });
    server.fault("health", { kind: "status", status: 429, code: "WF_TOO_MANY_SESSIONS" });
    expect((await client.health()).status).toBe("ok");
    expect(server.requests.health - before).toBe(4);
  });

  it("gives up after the retries with the last 503 as a service error", async () => {
    const before = server.requests.health;
    server.fault("health", { kind: "status", status: 503, retryAfter: "0", code: "WF_BROWSER_UNAVAILABLE" }, 5);
    const error = await caught(client.health());
    expect(server.requests.health - before).toBe(5);
    expect(error.code).toBe("WF_SERVICE_ERROR");
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(5);
    expect(error.problem?.code).toBe("WF_BROWSER_UNAVAILABLE");
  });

  it("does not wait for a Retry-After longer than maxRetryAfterMs", async () => {
    const before = server.requests.health;
    server.fault("health", { kind: "status", status: 503, retryAfter: "3600" });
    const error = await caught(client.health());
    expect(server.requests.health - before).toBe(1);
    expect(error.status).toBe(503);
  });

  it("never retries a 422 and formats its field errors like ofetch", async () => {
    const { workflowId } = await client.createSession();
    const before = server.requests.run;
    const error = await caught(client.runStep(workflowId, { step: "click", type: "CLICK" as "ACT" }));
    expect(server.requests.run - before).toBe(1);
    expect(error.message).toBe(
      `[POST] "${server.baseUrl}/apis/request/workflow/step/run/${workflowId}": 422 Unprocessable Entity: /type must be ACT or ASK [WF_VALIDATION_FAILED]`,
    );
    expect(error.problem?.errors).toEqual([{ path: "/type", message: "must be ACT or ASK" }]);
    await client.closeSession(workflowId);
  });

  it("retries a step run whose answer was lost, with the same idempotency key: the step runs once", async () => {
    const { workflowId } = await client.createSession();
    server.fault("run", { kind: "drop-after-body" });
    const started = await client.runStep(workflowId, { step: "click \"Go\"", type: "ACT" }, { idempotencyKey: "key-dropped" });
    expect(server.runKeys.filter((k) => k === "key-dropped")).toHaveLength(2);
    expect(server.executions.get("key-dropped")).toBe(1);
    const status = await client.getStepStatus(started.stepId, { waitMs: 5_000 });
    expect(status.status).toBe("SUCCEEDED");
    await client.closeSession(workflowId);
  });

  it("retries a step run that timed out, and a dropped connection before the body", async () => {
    const slowClient = createServiceClient({ baseUrl: server.baseUrl, apiKey: "k-123", retry: FAST_RETRY, requestTimeoutMs: 150 });
    const { workflowId } = await slowClient.createSession();
    const before = server.requests.run;
    server.fault("run", { kind: "slow", delayMs: 600 });
    server.fault("run", { kind: "drop-before-body" });
    await slowClient.runStep(workflowId, { step: "scroll down", type: "ACT" }, { idempotencyKey: "key-slow" });
    expect(server.requests.run - before).toBe(3);
    // The dropped request never reached processing; the slow one and the last both carried the key.
    expect(server.runKeys.filter((k) => k === "key-slow")).toHaveLength(2);
    expect(server.executions.get("key-slow")).toBe(1);
    await slowClient.closeSession(workflowId);
    await slowClient.close();
  });

  it("does not retry createSession once the service may have received it", async () => {
    const created = server.created();
    const before = server.requests.create;
    server.fault("create", { kind: "drop-before-body" });
    const error = await caught(client.createSession());
    expect(error.code).toBe("WF_SERVICE_UNREACHABLE");
    expect(error.message).toContain("not retried");
    expect(server.requests.create - before).toBe(1);
    expect(server.created()).toBe(created);
  });

  it("retries createSession on 503 and 429: the service refused it, so no session leaks", async () => {
    const created = server.created();
    server.fault("create", { kind: "status", status: 503, retryAfter: "0" });
    server.fault("create", { kind: "status", status: 429, retryAfter: "0" });
    const session = await client.createSession();
    expect(server.created() - created).toBe(1);
    await client.closeSession(session.workflowId);
  });

  it("reports a body that is not JSON, or not the protocol's shape, as WF_SERVICE_PROTOCOL", async () => {
    server.fault("health", { kind: "malformed" });
    const notJson = await caught(client.health());
    expect(notJson.code).toBe("WF_SERVICE_PROTOCOL");
    expect(notJson.message).toContain("200 OK: the body is not JSON");
    server.fault("health", { kind: "malformed", body: '{"status":"ok"}' });
    const wrongShape = await caught(client.health());
    expect(wrongShape.code).toBe("WF_SERVICE_PROTOCOL");
    expect(wrongShape.message).toContain("/version");
  });

  it("long-polls a step's status", async () => {
    const { workflowId } = await client.createSession();
    const { stepId } = await client.runStep(workflowId, { step: "how many rows?", type: "ASK" });
    const status = await client.getStepStatus(stepId, { waitMs: 5_000 });
    expect(status).toMatchObject({ stepId, status: "SUCCEEDED", result: "answer to how many rows?" });
    const session = await client.getSessionStatus(workflowId);
    expect(session.steps).toHaveLength(1);
    const closed = await client.closeSession(workflowId);
    expect(closed.status).toBe("SUCCEEDED");
  });

  it("sends through an injected dispatcher and leaves it open on close()", async () => {
    const agent = new Agent();
    const injected = createServiceClient({ baseUrl: `${server.baseUrl}/`, apiKey: "k-123", dispatcher: agent });
    expect(injected.baseUrl).toBe(server.baseUrl);
    expect((await injected.health()).status).toBe("ok");
    await injected.close();
    const response = await request(`${server.baseUrl}/apis/request/health`, { dispatcher: agent, headers: { "api-key": "k-123" } });
    expect(await response.body.json()).toMatchObject({ status: "ok" });
    await agent.close();
  });

  it("stops a call (and its retries) when its signal aborts", async () => {
    server.fault("health", { kind: "slow", delayMs: 1_000 });
    const controller = new AbortController();
    const pending = client.health({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 50);
    await expect(pending).rejects.toMatchObject({ code: "WF_ABORTED" });
  });
});

describe("service client without a service", () => {
  it("retries a refused connection, then reports the service unreachable", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, retry: FAST_RETRY });
    // Refused proves the request was never sent: even createSession is retried.
    const error = await caught(client.createSession());
    await client.close();
    expect(error.code).toBe("WF_SERVICE_UNREACHABLE");
    expect(error.attempts).toBe(5);
    expect(error.message).toContain(`[POST] "http://127.0.0.1:${port}/apis/request/workflow/step/create": `);
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).toContain("after 5 attempts");
  });

  it("rejects a base URL that is not http(s)", () => {
    expect(() => createServiceClient({ baseUrl: "ftp://x" })).toThrow(TypeError);
    expect(() => createServiceClient({ baseUrl: "not a url" })).toThrow(/not a URL/);
  });
});
