/**
 * Carrying out actions: {@link performAction} dispatches a parsed action through the verb table
 * (`verbs/`: one handler per verb, each declaring what it acts on), and the rules of what a step may
 * open (`navigation-policy.ts`) and upload (`upload-path.ts`).
 */
export { misfit, misfitError, verifyElement } from "./fit.js";
export type { Misfit } from "./fit.js";
export { isFileUrl, leaveRefusedPage, setBaseURL } from "./navigation-policy.js";
export { performAction } from "./perform.js";
export type { ActionDone, PerformOptions, Verb, VerbFit, VerbHandler } from "./verb.js";
export { VERBS } from "./verbs/index.js";
