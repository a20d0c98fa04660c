/**
 * The model provider: any endpoint that speaks the OpenAI Chat Completions API (OpenAI, Ollama,
 * vLLM, LM Studio, llama.cpp's server, OpenRouter, gateways), through the official `openai` SDK.
 * One call here is one completion: it measures it, and turns every provider failure into an
 * {@link InterpreterError} with a stable code and a message that says what to do, never showing
 * the API key.
 */
import OpenAI from "openai";
import type { StepUsage } from "@wf/core/protocol";
import { InterpreterError, type InterpreterErrorCode } from "../errors.js";
import { createRequestFetch, type RequestBook } from "./provider-fetch.js";

/**
 * How the answer's shape is asked of the provider.
 * - `json_schema`: `response_format: { type: "json_schema", json_schema: { name, strict: true, schema } }`
 *   (OpenAI structured outputs; also vLLM, Ollama ≥ 0.5, LM Studio, llama.cpp's server).
 * - `json_object`: `response_format: { type: "json_object" }` with the JSON Schema written into the
 *   system prompt ({@link withSchemaInPrompt}), for endpoints that do not honour strict `json_schema`.
 *   The answer is validated either way.
 */
export type ResponseFormatMode = "json_schema" | "json_object";

/** Options of {@link createModelProvider}. */
export interface ModelProviderOptions {
  /** The model, as the endpoint names it: `gpt-4.1-mini`, `qwen2.5:7b`. */
  model: string;
  /** API key. @default `OPENAI_API_KEY`; a placeholder when `baseUrl` is set (local servers need none). */
  apiKey?: string;
  /** Base URL of the endpoint, e.g. `http://127.0.0.1:11434/v1` for Ollama. @default `OPENAI_BASE_URL`, else OpenAI's */
  baseUrl?: string;
  /** @default "json_schema" */
  responseFormat?: ResponseFormatMode;
  /** Sampling temperature. @default 0 */
  temperature?: number;
  /**
   * Retries the SDK makes on 408/409/429/5xx, connection errors (a reset, a body cut after the
   * headers) and timed-out requests, within the step's deadline; each is a call in the books. @default 2
   */
  maxRetries?: number;
  /**
   * Longest wait for one HTTP request to the provider (its answer whole), in ms; each of the SDK's
   * retries gets its own. A call whose requests all exceed it fails `WF_MODEL_TIMEOUT`.
   * `WF_MODEL_TIMEOUT_MS`. @default {@link DEFAULT_MODEL_TIMEOUT_MS}
   */
  timeoutMs?: number;
  /** The prompt budget (`WF_MODEL_MAX_PROMPT_TOKENS`), named in the message of a context-length error. @default 12_000 */
  maxPromptTokens?: number;
  /**
   * Where the provider's one warning goes: that the endpoint refused strict `json_schema` and is
   * asked with `json_object` from then on. @default a `wf server: …` line on stderr
   */
  warn?: (message: string) => void;
}

/** One message of a Chat Completions request. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What one completion asks for. */
export interface CompletionRequest {
  messages: ChatMessage[];
  /** The structured output wanted: its name and JSON Schema (sent as is). */
  schema: { name: string; schema: Record<string, unknown> };
  /** Time left for the call, retries included, in ms. */
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * Called as each HTTP request of the call is sent (the SDK's retries and the `json_object`
   * fallback too), before its answer: the step's books count it even when the step ends first.
   */
  onRequest?: () => void;
}

/** What one completion gave. */
export interface Completion {
  /** The message text (JSON when all went well), or null. */
  content: string | null;
  /** The model's refusal, when it refused. */
  refusal: string | null;
  /** `stop`, `length`, `content_filter`, … */
  finishReason: string | null;
  /** As the provider reported it when that is a non-negative safe integer; else estimated (`estimated`). */
  promptTokens: number;
  completionTokens: number;
  /** True when a token count is wf's estimate (4 characters a token): the provider reported none, or a value that is not a count. */
  estimated: boolean;
  /** HTTP requests the call took (the SDK's retries and the `json_object` fallback included). */
  requests: number;
  durationMs: number;
}

/** A configured provider. */
export interface ModelProvider {
  readonly model: string;
  /** The endpoint's base URL, as messages name it. */
  readonly endpoint: string;
  /**
   * How the answer's shape is asked of this endpoint now: the configured mode, or `json_object`
   * once the endpoint answered that it does not take strict `json_schema` (see {@link rejectsJsonSchema}).
   */
  readonly responseFormat: ResponseFormatMode;
  /**
   * Runs one completion.
   * @throws {@link ProviderCallError} `WF_MODEL_AUTH_FAILED`, `WF_MODEL_NOT_FOUND`, `WF_MODEL_RATE_LIMITED`
   *   (also at once, when a `Retry-After` asks for longer than the time left), `WF_MODEL_UNAVAILABLE`,
   *   `WF_MODEL_BAD_REQUEST`, `WF_MODEL_TIMEOUT` (no answer within `timeoutMs`, or within the call's
   *   time left), or `WF_STEP_TIMEOUT` when the step was aborted.
   */
  complete(request: CompletionRequest): Promise<Completion>;
}

/** The default base URL of the SDK, named in messages. */
const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Default longest wait for one HTTP request to the provider, in ms (`WF_MODEL_TIMEOUT_MS`). */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

/**
 * Creates the provider client. Nothing is sent until the first step.
 * @throws {@link InterpreterError} `WF_MODEL_AUTH_FAILED` when no API key is set for OpenAI itself.
 */
export function createModelProvider(options: ModelProviderOptions): ModelProvider {
  const baseURL = options.baseUrl || undefined;
  const apiKey = options.apiKey || (baseURL ? "wf-no-key" : undefined);
  if (!apiKey) {
    throw new InterpreterError(
      "WF_MODEL_AUTH_FAILED",
      `A model is configured (${options.model}) but no API key: set OPENAI_API_KEY, or OPENAI_BASE_URL for an endpoint that needs none (e.g. a local Ollama at http://127.0.0.1:11434/v1).`,
    );
  }
  const client = new OpenAI({ apiKey, baseURL, maxRetries: options.maxRetries ?? 2 });
  // One provider is one endpoint (base URL + model), built once per server: what it learns about the
  // endpoint lasts as long as the server, and a server started later in the same process asks again.
  let mode: ResponseFormatMode = options.responseFormat ?? "json_schema";
  let warned = false;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`wf server: ${message}\n`));
  const temperature = options.temperature ?? 0;
  const where = baseURL ?? OPENAI_BASE_URL;
  const secretKey = options.apiKey;
  const requestTimeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const context = { model: options.model, where, secretKey, requestTimeoutMs, maxPromptTokens: options.maxPromptTokens ?? 12_000 };

  return {
    model: options.model,
    endpoint: where,
    get responseFormat() {
      return mode;
    },
    async complete(request: CompletionRequest): Promise<Completion> {
      const started = performance.now();
      const deadline = started + request.timeoutMs;
      const book: RequestBook = { requests: 0 };
      // The SDK's own loop retries; this client's fetch counts each request and adds what the loop lacks.
      const calls = client.withOptions({ fetch: createRequestFetch({ deadline, book, onRequest: request.onRequest ?? (() => undefined) }) });
      // The call ends at the step's time left: an abort, which the SDK never retries.
      const timeLeft = new AbortController();
      const timer = setTimeout(() => timeLeft.abort(), Math.max(1, request.timeoutMs));
      const signal = AbortSignal.any([request.signal, timeLeft.signal]);
      const send = (format: ResponseFormatMode) => {
        const messages = format === "json_object" ? withSchemaInPrompt(request.messages, request.schema.schema) : request.messages;
        const response_format =
          format === "json_schema"
            ? ({ type: "json_schema", json_schema: { name: request.schema.name, strict: true, schema: request.schema.schema } } as const)
            : ({ type: "json_object" } as const);
        const left = Math.max(1, Math.round(deadline - performance.now()));
        // Each request waits at most requestTimeoutMs (the SDK's per-request timeout, retried as it
        // retries a reset); when the time left is shorter, the abort above ends the call first.
        const timeout = requestTimeoutMs < left ? requestTimeoutMs : left + 1_000;
        return calls.chat.completions.create({ model: options.model, messages, temperature, response_format }, { signal, timeout }).then((completion) => ({ completion, messages }));
      };
      try {
        const sentAs = mode;
        const { completion, messages } = await send(sentAs).catch((error: unknown) => {
          if (sentAs !== "json_schema" || signal.aborted || !rejectsJsonSchema(error)) throw error;
          // The endpoint does not take strict json_schema: ask this once more as json_object, and
          // so from now on, for every step (said once in the log).
          mode = "json_object";
          if (!warned) {
            warned = true;
            warn(
              `The model endpoint ${where} (model ${options.model}) does not accept strict json_schema response formats ` +
                `(it said: ${scrub(errorText(error), secretKey)}); asking it with json_object and the schema in the prompt from now on, ` +
                `answers still validated against the schema. Set WF_MODEL_RESPONSE_FORMAT=json_object to start that way.`,
            );
          }
          return send("json_object");
        });
        const choice = completion.choices?.[0];
        const content = choice?.message?.content ?? null;
        // The provider's numbers are data from outside: a count is a non-negative safe integer, and
        // anything else (a string, -1, 12.5, 1e300, none) is estimated at 4 characters a token.
        const reported = completion.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined;
        const promptTokens = tokenCount(reported?.prompt_tokens);
        const completionTokens = tokenCount(reported?.completion_tokens);
        return {
          content,
          refusal: choice?.message?.refusal ?? null,
          finishReason: choice?.finish_reason ?? null,
          promptTokens: promptTokens ?? Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4),
          completionTokens: completionTokens ?? Math.ceil((content ?? "").length / 4),
          estimated: promptTokens === undefined || completionTokens === undefined,
          requests: book.requests,
          durationMs: performance.now() - started,
        };
      } catch (error) {
        throw toProviderError(error, { ...context, mode, book, stepSignal: request.signal, timeLeft: timeLeft.signal, durationMs: performance.now() - started });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A token count the provider reported, when it is one: a non-negative safe integer. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The words that ask for a JSON answer valid against `schema`, as {@link withSchemaInPrompt} writes them. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return `Reply with one JSON object (no prose, no code fence) that is valid against this JSON Schema:\n${JSON.stringify(schema)}`;
}

/**
 * The messages of a `json_object` request: the schema's instruction ({@link schemaInstruction})
 * appended to the system message (a system message of its own first when there is none), so it
 * holds for every turn of the conversation, retries included.
 */
export function withSchemaInPrompt(messages: ChatMessage[], schema: Record<string, unknown>): ChatMessage[] {
  const instruction = schemaInstruction(schema);
  const system = messages.findIndex((m) => m.role === "system");
  if (system < 0) return [{ role: "system", content: instruction }, ...messages];
  return messages.map((m, i) => (i === system ? { ...m, content: `${m.content}\n\n${instruction}` } : m));
}

/**
 * True when a provider's error says that it does not take a strict `json_schema` response format
 * (and would take `json_object`), in the words the common OpenAI-compatible servers use:
 * - OpenAI and Azure OpenAI for older models, and gateways passing them on (LiteLLM's
 *   `OpenAIException - …`): `Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.`
 * - llama.cpp's server before json_schema (and forks such as ik_llama.cpp; HTTP 400, or 500 from
 *   older builds): `response_format type must be one of "text" or "json_object", but got: json_schema`
 * - vLLM before structured outputs (pydantic, 400; its error body has no `error` object): `Input should be 'text' or 'json_object'`
 * - other gateways: "invalid value: json_schema, supported values are: json_object and text",
 *   "response_format json_schema is not supported", "This response_format type is unavailable now",
 *   "strict … is not supported".
 * Not: a schema the endpoint finds invalid (`Invalid schema for response_format …`: the schema is
 * the problem, not the mode), a context-length or any other 400, a gateway that takes no
 * `response_format` at all (`does not support parameters: ['response_format']`: json_object would
 * fail the same way), or LM Studio's `'response_format.type' must be 'json_schema' or 'text'`
 * (it takes json_schema; it refuses json_object).
 */
export function rejectsJsonSchema(error: unknown): boolean {
  if (!(error instanceof OpenAI.APIError) || ![400, 422, 500].includes(error.status as number)) return false;
  const text = errorText(error).toLowerCase();
  if (/invalid schema|does not support parameters|context length|context window|maximum context|context size|too many tokens/.test(text)) return false;
  if (TYPES_WITHOUT_JSON_SCHEMA.test(text)) return true;
  if (/json_schema[^.]{0,40}?(?:not supported|unsupported|not available|unavailable)/.test(text)) return true;
  if (/response_format(?:\.type| type)?[^.]{0,20}?(?:is )?(?:not supported|unsupported|not available|unavailable)/.test(text) && !/json_object/.test(text)) return true;
  return /\bstrict\b[^.]{0,40}?(?:not supported|unsupported)/.test(text) && /json_schema|response_format/.test(text);
}

/** A list of the response format types an endpoint takes that has `text` and `json_object`, and not `json_schema`. */
const TYPES_WITHOUT_JSON_SCHEMA = (() => {
  const q = `['"\`]?`;
  const type = `${q}(?:text|json_object)${q}`;
  return new RegExp(`(?:must be(?: one of)?|should be|supported values are|expected|allowed(?: values)?(?: are)?)\\s*:?\\s*${type}\\s*(?:,|or|and)\\s*${type}(?!\\s*(?:,|or|and)\\s*${q}json_schema)`);
})();

/** The provider's own words of an SDK error: its `error` body's message, else the SDK's message. */
function errorText(error: unknown): string {
  if (error instanceof OpenAI.APIError) {
    const body = error.error as { message?: unknown } | undefined;
    if (body && typeof body.message === "string") return body.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A failed call: its code and message, and what it cost (time, requests) for the step's books. */
export class ProviderCallError extends InterpreterError {
  constructor(
    code: InterpreterErrorCode,
    message: string,
    /** Time the call took, in ms. */
    readonly durationMs: number,
    /** HTTP requests it sent. */
    readonly requests: number,
    cause: unknown,
  ) {
    super(code, message, {}, { cause });
  }
}

/** Words of a provider's 400 that says the prompt is longer than the model's context (OpenAI, Azure, vLLM, llama.cpp, Ollama, LiteLLM). */
const CONTEXT_LENGTH = /context[_ ]length|context window|maximum context|context size|too many tokens|prompt is too long|exceeds? (?:the )?(?:available |model's )?context|input (?:is )?too long/i;

interface ErrorContext {
  model: string;
  where: string;
  mode: ResponseFormatMode;
  secretKey: string | undefined;
  /** The per-request timeout, in ms. */
  requestTimeoutMs: number;
  maxPromptTokens: number;
  book: RequestBook;
  /** The step's own signal (an abort there is the step's end). */
  stepSignal: AbortSignal;
  /** Aborted when the call's time left ran out. */
  timeLeft: AbortSignal;
  durationMs: number;
}

function toProviderError(error: unknown, context: ErrorContext): InterpreterError {
  const { model, where, durationMs, book } = context;
  const said = scrub(errorText(error), context.secretKey);
  const fail = (code: InterpreterErrorCode, message: string) => new ProviderCallError(code, message, durationMs, book.requests, error);
  const requests = `${book.requests} request${book.requests === 1 ? "" : "s"}`;
  if (context.stepSignal.aborted) {
    return fail("WF_STEP_TIMEOUT", `The step ended (its time ran out, or it was aborted) while the model provider at ${where} (model ${model}) had not answered. Raise the step's timeoutMs, or use a faster model.`);
  }
  if (context.timeLeft.aborted || error instanceof OpenAI.APIUserAbortError) {
    return fail("WF_MODEL_TIMEOUT", `The model provider at ${where} (model ${model}) did not answer within the ${Math.round(durationMs)} ms the step had left (${requests}). Raise the step's timeoutMs, or use a faster model or endpoint.`);
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return fail(
      "WF_MODEL_TIMEOUT",
      `The model provider at ${where} (model ${model}) did not answer any of ${requests} within ${context.requestTimeoutMs} ms each (WF_MODEL_TIMEOUT_MS; the SDK retries a timed-out request). Check that it is running and not overloaded, use a faster model, or raise WF_MODEL_TIMEOUT_MS.`,
    );
  }
  if (error instanceof OpenAI.APIError && book.refusedWaitMs !== undefined && error.status === book.refusedStatus) {
    const wait = `${Math.ceil(book.refusedWaitMs / 1_000)} s`;
    const left = `${Math.floor((book.leftWhenRefusedMs ?? 0) / 1_000)} s`;
    const code = error.status === 429 || error.status === 503 ? "WF_MODEL_RATE_LIMITED" : error.status && error.status >= 500 ? "WF_MODEL_UNAVAILABLE" : "WF_MODEL_RATE_LIMITED";
    return fail(
      code,
      `The model provider at ${where} answered HTTP ${error.status} and asked to wait ${wait} before the next request (Retry-After), longer than the ${left} the step had left: not waited. Run the step again later, raise its timeoutMs, or raise your provider's limits. Provider said: ${said}`,
    );
  }
  if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
    return fail("WF_MODEL_AUTH_FAILED", `The model provider at ${where} refused the API key (HTTP ${error.status}). Check OPENAI_API_KEY (and OPENAI_BASE_URL). Provider said: ${said}`);
  }
  if (error instanceof OpenAI.NotFoundError) {
    return fail("WF_MODEL_NOT_FOUND", `The model provider at ${where} does not know the model ${JSON.stringify(model)} (HTTP 404). Check WF_MODEL (for Ollama, \`ollama pull ${model}\` first). Provider said: ${said}`);
  }
  if (error instanceof OpenAI.RateLimitError) {
    return fail("WF_MODEL_RATE_LIMITED", `The model provider at ${where} is rate limiting (HTTP 429), still after the SDK's retries (${requests}). Wait and run again, or raise your provider's limits. Provider said: ${said}`);
  }
  if (error instanceof OpenAI.BadRequestError || error instanceof OpenAI.UnprocessableEntityError) {
    const code = (error.error as { code?: unknown } | undefined)?.code;
    const hint =
      CONTEXT_LENGTH.test(said) || code === "context_length_exceeded"
        ? ` The prompt is longer than the model's context: lower WF_MODEL_MAX_PROMPT_TOKENS (now ${context.maxPromptTokens}) below the model's context length (the page is then reduced to fit), or use a model with a longer context.`
        : context.mode === "json_object"
          ? /json_schema/i.test(said)
            ? " It seems to want json_schema response formats: unset WF_MODEL_RESPONSE_FORMAT (json_schema is the default)."
            : ""
          : " If it does not support strict json_schema response formats (in words wf does not recognise), set WF_MODEL_RESPONSE_FORMAT=json_object.";
    return fail("WF_MODEL_BAD_REQUEST", `The model provider at ${where} rejected the request (HTTP ${error.status}).${hint} Provider said: ${said}`);
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof OpenAI.InternalServerError || error instanceof OpenAI.APIError) {
    const status = error instanceof OpenAI.APIError && error.status ? ` (HTTP ${error.status})` : "";
    const cause = error instanceof OpenAI.APIConnectionError && error.cause instanceof Error ? `: ${scrub(connectionCause(error.cause), context.secretKey)}` : "";
    return fail(
      "WF_MODEL_UNAVAILABLE",
      `The model provider at ${where} is unavailable${status}, still after the SDK's retries (${requests}). Check that it is running and reachable from the service. Provider said: ${said}${cause}`,
    );
  }
  return fail("WF_MODEL_UNAVAILABLE", `The call to the model provider at ${where} failed: ${said}`);
}

/** The innermost message of a connection error (`fetch failed` → `other side closed`, `ECONNREFUSED`). */
function connectionCause(error: Error): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const code = (inner as { code?: unknown }).code;
  return `${(inner as Error).message}${typeof code === "string" && !(inner as Error).message.includes(code) ? ` (${code})` : ""}`;
}

/** Removes the API key (and anything shaped like an OpenAI key) from a provider's message. */
export function scrub(text: string, apiKey?: string): string {
  let out = apiKey && apiKey.length >= 4 ? text.split(apiKey).join("[api key]") : text;
  out = out.replace(/\bsk-[A-Za-z0-9_*.-]{4,}/g, "[api key]");
  return out.length > 300 ? out.slice(0, 299) + "…" : out;
}

/** What one entry of a step's books adds: requests sent, tokens, time waited. */
export interface UsageEntry {
  /** HTTP requests sent. @default 0 */
  calls?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** In ms. */
  durationMs?: number;
  /** Some token count of the entry is an estimate. */
  estimated?: boolean;
}

/** Adds an entry to a step's usage (created at the first), and returns it. */
export function addUsage(usage: StepUsage | undefined, model: string, entry: UsageEntry): StepUsage {
  const u = usage ?? { model, promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, durationMs: 0 };
  u.calls += entry.calls ?? 0;
  u.promptTokens += entry.promptTokens ?? 0;
  u.completionTokens += entry.completionTokens ?? 0;
  u.totalTokens = u.promptTokens + u.completionTokens;
  u.durationMs = Math.round((u.durationMs + (entry.durationMs ?? 0)) * 10) / 10;
  if (entry.estimated) u.estimated = true;
  return u;
}
