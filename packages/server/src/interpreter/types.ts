/**
 * The step interpreter seam: turns one ACT instruction into browser actions, or one ASK question
 * into an answer read from a page. One implementation now (the deterministic interpreter of plain
 * instructions, no model, no network); a model-backed one comes later behind the same interface.
 */
import type { Page } from "playwright-core";
import type { NormalizedStepSchema } from "@wf/core/protocol";

/** What an ACT gets. */
export interface ActContext {
  /** The session's page. */
  page: Page;
  /** The instruction, e.g. `click "Sign in"`. */
  instruction: string;
  /** Time left for the step, in ms. */
  timeoutMs: number;
  /** Aborts when the step times out or the session closes. */
  signal: AbortSignal;
}

/** What an ACT did: the step's `result` on the wire. */
export interface ActResult {
  /** The verb understood, e.g. `click`, `goto`, `fill`. */
  action: string;
  /** The element acted on, described for people: `button "Sign in"`. */
  target?: string;
  /** One line on what was done. */
  message: string;
  /** The page URL after the action. */
  url: string;
}

/** What an ASK gets. */
export interface AskContext {
  /** The page to read: the session's page, or a scratch page holding `currentDom`. */
  page: Page;
  /** The question. */
  question: string;
  /** The wanted structured output, or undefined for a text answer. */
  schema?: NormalizedStepSchema;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Interprets steps. Throws `InterpreterError` (see `../errors.ts`) when it cannot. */
export interface StepInterpreter {
  act(context: ActContext): Promise<ActResult>;
  /** Returns the answer: JSON valid against `schema.schema`, or a string when there is no schema. */
  ask(context: AskContext): Promise<unknown>;
}
