/**
 * Names the commands' flags accept, apart from the code that uses them: a command's flags are
 * declared when `wf` starts (for `--help` too), and this module loads no dependency.
 */

import type { ScreenshotMode } from "@wf/core/protocol";

/** Reporters of `wf run`. */
export const REPORTERS = ["pretty", "list", "line", "dot", "json", "ndjson", "junit", "html"] as const;
/**
 * A reporter name: `pretty` (one workflow's steps live; plain lines off a terminal), `list` (one
 * line per workflow), `line` (one updating line), `dot` (one character per workflow), `json` (the
 * run record, or the summary of many), `ndjson` (one event per line), `junit` (JUnit XML), `html`
 * (the HTML report alone; it is written on every run, whatever the reporters).
 */
export type ReporterName = (typeof REPORTERS)[number];

/** Reporters of `wf trigger`: those of `wf run` on one workflow. */
export const TRIGGER_REPORTERS = ["pretty", "json", "ndjson"] as const;

/**
 * `wf run --screenshot`: which steps the service takes a screenshot after (the protocol's
 * `ScreenshotMode`, Playwright Test's `screenshot` values), listed here so that declaring the flag
 * loads no schema.
 */
export const SCREENSHOT_MODES = ["on", "only-on-failure", "off"] as const satisfies ReadonlyArray<ScreenshotMode>;

/** The delay of each browser operation under `wf run --debug` when none is set, in ms. */
export const DEBUG_SLOW_MO_MS = 250;
