/**
 * `check`/`uncheck`: a checkbox, radio button, switch or checkable menu item. The grammar's item
 * form, `check "Buy milk"` (a target with no role word, found from the instruction's words), ticks
 * the one checkbox of that item; an element given by a model or a lock is ticked only if it is
 * itself checkable.
 */
import { PURPOSE_ROLES } from "../../locate/index.js";
import { CHECKABLE, checkboxOfItem } from "../controls.js";
import { identity, type VerbHandler } from "../verb.js";

export const check: VerbHandler<"check" | "uncheck"> = {
  acts: PURPOSE_ROLES.check,
  fits: {
    what: "a checkbox, radio button, switch or checkable menu item",
    enabled: true,
    test: (el) => el.nativeCheckable || CHECKABLE.has(el.role),
  },
  async run(action, { clock, given, locate, verify }) {
    let el = await locate(action.target, "check");
    if (!given && !action.target.roles?.length && !CHECKABLE.has(el.role)) el = await checkboxOfItem(el);
    await verify(el);
    if (action.verb === "check") await el.locator.check({ timeout: clock.left() });
    else await el.locator.uncheck({ timeout: clock.left() });
    return { action: action.verb, target: el.description, element: identity(el), message: `${action.verb === "check" ? "Checked" : "Unchecked"} ${el.description}` };
  },
};
