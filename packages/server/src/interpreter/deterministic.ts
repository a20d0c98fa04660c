/**
 * The deterministic step interpreter: plain instructions, no model, no network. ACT parses the
 * instruction with the grammar (`grammar/`) and drives the page with Playwright; ASK waits for the
 * page to settle (`page/settle.ts`), reads it (`read/page-read.ts`: in part first, whole when the
 * part cannot settle the answer), builds the answer with `read/answer.ts`, and reads again while a
 * page that still changes has not (yet) shown it; checks are `check/`.
 */import path from "node:path";
import { z } from "zod";
import { redactText } from "@wf/core";
import { InterpreterError } from "./errors.js";
import { parseInstructions } from "./grammar/index.js";
import { answerFromPage, answerTextFromPage, NeedsFullRead, readPage } from "./read/index.js";
import { DEFAULT_SETTLE_TIMEOUT_MS, QUIET_MS, domQuietAndStamp, domQuietForMs, domStamp, isNavigationRace, recordSettle, settleBeforeRead, waitForDomChange, type DomStamp, type PageData } from "./page/index.js";
import type { Page } from "playwright-core";
import { isFileUrl, leaveRefusedPage, performAction, type ActionDone } from "./act/index.js";
import { words } from "./_text.js";
import type { ActContext, ActResult, AskContext, StepInterpreter } from "./types.js";
import { StepClock } from "./_clock.js";
import { grammarCheck } from "./check/index.js";


/** Options of {@link createDeterministicInterpreter}; all optional. */
export interface DeterministicInterpreterOptions {
  /**
   * Directory that `upload "path" to "field"` resolves paths against; a path that resolves
   * outside it (also through a symlink) is refused with `WF_UPLOAD_REFUSED`. @default process.cwd()
   */
  uploadRoot?: string;
  /**
   * How long an ACT waits for its target element to appear before failing with
   * `WF_ELEMENT_NOT_FOUND`, and an ASK reads again a page that still changes before failing with
   * `WF_ANSWER_NOT_FOUND`/`WF_ANSWER_UNCERTAIN`, in ms; capped by the step's time left, and less on
   * a page that has stopped changing. @default 5_000
   */
  findTimeoutMs?: number;
  /**
   * Whether steps may open local files (`file:` URLs): `go to "file:///…"`, and a click (or any
   * action) that lands on a `file:` page. When false, such a step fails with
   * `WF_NAVIGATION_REFUSED`; a server that others reach must not read its own disk for them.
   * `wf run`'s embedded server turns it on (the examples read the PostgreSQL docs from disk).
   * Whatever this says, `go to` opens only http(s), `about:blank`, `data:` (and `file:` when allowed).
   * @default false
   */
  allowFileUrls?: boolean;
}

/**
 * Creates the deterministic interpreter.
 *
 * @example
 * const interpreter = createDeterministicInterpreter({ uploadRoot: "/srv/uploads" });
 * await interpreter.act({ page, instruction: 'click "Sign in"', timeoutMs: 30_000, signal });
 * @throws (from `act`/`ask`) {@link InterpreterError} with codes `WF_INSTRUCTION_NOT_UNDERSTOOD`,
 *   `WF_ELEMENT_NOT_FOUND`, `WF_ELEMENT_AMBIGUOUS`, `WF_ANSWER_NOT_FOUND`, `WF_ANSWER_UNCERTAIN`, `WF_NAVIGATION_FAILED`,
 *   `WF_NAVIGATION_REFUSED`, `WF_STEP_TIMEOUT`, `WF_UPLOAD_REFUSED`.
 */
export function createDeterministicInterpreter(options: DeterministicInterpreterOptions = {}): StepInterpreter {
  const uploadRoot = path.resolve(options.uploadRoot ?? process.cwd());
  const findTimeoutMs = options.findTimeoutMs ?? 5_000;
  const allowFileUrls = options.allowFileUrls ?? false;

  return {
    async act(context: ActContext): Promise<ActResult> {
      context.report.interpreter = "grammar";
      const actions = parseInstructions(context.instruction);
      context.report.resolved = context.instruction;
      const clock = new StepClock(context.timeoutMs, context.signal);
      const done = await clock.guard(async () => {
        const results: ActionDone[] = [];
        for (const [index, action] of actions.entries()) {
          const findMs = index === 0 ? Math.min(findTimeoutMs, context.firstFindTimeoutMs ?? Infinity) : findTimeoutMs;
          const handOver = index === 0 && context.handOver ? { handOver: { settleCapMs: context.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS } } : {};
          results.push(
            await performAction(context.page, action, clock, {
              uploadRoot,
              findTimeoutMs: findMs,
              allowFileUrls,
              ...handOver,
              ...(context.tabs ? { tabs: context.tabs } : {}),
              ...(context.uploads ? { uploads: context.uploads } : {}),
            }).catch((error: unknown) => {
              // Says how far a chained instruction got: a policy may only hand over a step nothing has changed yet.
              if (error instanceof InterpreterError && actions.length > 1) error.details.actionIndex = index;
              throw error;
            }),
          );
          // Whatever navigated (a link, Enter in a form, the page's own script), a refused local file is not left open.
          if (!allowFileUrls && isFileUrl(context.page.url())) await leaveRefusedPage(context.page, clock);
        }
        return results;
      });
      // A chained instruction reports its last action, and every action's message.
      const last = done[done.length - 1]!;
      return { ...last, message: done.map((d) => d.message).join("; "), url: context.page.url() };
    },

    async ask(context: AskContext): Promise<unknown> {
      context.report.interpreter = "grammar";
      const clock = new StepClock(context.timeoutMs, context.signal);
      return clock.guard(async () => {
        const { page } = context;
        const settleMs = context.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS;
        // A settle that reached its cap: the page does not settle, so later reads do not wait for it again.
        let capped = false;
        // Whether the page changed during the step: then an answer waits for it to stay quiet.
        let changing = false;
        const settle = async () => {
          if (capped) return;
          const outcome = await settleBeforeRead(page, settleMs, { withinMs: clock.left() / 2 });
          capped = outcome.capReached;
          changing ||= outcome.waited || outcome.capReached;
          recordSettle(context.report, outcome);
        };
        const read = async (partial: boolean) => {
          await page.waitForLoadState("domcontentloaded", { timeout: clock.left() }).catch(() => undefined);
          // An answer without a schema may be a heading's section or a dialog's text: read those too.
          return readPage(page, { partial, ...(context.schema ? {} : { sections: true }) });
        };
        // A page still navigating destroys the evaluation's context; read again once it has loaded.
        const readOnce = (partial: boolean) => read(partial).catch((error: unknown) => (isNavigationRace(error) ? read(partial) : Promise.reject(error)));
        let seen: PageData | undefined;
        const answer = (data: PageData) => {
          seen = data;
          if (!context.schema) return answerTextFromPage(data, context.question);
          const value = answerFromPage(data, context.question, context.schema.schema);
          checkAnswer(value, context.schema.schema);
          return value;
        };
        const answerNow = async () => {
          // Most answers need only part of what the page shows (read/page-read.ts); any answer the partial
          // read cannot settle, and every failure, is given from a full read of the page instead.
          try {
            return answer(await readOnce(true));
          } catch (error) {
            if (!(error instanceof NeedsFullRead || error instanceof InterpreterError)) throw error;
          }
          return answer(await readOnce(false));
        };
        const started = Date.now();
        // As an ACT waits for its target: at most the find timeout, less on a page that stopped changing.
        const retryUntil = started + findTimeoutMs;
        let reads = 0;
        // The answer read last from a changing page, and when it was first read so.
        let candidate: { json: string; since: number } | undefined;
        try {
          await settle();
          // A page that changed within QUIET_MS (a click's re-render, rows between two batches) may
          // still be changing; the first read's stamp is taken in the same evaluation.
          const first = await domQuietAndStamp(page);
          changing ||= first.quietForMs < QUIET_MS;
          let firstStamp: DomStamp | undefined = first.stamp;
          for (;;) {
            // Taken before the read: a change while it reads counts as a change after it.
            const stamp = firstStamp ?? (await domStamp(page));
            firstStamp = undefined;
            const readAt = Date.now();
            reads += 1;
            let value: unknown;
            try {
              value = await answerNow();
            } catch (error) {
              if (!(error instanceof InterpreterError) || !RETRIED.has(error.code)) throw error;
              // Not (yet) on the page: read again once it changes, while it still may (see changesAgain).
              if ((await changesAgain(page, stamp, clock, retryUntil)) === "changed") {
                changing = true;
                candidate = undefined;
                await settle();
                continue;
              }
              throw withWhatWasSeen(error, seen, reads, Date.now() - started);
            }
            // An answer read from a page that was changing may be incomplete (rows still arriving, between
            // two batches). It stands once the page then shows no change for QUIET_MS, or once it has been
            // read the same over QUIET_MS of changes (a page that never stops changing: a clock, an
            // animation). Two reads that agree within less prove nothing: both may fall between the same
            // two batches (issue 32). A page that was quiet from the start is answered at once.
            if (!changing) return value;
            const json = JSON.stringify(value);
            if (candidate?.json !== json) candidate = { json, since: readAt };
            else if (readAt - candidate.since >= QUIET_MS) return value;
            // The read stands or falls by what follows it: that wait may pass the retry window by up to QUIET_MS.
            const next = await changesAgain(page, stamp, clock, Math.max(retryUntil, Date.now() + QUIET_MS), ANSWER_MS);
            if (next === "quiet") return value;
            if (next === "changed" && Date.now() < retryUntil) {
              await settle();
              continue;
            }
            throw stillChanging(seen, reads, Date.now() - started);
          }
        } catch (error) {
          throw scrubSecrets(error, context.secrets);
        }
      });
    },

    check: grammarCheck,
  };
}

/** Failures of a grammar ASK that a later read of a changing page may not have: read again before failing. */
const RETRIED = new Set(["WF_ANSWER_NOT_FOUND", "WF_ANSWER_UNCERTAIN"]);

/** Time kept at the end of a step for the last read and its failure, in ms: no new wait starts later. */
const LAST_LOOK_MS = 500;
/** Time kept at the end of a step for giving an answer already read, in ms. */
const ANSWER_MS = 50;

/**
 * After a read (one that found no answer, or one of a page that was changing): waits for the page
 * to change since `stamp` (a DOM mutation, another document) for as long as it may still change:
 * until it has shown no change for {@link QUIET_MS} (the grammar's rule for a target that is not
 * there, `locate.ts`), within the step's time less `keepMs` (default {@link LAST_LOOK_MS}: a read
 * follows) and until `retryUntil`.
 * @returns `"changed"` (read again), `"quiet"` (no change for QUIET_MS: what was read stands), or
 * `"out of time"` (the time ran out before either).
 */
async function changesAgain(page: Page, stamp: DomStamp, clock: StepClock, retryUntil: number, keepMs = LAST_LOOK_MS): Promise<"changed" | "quiet" | "out of time"> {
  const room = Math.min(clock.left() - keepMs, retryUntil - Date.now());
  // No time left: not even a change already made counts (a page that changes while every read runs would be read for good).
  if (room <= 0) return "out of time";
  const needed = Math.max(0, QUIET_MS - (await domQuietForMs(page)));
  if (await waitForDomChange(page, stamp, Math.max(0, Math.min(room, needed)))) return "changed";
  return room >= needed ? "quiet" : "out of time";
}

/**
 * The failure of an ASK whose answer never held still: each read of the page gave another answer
 * (or the same one for less than {@link QUIET_MS}) until the read's retry window (the find
 * timeout) or the step's time ran out. An answer that may
 * be half of what the page goes on to show is not given (`WF_ANSWER_UNCERTAIN`).
 */
function stillChanging(data: PageData | undefined, reads: number, ms: number): InterpreterError {
  const error = new InterpreterError(
    "WF_ANSWER_UNCERTAIN",
    `The page kept changing while it was read, and its answer did not hold still for ${QUIET_MS} ms within the time a read waits for the page, so no answer is given (it may be incomplete). Wait for what marks the end first (\`wait for "…"\`), then ask.`,
    { kind: "changing" },
  );
  return withWhatWasSeen(error, data, reads, ms);
}

/**
 * The failure of an ASK read more than once, or read at all: what was looked for (the reader's
 * message) and what the page showed at the last read (its title, headings, labels, tables, lists).
 */
function withWhatWasSeen(error: InterpreterError, data: PageData | undefined, reads: number, ms: number): InterpreterError {
  if (!data) return error;
  const quote = (texts: string[], max: number) =>
    texts
      .filter((t) => t.trim())
      .slice(0, max)
      .map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 59)}…` : t))
      .join(", ");
  const parts = [
    data.title ? `title ${JSON.stringify(data.title)}` : "",
    data.headings.length ? `headings ${quote(data.headings.map((h) => h.text), 6)}` : "",
    data.pairs.length ? `labels ${quote([...new Set(data.pairs.map((p) => p.key))], 8)}` : "",
    data.tables.length ? `${data.tables.length} table${data.tables.length === 1 ? "" : "s"} (columns ${quote(data.tables[0]!.headers, 6)})` : "",
    data.groups.length ? `${data.groups.length} list${data.groups.length === 1 ? "" : "s"} of repeated items` : "",
  ].filter(Boolean);
  const read = reads > 1 ? `read ${reads} times over ${ms} ms as it changed` : "read once it had settled";
  const seen = ` The page (${read}) showed: ${parts.length ? parts.join("; ") : "no title, heading, label, table or list"}.`;
  return new InterpreterError(error.code, error.message + seen, error.details, { cause: error.cause });
}

/**
 * An ASK error quotes parts of the question; a secret the workflow interpolated there must not
 * leave in another form than the server redacts (its words lower-cased and re-joined). Replaces
 * each secret, as written and as normalised words, with `[secret]` in the message and details.
 */
function scrubSecrets(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof InterpreterError) || !secrets.some((s) => s.length > 0)) return error;
  const forms = secrets.filter((s) => s.length > 0).flatMap((s) => [s, words(s).join(" ")]).filter((f) => f.length > 0);
  const scrub = (text: string) => redactText(text, forms);
  const details = { ...error.details, ...(error.details.part !== undefined ? { part: scrub(error.details.part) } : {}) };
  return new InterpreterError(error.code, scrub(error.message), details, { cause: error.cause });
}

/** Validates the answer against the JSON Schema (zod's `fromJSONSchema`); a mismatch is a bug here, reported as such. */
function checkAnswer(answer: unknown, schema: Record<string, unknown>): void {
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return; // A construct zod cannot read back: the answer was still built from the schema.
  }
  const result = validator.safeParse(answer);
  if (!result.success) {
    throw new InterpreterError(
      "WF_ANSWER_NOT_FOUND",
      `The answer read from the page does not fit the schema: ${result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}.`,
      { fields: result.error.issues.map((i) => i.path.join(".") || "(root)") },
    );
  }
}
