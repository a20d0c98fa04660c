/**
 * A small HTTP client of a running test server for the regression tests: raw calls that return
 * status, headers and parsed body, plus the step-mode calls (create, run, step, session).
 *
 * @example
 * const api = apiClient(server.url, "key");
 * const { workflowId } = await api.create();
 */
import { CreateSessionResponse, MAX_LONG_POLL_MS, ROUTES, RunStepResponse, SessionStatus, StepStatus, routePath } from "@wf/core/protocol";

/** What {@link ApiClient.call} returns. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  json: any;
}

/** Step-mode client of one server. */
export type ApiClient = ReturnType<typeof apiClient>;

/**
 * @param baseUrl - the server's URL, e.g. `http://127.0.0.1:40123`.
 * @param apiKey - sent in the `api-key` header.
 */
export function apiClient(baseUrl: string, apiKey: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { "api-key": apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, json };
  };
  return {
    call,
    /** Creates a step session; `body` is the create request (`{ screenshot: "on" }` for a picture after every step). */
    async create(body: Record<string, unknown> = {}): Promise<CreateSessionResponse> {
      const res = await call("POST", ROUTES.stepCreate, body);
      if (res.status !== 200) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.json)}`);
      return CreateSessionResponse.parse(res.json);
    },
    run(id: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<ApiResponse> {
      return call("POST", routePath(ROUTES.stepRun, { id }), body, headers);
    },
    async runOk(id: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RunStepResponse> {
      const res = await call("POST", routePath(ROUTES.stepRun, { id }), body, headers);
      if (res.status !== 200) throw new Error(`step run answered ${res.status}: ${JSON.stringify(res.json)}`);
      return RunStepResponse.parse(res.json);
    },
    /** Long-polls a step until it finished. */
    async finished(stepId: string): Promise<StepStatus> {
      for (;;) {
        const res = await call("GET", `${routePath(ROUTES.stepStatus, { stepId })}?waitMs=${MAX_LONG_POLL_MS}`);
        if (res.status !== 200) throw new Error(`step status answered ${res.status}: ${JSON.stringify(res.json)}`);
        const status = StepStatus.parse(res.json);
        if (status.status === "SUCCEEDED" || status.status === "FAILED") return status;
      }
    },
    async session(id: string, query = ""): Promise<SessionStatus> {
      const res = await call("GET", routePath(ROUTES.sessionStatus, { id }) + query);
      if (res.status !== 200) throw new Error(`session status answered ${res.status}: ${JSON.stringify(res.json)}`);
      return SessionStatus.parse(res.json);
    },
  };
}
