/**
 * `select "x" from "Size"`: a `<select>`'s option as a person names it; a custom dropdown (an ARIA
 * combobox, listbox, or a button that opens a list) opened and its option clicked; an editable
 * combobox gets the text. The grammar's `set "Name" to "Ada"` form also fills a text field; a plain
 * `select` (and a model's) on a text field fails `WF_ACTION_NOT_APPLICABLE`.
 */
import { InterpreterError } from "../../errors.js";
import { PURPOSE_ROLES } from "../../locate/index.js";
import { listSelectOptions } from "../../page/index.js";
import { pickOption, visibleOptions } from "../controls.js";
import { identity, type VerbHandler } from "../verb.js";

const OPTION_ROLES = ["option", "menuitem", "menuitemradio", "treeitem"];

export const select: VerbHandler<"select"> = {
  acts: PURPOSE_ROLES.select,
  fits: {
    what: "a dropdown: a <select>, a combobox or listbox, or a button that opens a list of options",
    enabled: true,
    test: (el, action, given) =>
      el.nativeSelect || el.role === "combobox" || el.role === "listbox" || (el.popup && el.role === "button") || (Boolean(action.set) && !given && el.editable),
  },
  async run(action, { page, clock, find, locate, settle }) {
    const el = await find(action.target, "select");
    const options = await el.locator.evaluate(listSelectOptions, undefined, { timeout: clock.left() });
    if (!options) {
      const editable = await el.locator.evaluate((node) => node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement || (node as HTMLElement).isContentEditable);
      if (editable) {
        // `set "Name" to "Ada"` on a text field: fill it.
        await el.locator.fill(action.option, { timeout: clock.left() });
        return { action: "fill", target: el.description, element: identity(el), message: `Filled ${el.description} with ${JSON.stringify(action.option)}` };
      }
      // A custom dropdown (an ARIA combobox or button): open it, then click the option.
      await el.locator.click({ timeout: clock.left() });
      const option = await locate({ text: action.option, roles: OPTION_ROLES, roleWord: "option", quoted: true }, "click").catch(async (error: unknown) => {
        if (!(error instanceof InterpreterError) || error.code !== "WF_ELEMENT_NOT_FOUND") throw error;
        // Name what the dropdown offers, not the page's closest buttons.
        const shown = await visibleOptions(page, OPTION_ROLES);
        throw new InterpreterError(
          "WF_ELEMENT_NOT_FOUND",
          `${el.description} has no option ${JSON.stringify(action.option)}. ` +
            (shown.length ? `Options: ${shown.slice(0, 12).map((o) => JSON.stringify(o)).join(", ")}.` : "It showed no options once opened."),
          { target: action.option, candidates: shown.map((name) => ({ role: "option", name })) },
        );
      });
      await option.locator.click({ timeout: clock.left() });
      await settle();
      return { action: "select", target: el.description, element: identity(el), message: `Selected ${option.description} in ${el.description}` };
    }
    const option = pickOption(options, action.option);
    if (!option) {
      throw new InterpreterError(
        "WF_ELEMENT_NOT_FOUND",
        `${el.description} has no option ${JSON.stringify(action.option)}. Options: ${options.slice(0, 12).map((o) => JSON.stringify(o.label)).join(", ")}.`,
        { target: action.option, candidates: options.map((o) => ({ role: "option", name: o.label })) },
      );
    }
    await el.locator.selectOption({ value: option.value }, { timeout: clock.left() });
    return { action: "select", target: el.description, element: identity(el), message: `Selected ${JSON.stringify(option.label)} in ${el.description}` };
  },
};
