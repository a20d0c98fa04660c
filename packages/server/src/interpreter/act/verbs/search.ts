/** `search for "pg"`: types into the page's search box and submits it (Enter). */
import { InterpreterError } from "../../errors.js";
import type { AriaRole } from "../../locate/index.js";
import { identity, type VerbHandler } from "../verb.js";
import { TYPES_TEXT } from "./keyboard.js";

const SEARCH_ROLES: AriaRole[] = ["searchbox", "textbox", "combobox"];

export const search: VerbHandler<"search"> = {
  acts: SEARCH_ROLES,
  fits: TYPES_TEXT,
  async run(action, { clock, find, settle }) {
    // The page's search box: a field named "search" (a searchbox, or a text field labelled so), else any searchbox.
    const box = await find({ text: "search", roles: SEARCH_ROLES, roleWord: "search box", quoted: false }, "fill").catch((error: unknown) => {
      if (error instanceof InterpreterError && error.code === "WF_ELEMENT_NOT_FOUND") {
        return find({ text: "", roles: ["searchbox"], roleWord: "search box", quoted: false }, "fill").catch(() => Promise.reject(error));
      }
      throw error;
    });
    await box.locator.fill(action.text, { timeout: clock.left() });
    await box.locator.press("Enter", { timeout: clock.left() });
    await settle();
    return { action: "search", target: box.description, element: identity(box), message: `Searched for ${JSON.stringify(action.text)} in ${box.description}` };
  },
};
