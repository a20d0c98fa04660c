/**
 * The model-backed interpreter: a model behind any OpenAI-compatible endpoint that takes the steps
 * the grammar cannot carry out (`createGrammarThenModelInterpreter`) and every ASK. Its own entry,
 * apart from `../index.ts`, because it loads the `openai` SDK: the server imports it (dynamically)
 * only when a model is configured.
 */
export { DEFAULT_MAX_PROMPT_TOKENS, HAND_OVER_FIND_MS, createGrammarThenModelInterpreter, createModelInterpreter } from "./interpreter.js";
export type { GrammarThenModelOptions, ModelInterpreterOptions } from "./interpreter.js";
export { ACT_RESPONSE_SCHEMA, ACT_SYSTEM_PROMPT, ASK_SYSTEM_PROMPT } from "./prompts.js";
export { groundedResponseSchema } from "./grounding.js";
export { createModelProvider, DEFAULT_MODEL_TIMEOUT_MS } from "./provider.js";
export type { ModelProvider, ModelProviderOptions, ResponseFormatMode } from "./provider.js";
