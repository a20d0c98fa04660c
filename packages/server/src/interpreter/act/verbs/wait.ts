/** `wait for "Saved"`, `wait until "Loading…" disappears`, `wait 2 seconds`, `wait for the page to load`. */
import { InterpreterError } from "../../errors.js";
import { QUIET_MS, waitForSettled } from "../../page/index.js";
import type { VerbHandler } from "../verb.js";

export const waitGone: VerbHandler<"wait-gone"> = {
  acts: "page",
  async run(action, { page, clock }) {
    await page.getByText(action.text).first().waitFor({ state: "hidden", timeout: clock.left() });
    return { action: "wait", message: `${JSON.stringify(action.text)} is gone` };
  },
};

export const waitText: VerbHandler<"wait-text"> = {
  acts: "page",
  async run(action, { page, clock }) {
    const exact = page.getByText(action.text, { exact: true });
    const loose = page.getByText(action.text);
    await exact
      .or(loose)
      .first()
      .waitFor({ state: "visible", timeout: clock.left() })
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.name === "TimeoutError")) throw error;
        throw new InterpreterError(
          "WF_STEP_TIMEOUT",
          `The page did not show ${JSON.stringify(action.text)} within the step's ${clock.timeoutMs} ms. ` +
            `Check the text as the page writes it; to wait for a page to finish loading, write \`wait for the page to load\` (or \`wait for the results\`).`,
          {},
          { cause: error },
        );
      });
    return { action: "wait", message: `${JSON.stringify(action.text)} is shown` };
  },
};

export const waitSettled: VerbHandler<"wait-settled"> = {
  acts: "page",
  async run(_action, { page, clock }) {
    if (!(await waitForSettled(page, clock.left() - 50))) {
      throw new InterpreterError(
        "WF_STEP_TIMEOUT",
        `The page did not settle within the step's ${clock.timeoutMs} ms: it kept loading, sending requests or changing. ` +
          `Wait for what it shows when done instead (\`wait for "12 results"\`, \`wait until "Loading…" disappears\`).`,
      );
    }
    return { action: "wait", message: `The page is loaded and stable (network idle, no change for ${QUIET_MS} ms)` };
  },
};

export const waitTime: VerbHandler<"wait-time"> = {
  acts: "page",
  async run(action, { clock }) {
    if (action.ms >= clock.left()) {
      throw new InterpreterError(
        "WF_STEP_TIMEOUT",
        `Waiting ${action.ms} ms does not fit in the step's time left (${clock.left()} ms of ${clock.timeoutMs} ms). Raise the step's timeoutMs or wait less.`,
      );
    }
    await clock.sleep(action.ms);
    return { action: "wait", message: `Waited ${action.ms} ms` };
  },
};
