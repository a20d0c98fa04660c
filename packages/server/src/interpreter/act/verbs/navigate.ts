/** `go to <url>`, `go back`, `go forward`, `reload`: navigations of the current page. */
import { InterpreterError } from "../../errors.js";
import { checkNavigable, resolveUrl } from "../navigation-policy.js";
import { firstLine, type VerbHandler } from "../verb.js";

export const goto: VerbHandler<"goto"> = {
  acts: "page",
  async run(action, { page, clock, options }) {
    const url = resolveUrl(page, action.url);
    checkNavigable(url, options.allowFileUrls);
    let status: number | undefined;
    try {
      status = (await page.goto(url, { timeout: clock.left(), waitUntil: "load" }))?.status();
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") throw clock.timeoutError(error);
      throw new InterpreterError(
        "WF_NAVIGATION_FAILED",
        `Could not open ${url}: ${firstLine(error)}. Check the URL and that the site is reachable from the service.`,
        { url },
        { cause: error },
      );
    }
    // An HTTP error page is still a page (a workflow may want to read it); the message says so.
    return { action: "goto", message: `Opened ${url}${status !== undefined && status >= 400 ? ` (HTTP ${status})` : ""}` };
  },
};

export const history: VerbHandler<"back" | "forward" | "reload"> = {
  acts: "page",
  async run(action, { page, clock }) {
    const before = page.url();
    let response;
    try {
      response =
        action.verb === "back"
          ? await page.goBack({ timeout: clock.left() })
          : action.verb === "forward"
            ? await page.goForward({ timeout: clock.left() })
            : await page.reload({ timeout: clock.left() });
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") throw clock.timeoutError(error);
      throw new InterpreterError("WF_NAVIGATION_FAILED", `Could not ${action.verb === "reload" ? "reload" : `go ${action.verb}`}: ${firstLine(error)}.`, { url: before }, { cause: error });
    }
    if (response === null && action.verb !== "reload" && page.url() === before) {
      throw new InterpreterError(
        "WF_NAVIGATION_FAILED",
        `Could not go ${action.verb}: there is no ${action.verb === "back" ? "previous" : "next"} page in this session's history.`,
        { url: before },
      );
    }
    return { action: action.verb, message: action.verb === "reload" ? `Reloaded ${page.url()}` : `Went ${action.verb} to ${page.url()}` };
  },
};
