/**
 * A double of an OpenAI-compatible model provider, for tests: `POST /v1/chat/completions` answers
 * with whatever the test's script says for each request, `GET /v1/models` lists one model, and
 * every request is recorded (headers and parsed body) so tests can assert on what was sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A Chat Completions request as the double received it. */
export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  /** The raw body text, to grep for what must never be sent. */
  raw: string;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    temperature?: number;
    response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } };
    [key: string]: unknown;
  };
}

/** What the double answers to one request. */
export type Reply =
  /** A completion whose message content is this JSON (or text, when a string). */
  | { content: unknown; usage?: { prompt_tokens: number; completion_tokens: number }; finishReason?: string }
  /** A completion whose message is a refusal. */
  | { refusal: string }
  /** An HTTP error with an OpenAI-style error body. */
  | { status: number; message: string; headers?: Record<string, string> }
  /** Never answers (the client must time out). */
  | { hang: true };

/** Decides the reply to the `n`-th request (from 0). */
export type Script = (request: RecordedRequest, n: number) => Reply;

export interface ModelDouble {
  /** `http://127.0.0.1:<port>/v1`: the SDK's base URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replaces the script (tests set one per case). */
  script: Script;
  close(): Promise<void>;
}

export async function startModelDouble(script: Script = () => ({ status: 500, message: "no script" })): Promise<ModelDouble> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();
  const double: ModelDouble = { baseUrl: "", requests, script, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "test-model", object: "model", owned_by: "tests" }] }));
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
        return;
      }
      const request: RecordedRequest = { headers: req.headers, raw, body: JSON.parse(raw) as RecordedRequest["body"] };
      const n = requests.length;
      requests.push(request);
      const reply = double.script(request, n);
      if ("hang" in reply) {
        hanging.add(() => res.destroy());
        return;
      }
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify({ error: { message: reply.message, type: "error", code: null } }));
        return;
      }
      const message =
        "refusal" in reply
          ? { role: "assistant", content: null, refusal: reply.refusal }
          : { role: "assistant", content: typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content), refusal: null };
      const usage = "usage" in reply && reply.usage ? reply.usage : { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 20 };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: request.body.model,
          choices: [{ index: 0, message, finish_reason: "finishReason" in reply && reply.finishReason ? reply.finishReason : "stop", logprobs: null }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  double.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  double.close = async () => {
    for (const end of hanging) end();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return double;
}

/** The page text the double was sent (the user message of a step). */
export function pageOf(request: RecordedRequest): string {
  return request.body.messages.find((m) => m.role === "user")?.content ?? "";
}

/**
 * The reference of the element whose line names `text` (and `role`, when given), read from the page
 * the request carried: scripted answers take references from the request, as a model would.
 * @throws when no line names it.
 */
export function refFor(request: RecordedRequest, text: string, role?: string): string {
  const pattern = new RegExp(`\\[((?:f\\d+)?e\\d+)\\] (\\w+) "([^"]*)"`, "g");
  for (const match of pageOf(request).matchAll(pattern)) {
    if (match[3]!.includes(text) && (!role || match[2] === role)) return match[1]!;
  }
  throw new Error(`no element naming ${JSON.stringify(text)}${role ? ` (${role})` : ""} in the page sent:\n${pageOf(request).slice(0, 3000)}`);
}
