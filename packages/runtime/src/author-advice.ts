/**
 * Messages for the workflow's author. The service's messages address its HTTP clients ("Create a
 * new session."), which a workflow run cannot do: the run's session is made and closed for it.
 * What the author can do instead replaces that sentence in the errors a run reports.
 */
import type { WireError } from "@wf/core/protocol";

/** What the author can do, by the code of a step that failed because its session or page was lost. */
const ADVICE: Record<string, string> = {
  WF_PAGE_CRASHED:
    "The run cannot go on without its page: run the workflow again. If the page crashes again at this step, it may run out of memory there: open it in a browser to see.",
  WF_BROWSER_CLOSED: "The browser went away under the run (it crashed, or was stopped): run the workflow again.",
  WF_PAGE_UNRESPONSIVE:
    "Check what the page does at this step (a script that never ends, alerts in a loop): the workflow cannot drive a page that does not answer. Run it again once the page behaves.",
  WF_SESSION_IDLE_TIMEOUT: "The service closed the run's session while it waited for its next step: run the workflow again, without a long pause between steps.",
  WF_SERVER_RESTARTED: "The service restarted during the run: run the workflow again.",
};

/** `error`'s message with its advice for HTTP clients replaced by the author's (see {@link ADVICE}). */
export function forAuthor(error: WireError): string {
  const message = error.message;
  if (!/Create a new session\.?/.test(message) && !/go to a page again\.?$/.test(message)) return message;
  const advice = ADVICE[error.code] ?? "Run the workflow again.";
  const trimmed = message.replace(/\s*Create a new session\.?/g, "").replace(/\s*wf closed the page; the session goes on in [^:]*: go to a page again\.?$/, " wf closed the page.");
  return `${trimmed.trimEnd()} ${advice}`;
}
