/** `check`/`uncheck`: a checkbox, radio button or switch; `check "Buy milk"` finds the checkbox of that item. */
import { PURPOSE_ROLES } from "../../locate/index.js";
import { CHECKABLE, checkboxOfItem } from "../controls.js";
import { identity, type VerbHandler } from "../verb.js";

export const check: VerbHandler<"check" | "uncheck"> = {
  acts: PURPOSE_ROLES.check,
  async run(action, { clock, find }) {
    let el = await find(action.target, "check");
    if (!CHECKABLE.has(el.role)) el = await checkboxOfItem(el);
    if (action.verb === "check") await el.locator.check({ timeout: clock.left() });
    else await el.locator.uncheck({ timeout: clock.left() });
    return { action: action.verb, target: el.description, element: identity(el), message: `${action.verb === "check" ? "Checked" : "Unchecked"} ${el.description}` };
  },
};
