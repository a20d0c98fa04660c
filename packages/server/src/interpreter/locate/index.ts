/**
 * Finding the element an instruction names (`locate.ts`: strategies, tiers, scopes, frames), the
 * way Playwright's user-facing locators do, and the closest candidates when none matches.
 */
export { childRoots, framePhrase } from "./frames.js";
export { locateTarget } from "./locate.js";
export type { NotFoundRule } from "./locate.js";
export { scopePhrase } from "./pick.js";
export type { FoundElement } from "./pick.js";
export { loosePattern, PURPOSE_ROLES } from "./strategies.js";
export type { AriaRole, TargetPurpose } from "./strategies.js";
