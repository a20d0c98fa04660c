/** `switch to the "History" tab`, `close this tab`: the session's tabs; a tab of the page (role `tab`) when no browser tab has the name. */
import { InterpreterError } from "../../errors.js";
import { pageTabNamed } from "../controls.js";
import type { VerbHandler } from "../verb.js";

export const tabs: VerbHandler<"switch-tab" | "close-tab"> = {
  acts: "page",
  async run(action, { page, clock, options, settle }) {
    if (!options.tabs) throw new InterpreterError("WF_TAB_NOT_FOUND", "This step has no tabs to switch between or close (it runs on a single page).");
    let tab;
    try {
      tab = action.verb === "switch-tab" ? await options.tabs.switchTo(action.tab, clock.left()) : await options.tabs.close(action.tab, clock.left());
    } catch (error) {
      // `switch to the "History" tab` on a page with a tab of that name (a tab list), and no browser tab by it: that one.
      if (!(error instanceof InterpreterError && error.code === "WF_TAB_NOT_FOUND" && action.verb === "switch-tab" && "text" in action.tab)) throw error;
      const pageTab = await pageTabNamed(page, action.tab.text);
      if (!pageTab) throw error;
      await pageTab.click({ timeout: clock.left() });
      await settle();
      const description = `tab ${JSON.stringify(action.tab.text)}`;
      return { action: "click", target: description, element: { role: "tab", name: action.tab.text }, message: `Clicked ${description} of the page (no browser tab has that name)` };
    }
    const where = `tab ${tab.index} of ${tab.count}: ${JSON.stringify(tab.title)} at ${tab.url}`;
    return action.verb === "switch-tab" ? { action: "switch", message: `Switched to ${where}` } : { action: "close", message: `Closed the tab; now on ${where}` };
  },
};
