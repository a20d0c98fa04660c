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

/**
 * The `usage` object of a completion as a provider sends it: numbers when it behaves, and anything
 * else when it does not (`"12"`, `-1`, `12.5`, `1e300`), sent as given.
 */
export type ReplyUsage = { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; [key: string]: unknown };

/** What the double answers to one request. */
export type Reply =
  /**
   * A completion whose message content is this JSON (or text, when a string). `usage`: sent as
   * given (`total_tokens` added when both counts are numbers), `null` for none; absent: an estimate.
   * `content: null` sends a message with no content (with `finishReason`, e.g. `content_filter`).
   */
  | { content: unknown; usage?: ReplyUsage | null; finishReason?: string }
  /** A completion whose message is a refusal. */
  | { refusal: string }
  /** An HTTP error with an OpenAI-style error body (`{ error: { message, type, code } }`), or `body` as given. */
  | { status: number; message: string; headers?: Record<string, string>; body?: unknown }
  /** Never answers (the client must time out). */
  | { hang: true }
  /** Closes the connection without an answer (a reset). */
  | { reset: true }
  /**
   * Sends a 200 with its headers and the first bytes of a completion's body, then closes the
   * connection (a cut after the headers): the body never arrives whole.
   */
  | { cutAfterHeaders: true };

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
      if ("reset" in reply) {
        res.destroy();
        return;
      }
      if ("cutAfterHeaders" in reply) {
        const body = JSON.stringify({ id: `chatcmpl-${n}`, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "{}" } }] });
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
        res.write(body.slice(0, 20), () => setTimeout(() => res.destroy(), 20));
        return;
      }
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body !== undefined ? reply.body : { error: { message: reply.message, type: "error", code: null } }));
        return;
      }
      const message =
        "refusal" in reply
          ? { role: "assistant", content: null, refusal: reply.refusal }
          : { role: "assistant", content: reply.content === null ? null : typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content), refusal: null };
      const given = "usage" in reply ? reply.usage : undefined;
      const usage =
        given === null
          ? undefined
          : given === undefined
            ? { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 20 }
            : given;
      const total =
        usage && usage.total_tokens === undefined && typeof usage.prompt_tokens === "number" && typeof usage.completion_tokens === "number"
          ? { total_tokens: usage.prompt_tokens + usage.completion_tokens }
          : {};
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: request.body.model,
          choices: [{ index: 0, message, finish_reason: "finishReason" in reply && reply.finishReason ? reply.finishReason : "stop", logprobs: null }],
          ...(usage ? { usage: { ...usage, ...total } } : {}),
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

/** A quote of a grounded ASK answer: the page text a value comes from. */
export interface Quote {
  /** JSON Pointer of the value (or of an item holding it) in the answer, e.g. `/total`, `/value/0`. */
  path: string;
  quote: string;
}

/** True when the request asks for a grounded answer (`{ answer, quotes }`), as the server asks every ASK. */
export function asksForQuotes(request: RecordedRequest): boolean {
  const schema = request.body.response_format?.json_schema?.schema as { properties?: Record<string, unknown> } | undefined;
  if (schema) return !!schema.properties && "quotes" in schema.properties && "answer" in schema.properties;
  return (request.body.messages[0]?.content ?? "").includes('"quotes"');
}

/**
 * The content of an ASK reply in the form the request asks for: `{ answer, quotes }` (a grounded
 * answer), or the answer alone to a server that asks for the step's schema as it is.
 */
export function askReply(request: RecordedRequest, answer: unknown, quotes: Quote[] = []): unknown {
  return asksForQuotes(request) ? { answer, quotes } : answer;
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

/**
 * OpenAI-compatible servers as they answer a request's `response_format`, each with the status and
 * error body it sends for a format it does not take (from their code and issue trackers):
 * - `llama.cpp-old`: llama.cpp's server before json_schema support (and forks): json_schema → 400.
 * - `vllm-old`: vLLM before structured outputs: json_schema → 400, pydantic's message, in a body
 *   with no `error` object (`{ object: "error", message, … }`).
 * - `litellm-openai-old`: LiteLLM in front of an older OpenAI model: json_schema → 400, OpenAI's words.
 * - `lm-studio`: LM Studio takes json_schema and refuses json_object → 400 (`{ error: "…" }`).
 * - `ollama`: Ollama ≥ 0.5's OpenAI endpoint takes both.
 */
export type LocalServer = "llama.cpp-old" | "vllm-old" | "litellm-openai-old" | "lm-studio" | "ollama";

/** A script that answers as `server` does: its 400 for a response format it does not take, else `answer`. */
export function behaveLike(server: LocalServer, answer: Script): Script {
  return (request, n) => {
    const type = request.body.response_format?.type;
    if (type === "json_schema") {
      if (server === "llama.cpp-old") {
        const message = 'response_format type must be one of "text" or "json_object", but got: json_schema';
        return { status: 400, message, body: { error: { code: 400, message, type: "invalid_request_error" } } };
      }
      if (server === "vllm-old") {
        const message =
          "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]";
        return { status: 400, message, body: { object: "error", message, type: "BadRequestError", param: null, code: 400 } };
      }
      if (server === "litellm-openai-old") {
        const message = "litellm.BadRequestError: OpenAIException - Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.";
        return { status: 400, message, body: { error: { message, type: null, param: null, code: "400" } } };
      }
    }
    if (type === "json_object" && server === "lm-studio") {
      const message = "'response_format.type' must be 'json_schema' or 'text'";
      return { status: 400, message, body: { error: message } };
    }
    return answer(request, n);
  };
}
