export { isFileUrl, leaveRefusedPage } from "./navigation-policy.js";
export { performAction } from "./perform.js";
export type { ActionDone, PerformOptions } from "./perform.js";
