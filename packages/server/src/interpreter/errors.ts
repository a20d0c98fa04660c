/**
 * Errors of the step interpreter. One class, {@link InterpreterError}, with a stable `code` per
 * failure; the server turns it into the step's `error` (`code`, `message`) on the wire.
 */
import { WfError } from "@wf/core";
import type { QuietMark } from "./types.js";

/** The stable codes an interpreter step fails with. */
export type InterpreterErrorCode =
  /** The ACT instruction matches no pattern of the grammar. */
  | "WF_INSTRUCTION_NOT_UNDERSTOOD"
  /** No element on the page matches the instruction's target. */
  | "WF_ELEMENT_NOT_FOUND"
  /** Several elements match the target equally well and no ordinal picks one. */
  | "WF_ELEMENT_AMBIGUOUS"
  /**
   * The action's verb does not apply to the element it names (`check` on a button, `select` on a
   * text field, `fill` on a link): nothing was done to it. From a model, after one re-ask.
   */
  | "WF_ACTION_NOT_APPLICABLE"
  /**
   * The element the action names is disabled (or, for typing, read-only) and stayed so while the
   * page settled: nothing was done to it. From a model, after one re-ask.
   */
  | "WF_ELEMENT_DISABLED"
  /** An ASK could not find on the page a value a required, non-nullable field needs. */
  | "WF_ANSWER_NOT_FOUND"
  /**
   * An ASK question adds something the deterministic reader cannot apply (a filter, an ordinal, a
   * count, a "first N", a section it cannot resolve, a word no label on the page covers): answering
   * would be a guess. A model would answer it. Also a model's answer that states values the page
   * does not support, also when asked again (`details.kind: "unsupported"`, `details.fields`),
   * a model's check whose evidence is no evidence, and a grammar read of a page that kept changing
   * (`details.kind: "changing"`, decision 0071).
   */
  | "WF_ANSWER_UNCERTAIN"
  /** Going to a URL, back, forward or reloading failed. */
  | "WF_NAVIGATION_FAILED"
  /**
   * A navigation (`go to`, back, forward, reload) did not finish loading within the step's time:
   * `details.url` and `details.loadState`, how far it got (`none`: no answer from the server;
   * `response`: headers came, the page's body did not finish; `domcontentloaded`: the document was
   * read, its resources did not finish loading).
   */
  | "WF_NAVIGATION_TIMEOUT"
  /**
   * The step would open a URL the interpreter does not open: a `file:` URL without
   * `allowFileUrls`, or a scheme other than http(s), `about:blank` and `data:`.
   */
  | "WF_NAVIGATION_REFUSED"
  /** The step ran out of time (its `timeoutMs`) or was aborted. */
  | "WF_STEP_TIMEOUT"
  /** An upload named a file outside the upload root, or one that does not exist. */
  | "WF_UPLOAD_REFUSED"
  /** The model provider refused the API key (401/403), or none is set for OpenAI itself. */
  | "WF_MODEL_AUTH_FAILED"
  /** The model provider does not know the configured model (404). */
  | "WF_MODEL_NOT_FOUND"
  /**
   * The model provider kept answering 429, after the SDK's retries within the step's deadline; or a
   * 429/503 asked (`Retry-After`) for a longer wait than the step had left, and the step failed at once.
   */
  | "WF_MODEL_RATE_LIMITED"
  /** The model provider is down or unreachable (5xx, connection refused or cut), after the SDK's retries. */
  | "WF_MODEL_UNAVAILABLE"
  /**
   * The model provider did not answer in time: no request within `WF_MODEL_TIMEOUT_MS` (after the
   * SDK's retries), or not within the step's time left. The message names the provider.
   */
  | "WF_MODEL_TIMEOUT"
  /** The model provider rejected the request (400/422), e.g. a response format it does not support. */
  | "WF_MODEL_BAD_REQUEST"
  /** The model refused to answer, also when asked again; or the provider's content filter stopped its answer (not asked again). */
  | "WF_MODEL_REFUSED"
  /** The model's answer was not valid JSON for the schema, also when asked again with the errors. */
  | "WF_MODEL_ANSWER_INVALID"
  /** ACT: the model found nothing on the page that carries out the instruction (it never guesses). */
  | "WF_MODEL_NO_MATCH"
  /**
   * A replayed ACT (a lock entry) did not find exactly the element it recorded: none, several, or
   * one with another role or accessible name. Nothing was done to the element found.
   */
  | "WF_REPLAY_MISMATCH"
  /**
   * A recorded read (an ASK's read recipe from the lock) no longer applies to the page: the table,
   * label or list it reads is gone or changed shape, or what it reads does not fit the step's
   * schema. `details.lookedFor` and `details.seen` say what. No stale answer is returned.
   */
  | "WF_LOCK_STALE"
  /**
   * The step was sent with `allowModel: false` and needs the model: an ACT the grammar could not
   * carry out alone (`details.cause` holds its own failure), a check in no grammar form, or an ASK
   * on a server with a model (every ASK is the model's there). No model was called.
   */
  | "WF_MODEL_FORBIDDEN"
  /** `switch to` / `close` named a tab no open tab matches (the message lists the open tabs). */
  | "WF_TAB_NOT_FOUND"
  /** `switch to` / `close` named a tab several open tabs match equally well. */
  | "WF_TAB_AMBIGUOUS"
  /** `close this tab` on the session's only tab: a session keeps one. */
  | "WF_TAB_CLOSE_REFUSED"
  /** A check's statement did not hold within its `check.timeoutMs`; `details` has the reason and the evidence. */
  | "WF_CHECK_FAILED";

/** An element considered for a target, as listed in not-found and ambiguity errors. */
export interface ElementCandidate {
  /** ARIA role, e.g. `button`, `link`, `textbox`. */
  role: string;
  /** Accessible name (or the best text that stands for it). */
  name: string;
  /** For an element inside an iframe: which, as the grammar names it (`the "Payment" frame`). */
  frame?: string;
}

/** Context an {@link InterpreterError} may carry, beside its code and message. */
export interface InterpreterErrorDetails {
  /** For `WF_ELEMENT_NOT_FOUND`: false when the page was too large to search whole in time (other elements may match). */
  searchComplete?: boolean;
  /** For `WF_ELEMENT_NOT_FOUND` / `WF_ELEMENT_AMBIGUOUS` / `WF_ACTION_NOT_APPLICABLE` / `WF_ELEMENT_DISABLED`: the target as written in the instruction (or the element's name). */
  target?: string;
  /** For `WF_ELEMENT_NOT_FOUND`: the closest elements; for `WF_ELEMENT_AMBIGUOUS`: the equally good matches. */
  candidates?: ElementCandidate[];
  /**
   * For `WF_ANSWER_NOT_FOUND`: paths of the fields not found, e.g. `value[].price`, `title`. For a
   * model's `WF_ANSWER_UNCERTAIN` (`kind: "unsupported"`): JSON Pointers of the values the page does
   * not support, e.g. `/total`, `/0/price`.
   */
  fields?: string[];
  /** For `WF_ANSWER_UNCERTAIN`: the part of the question not applied, as written (`how many`, `first 5`). */
  part?: string;
  /**
   * For `WF_ANSWER_UNCERTAIN`: what kind of part it is; `unsupported`: a model's answer states
   * values the page does not (named in `fields`); `changing`: the page kept changing while read.
   */
  kind?: "filter" | "ordinal" | "count" | "first-n" | "section" | "unplaced" | "several-sources" | "unsupported" | "changing";
  /** For `WF_NAVIGATION_FAILED` / `WF_NAVIGATION_REFUSED` / `WF_NAVIGATION_TIMEOUT`: the URL involved. */
  url?: string;
  /** For `WF_NAVIGATION_TIMEOUT`: how far the navigation got (see the code). */
  loadState?: "none" | "response" | "domcontentloaded";
  /** For `WF_NAVIGATION_TIMEOUT`: the time it had, in ms. */
  timeoutMs?: number;
  /** For a chained ACT (`… and then …`): the 0-based index of the action that failed; the ones before it ran. */
  actionIndex?: number;
  /** For `WF_UPLOAD_REFUSED`: the path as written and as resolved. */
  path?: string;
  resolvedPath?: string;
  /** For `WF_REPLAY_MISMATCH`: the element the lock recorded, and the one found (null when none was). */
  recorded?: ElementCandidate;
  found?: ElementCandidate | null;
  /** For `WF_LOCK_STALE`: what the recorded read looked for on the page, and what the page has instead. */
  lookedFor?: string;
  seen?: string;
  /** For `WF_MODEL_FORBIDDEN`: the code and message of the grammar's (or page reader's) own failure. */
  cause?: { code: string; message: string };
  /** For `WF_CHECK_FAILED` (and a check's `WF_ANSWER_UNCERTAIN`): why the statement does not hold, as last evaluated. */
  reason?: string;
  /** For a check's failure: what was seen on the page (quoted text, the element and its state, the URL or title). */
  evidence?: string;
  /** For a check's failure: evaluations made. */
  attempts?: number;
  /** For `WF_TAB_NOT_FOUND` / `WF_TAB_AMBIGUOUS`: the open tabs (1-based `index`, `title`, `url`). */
  tabs?: Array<{ index: number; title: string; url: string }>;
}

/**
 * A step the interpreter could not carry out. Match on `code` (see {@link InterpreterErrorCode});
 * `details` holds the structured context (candidates, fields, URL, path).
 */
export class InterpreterError extends WfError {
  override name = "InterpreterError";
  declare readonly code: InterpreterErrorCode;
  readonly details: InterpreterErrorDetails;

  constructor(code: InterpreterErrorCode, message: string, details: InterpreterErrorDetails = {}, options?: { cause?: unknown }) {
    super(code, message, options);
    this.details = details;
  }
}

/**
 * A `WF_ELEMENT_NOT_FOUND` thrown before it says what the page has instead: the closest candidates,
 * the scopes and frames the page lacks, closed shadow roots. Saying so costs page reads (hundreds of
 * ms on a large page) that a policy handing the step to the model needs only when the model fails
 * too; {@link UnexplainedNotFound.explain} does them then. Thrown by the grammar's find in its
 * hand-over mode only (`locateTarget`'s `handOver`); as it stands its message names the target.
 */
export class UnexplainedNotFound extends InterpreterError {
  readonly #explain: (timeLeftMs: number) => Promise<InterpreterError>;

  /**
   * The page's DOM as the look's last settle found it quiet: the policy passes it on to the model
   * (`ActContext.settled`), whose page view then does not wait for an unchanged page again.
   */
  readonly settled?: QuietMark;

  constructor(message: string, details: InterpreterErrorDetails, explain: (timeLeftMs: number) => Promise<InterpreterError>, settled?: QuietMark) {
    super("WF_ELEMENT_NOT_FOUND", message, details);
    this.#explain = explain;
    if (settled) this.settled = settled;
  }

  /**
   * The full not-found (the grammar's own message and `details.candidates`), read from the page as
   * it is now, within `timeLeftMs` (the step's time left, in ms: the candidate search takes part of
   * it, at most 3 s). Keeps this error's `actionIndex`. Never throws: a page that cannot be read
   * leaves this error as it is.
   */
  async explain(timeLeftMs: number): Promise<InterpreterError> {
    const full = await this.#explain(timeLeftMs).catch(() => this as InterpreterError);
    if (this.details.actionIndex !== undefined) full.details.actionIndex = this.details.actionIndex;
    return full;
  }
}

/** True when `error` is an {@link InterpreterError} (also one from a second copy of this module). */
export function isInterpreterError(error: unknown): error is InterpreterError {
  return error instanceof InterpreterError || (error instanceof Error && error.name === "InterpreterError" && typeof (error as { code?: unknown }).code === "string");
}
