/**
 * What the server benches share: the median of their samples, and a client of the step protocol
 * made of plain `fetch` calls (the benches measure the server as any HTTP client meets it, so they
 * don't go through `@wf/runtime`).
 */
import { randomUUID } from "node:crypto";
import { IDEMPOTENCY_KEY_HEADER, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, StepStatus, routePath } from "@wf/core/protocol";

/** The median of `values` (the mean of the middle two for an even count); `NaN` for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A client of the server at `baseUrl` with `apiKey`:
 * - `call(method, path, body?)`: one request; resolves with the parsed JSON answer;
 * - `runToEnd(sessionId, body, options?)`: submits a step (`ROUTES.stepRun`, body `{ type, step, … }`)
 *   with a fresh `Idempotency-Key` (`{ idempotencyKey: false }`: none), asking the answer to wait
 *   for its end (`?waitMs=` `MAX_LONG_POLL_MS`), as `@wf/runtime` does, and long-polls its status
 *   while it has not ended.
 * @throws Error naming the method, path, status and answer of a request that is not 2xx, or the
 *   step, code and message of a step that FAILED.
 */
export function benchClient(baseUrl: string, apiKey: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { "api-key": apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<unknown>;
  };
  const runToEnd = async (sessionId: string, body: { type: string; step: string } & Record<string, unknown>, options: { idempotencyKey?: boolean } = {}): Promise<StepStatus> => {
    const headers: Record<string, string> = options.idempotencyKey === false ? {} : { [IDEMPOTENCY_KEY_HEADER]: randomUUID() };
    const { stepId, stepStatus } = RunStepResponse.parse(await call("POST", `${routePath(ROUTES.stepRun, { id: sessionId })}?waitMs=${MAX_LONG_POLL_MS}`, body, headers));
    for (let answered = stepStatus; ; answered = undefined) {
      const status = answered ?? StepStatus.parse(await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`));
      if (status.status === "FAILED") throw new Error(`step ${body.step} failed: ${status.error?.code} ${status.error?.message}`);
      if (status.status === "SUCCEEDED") return status;
    }
  };
  return { call, runToEnd };
}
