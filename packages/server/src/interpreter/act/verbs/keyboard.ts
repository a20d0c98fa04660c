/** Typing: `fill`/`type … into`, typing into the focused element, `clear`, and `press <key>`. */
import { PURPOSE_ROLES } from "../../locate/index.js";
import { identity, type VerbFit, type VerbHandler } from "../verb.js";

/** What typing acts on: an element that takes typed text (a text-like `<input>`, a `<textarea>`, a contenteditable element). */
export const TYPES_TEXT: VerbFit<"fill" | "clear" | "search"> = {
  what: "a text field (a textbox, searchbox, spinbutton or editable combobox) or an editable element",
  enabled: true,
  test: (el) => el.editable,
};

export const fill: VerbHandler<"fill"> = {
  acts: PURPOSE_ROLES.fill,
  fits: TYPES_TEXT,
  async run(action, { clock, find }) {
    const el = await find(action.target, "fill");
    await el.locator.fill(action.text, { timeout: clock.left() });
    return { action: action.typed ? "type" : "fill", target: el.description, element: identity(el), message: `Filled ${el.description} with ${JSON.stringify(action.text)}` };
  },
};

export const typeFocused: VerbHandler<"type-focused"> = {
  acts: "page",
  async run(action, { page }) {
    await page.keyboard.type(action.text);
    return { action: "type", message: `Typed ${JSON.stringify(action.text)} into the focused element` };
  },
};

export const clear: VerbHandler<"clear"> = {
  acts: PURPOSE_ROLES.fill,
  fits: TYPES_TEXT,
  async run(action, { clock, find }) {
    const el = await find(action.target, "fill");
    await el.locator.clear({ timeout: clock.left() });
    return { action: "clear", target: el.description, element: identity(el), message: `Cleared ${el.description}` };
  },
};

/** `press Enter` on the page, or `press Enter in "Search"` on an element (any a person can focus). */
export const press: VerbHandler<"press"> = {
  acts: PURPOSE_ROLES.key,
  fits: { what: "any element", enabled: true },
  async run(action, { page, clock, find, settle }) {
    if (action.target) {
      const el = await find(action.target, "key");
      await el.locator.press(action.key, { timeout: clock.left() });
      await settle();
      return { action: "press", target: el.description, element: identity(el), message: `Pressed ${action.key} in ${el.description}` };
    }
    await page.keyboard.press(action.key);
    await settle();
    return { action: "press", message: `Pressed ${action.key}` };
  },
};
