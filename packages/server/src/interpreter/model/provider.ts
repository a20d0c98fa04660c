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

/**
 * How the answer's shape is asked of the provider.
 * - `json_schema`: `response_format: { type: "json_schema", json_schema: { name, strict: true, schema } }`
 *   (OpenAI structured outputs; also vLLM, Ollama ≥ 0.5, LM Studio, llama.cpp's server).
 * - `json_object`: `response_format: { type: "json_object" }` with the JSON Schema written into the
 *   prompt, for endpoints that do not honour strict `json_schema`. The answer is validated either way.
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
  /** Retries the SDK makes on 408/409/429/5xx and connection errors, within the step's deadline. @default 2 */
  maxRetries?: number;
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
}

/** What one completion gave. */
export interface Completion {
  /** The message text (JSON when all went well), or null. */
  content: string | null;
  /** The model's refusal, when it refused. */
  refusal: string | null;
  /** `stop`, `length`, `content_filter`, … */
  finishReason: string | null;
  promptTokens: number;
  completionTokens: number;
  durationMs: number;
}

/** A configured provider. */
export interface ModelProvider {
  readonly model: string;
  readonly responseFormat: ResponseFormatMode;
  /**
   * Runs one completion.
   * @throws {@link InterpreterError} `WF_MODEL_AUTH_FAILED`, `WF_MODEL_NOT_FOUND`, `WF_MODEL_RATE_LIMITED`,
   *   `WF_MODEL_UNAVAILABLE`, `WF_MODEL_BAD_REQUEST`, or `WF_STEP_TIMEOUT` when the step's time ran out.
   */
  complete(request: CompletionRequest): Promise<Completion>;
}

/** The default base URL of the SDK, named in messages. */
const OPENAI_BASE_URL = "https://api.openai.com/v1";

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
  const mode = options.responseFormat ?? "json_schema";
  const temperature = options.temperature ?? 0;
  const where = baseURL ?? OPENAI_BASE_URL;
  const secretKey = options.apiKey;

  return {
    model: options.model,
    responseFormat: mode,
    async complete(request: CompletionRequest): Promise<Completion> {
      const started = performance.now();
      const response_format =
        mode === "json_schema"
          ? ({ type: "json_schema", json_schema: { name: request.schema.name, strict: true, schema: request.schema.schema } } as const)
          : ({ type: "json_object" } as const);
      try {
        const completion = await client.chat.completions.create(
          { model: options.model, messages: request.messages, temperature, response_format },
          { signal: request.signal, timeout: Math.max(1, request.timeoutMs) },
        );
        const choice = completion.choices?.[0];
        const prompt = request.messages.reduce((n, m) => n + m.content.length, 0);
        const content = choice?.message?.content ?? null;
        return {
          content,
          refusal: choice?.message?.refusal ?? null,
          finishReason: choice?.finish_reason ?? null,
          // Providers that report no usage get an estimate (4 characters a token), so no call goes uncounted.
          promptTokens: completion.usage?.prompt_tokens ?? Math.ceil(prompt / 4),
          completionTokens: completion.usage?.completion_tokens ?? Math.ceil((content ?? "").length / 4),
          durationMs: performance.now() - started,
        };
      } catch (error) {
        throw toProviderError(error, { model: options.model, where, signal: request.signal, secretKey, durationMs: performance.now() - started });
      }
    },
  };
}

/** Carries the time a failed call took, so the step's usage still counts it. */
export class ProviderCallError extends InterpreterError {
  constructor(
    code: InterpreterErrorCode,
    message: string,
    readonly durationMs: number,
    cause: unknown,
  ) {
    super(code, message, {}, { cause });
  }
}

function toProviderError(
  error: unknown,
  context: { model: string; where: string; signal: AbortSignal; secretKey: string | undefined; durationMs: number },
): InterpreterError {
  const { model, where, durationMs } = context;
  const said = scrub(error instanceof Error ? error.message : String(error), context.secretKey);
  const fail = (code: InterpreterErrorCode, message: string) => new ProviderCallError(code, message, durationMs, undefined);
  if (context.signal.aborted || error instanceof OpenAI.APIUserAbortError || error instanceof OpenAI.APIConnectionTimeoutError) {
    return fail("WF_STEP_TIMEOUT", `The model (${model} at ${where}) did not answer within the step's time. Raise the step's timeoutMs, or use a faster model.`);
  }
  if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
    return fail("WF_MODEL_AUTH_FAILED", `The model provider at ${where} refused the API key (HTTP ${error.status}). Check OPENAI_API_KEY (and OPENAI_BASE_URL). Provider said: ${said}`);
  }
  if (error instanceof OpenAI.NotFoundError) {
    return fail("WF_MODEL_NOT_FOUND", `The model provider at ${where} does not know the model ${JSON.stringify(model)} (HTTP 404). Check WF_MODEL (for Ollama, \`ollama pull ${model}\` first). Provider said: ${said}`);
  }
  if (error instanceof OpenAI.RateLimitError) {
    return fail("WF_MODEL_RATE_LIMITED", `The model provider at ${where} is rate limiting (HTTP 429), still after the SDK's retries. Wait and run again, or raise your provider's limits. Provider said: ${said}`);
  }
  if (error instanceof OpenAI.BadRequestError || error instanceof OpenAI.UnprocessableEntityError) {
    return fail(
      "WF_MODEL_BAD_REQUEST",
      `The model provider at ${where} rejected the request (HTTP ${error.status}). If it does not support strict json_schema response formats, set WF_MODEL_RESPONSE_FORMAT=json_object. Provider said: ${said}`,
    );
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof OpenAI.InternalServerError || error instanceof OpenAI.APIError) {
    const status = error instanceof OpenAI.APIError && error.status ? ` (HTTP ${error.status})` : "";
    return fail("WF_MODEL_UNAVAILABLE", `The model provider at ${where} is unavailable${status}, still after the SDK's retries. Check that it is running and reachable from the service. Provider said: ${said}`);
  }
  return fail("WF_MODEL_UNAVAILABLE", `The call to the model provider at ${where} failed: ${said}`);
}

/** Removes the API key (and anything shaped like an OpenAI key) from a provider's message. */
export function scrub(text: string, apiKey?: string): string {
  let out = apiKey && apiKey.length >= 4 ? text.split(apiKey).join("[api key]") : text;
  out = out.replace(/\bsk-[A-Za-z0-9_*.-]{4,}/g, "[api key]");
  return out.length > 300 ? out.slice(0, 299) + "…" : out;
}

/** Adds one call to a step's usage. */
export function addUsage(usage: StepUsage | undefined, model: string, call: { promptTokens: number; completionTokens: number; durationMs: number }): StepUsage {
  const u = usage ?? { model, promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, durationMs: 0 };
  u.promptTokens += call.promptTokens;
  u.completionTokens += call.completionTokens;
  u.totalTokens = u.promptTokens + u.completionTokens;
  u.calls += 1;
  u.durationMs = Math.round((u.durationMs + call.durationMs) * 10) / 10;
  return u;
}
