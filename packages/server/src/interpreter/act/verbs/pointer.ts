/** `click`, `double-click`, `right-click` and `hover`: pointer actions on whatever element the instruction names. */
import { InterpreterError } from "../../errors.js";
import { HOW_TO_ALLOW_FILES, isFileUrl } from "../navigation-policy.js";
import { identity, type VerbHandler } from "../verb.js";

const DONE = { click: "Clicked", dblclick: "Double-clicked", rightclick: "Right-clicked", hover: "Hovered over" } as const;

export const pointer: VerbHandler<"click" | "dblclick" | "rightclick" | "hover"> = {
  acts: "any",
  fits: { what: "any element", enabled: (action) => action.verb !== "hover" },
  async run(action, { page, clock, options, find, settle }) {
    const el = await find(action.target, action.verb === "hover" ? "any" : "click");
    // A link to a local file is refused before the click (the check after the action catches the rest).
    if (action.verb !== "hover" && !options.allowFileUrls && isFileUrl(el.href)) {
      throw new InterpreterError("WF_NAVIGATION_REFUSED", `Refused to click ${el.description}: it links to ${el.href}. ${HOW_TO_ALLOW_FILES}`, { url: el.href });
    }
    const timeout = clock.left();
    try {
      if (action.verb === "click") await el.locator.click({ timeout });
      else if (action.verb === "dblclick") await el.locator.dblclick({ timeout });
      else if (action.verb === "rightclick") await el.locator.click({ timeout, button: "right" });
      else await el.locator.hover({ timeout });
    } catch (error) {
      // A popup's "Done" button that closes its own window (window.close()): the click did its work.
      if (!page.isClosed()) throw error;
      return { action: action.verb, target: el.description, element: identity(el), message: `Clicked ${el.description}; the tab closed itself` };
    }
    await settle();
    return { action: action.verb, target: el.description, element: identity(el), message: `${DONE[action.verb]} ${el.description}` };
  },
};
