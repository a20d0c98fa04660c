/** `scroll down 300 px`, `scroll to the bottom`, `scroll to "Limits"`. */
import { scrollPage } from "../../page/index.js";
import { identity, type VerbHandler } from "../verb.js";

export const scroll: VerbHandler<"scroll"> = {
  acts: "page",
  async run(action, { page }) {
    const { dy, what } = await page.evaluate(scrollPage, [action.direction, action.pixels ?? null] as [typeof action.direction, number | null]);
    return { action: "scroll", message: `Scrolled the ${what === "page" ? "page" : `element ${what}`} ${action.direction} by ${Math.abs(dy)} px` };
  },
};

export const scrollEdge: VerbHandler<"scroll-edge"> = {
  acts: "page",
  async run(action, { page }) {
    const { what } = await page.evaluate(scrollPage, [action.edge, null] as [typeof action.edge, null]);
    return { action: "scroll", message: `Scrolled the ${what === "page" ? "page" : `element ${what}`} to the ${action.edge}` };
  },
};

export const scrollTo: VerbHandler<"scroll-to"> = {
  acts: "any",
  fits: { what: "any element", enabled: false },
  async run(action, { clock, find }) {
    const el = await find(action.target, "scroll");
    await el.locator.scrollIntoViewIfNeeded({ timeout: clock.left() });
    return { action: "scroll", target: el.description, element: identity(el), message: `Scrolled ${el.description} into view` };
  },
};
