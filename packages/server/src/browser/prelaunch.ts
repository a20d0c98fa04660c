/**
 * Launching the server's browser before the server itself is loaded: `wf run` starts Chromium
 * (a separate process, ~200 ms to its first CDP answer) while the rest of `@wf/server` (Fastify,
 * the store, the interpreter) is still being imported, then hands the browser to
 * {@link startServer} (`startServer(options, env, { browser })`). This module loads only
 * playwright-core and the options, so it is cheap to import first (`@wf/server/prelaunch`).
 */
import { BrowserHost } from "./host.js";
import { resolveServerOptions, type ServerOptions } from "../config/options.js";
import { timingMark } from "../observability/timing.js";
import { startTracing, traceTitle } from "./tracing.js";

/**
 * Starts launching the browser that {@link startServer} would launch for these options, and returns
 * its host at once (the launch goes on in the background).
 *
 * @param options - the options `startServer` will be given (the browser fields are the ones read).
 * @param env - the environment `startServer` will be given. @default process.env
 * @param ahead - `openPage: true` also opens a plain context and page once the browser is up
 *   (`BrowserHost.openAhead`), which the server's first session without a proxy takes: for a
 *   server that will serve one session (`wf run`); with `trace: true` too, that context starts
 *   recording the Playwright trace a `STEP` session created with `trace: true` records, so the
 *   session create does not wait for it (a session that takes it without `trace` stops it
 *   unsaved). @default {}
 * @returns the host, to pass as `startServer(options, env, { browser })`, which then owns it (and
 *   closes it); `undefined` when the options cannot be resolved (`startServer` reports why).
 *   A failed launch is not reported here: `startServer` launches again and throws
 *   `WF_BROWSER_NOT_FOUND` as it would have. Close the host yourself only if `startServer` is
 *   never called.
 */
export function prelaunchBrowser(options: ServerOptions = {}, env: NodeJS.ProcessEnv = process.env, ahead: { openPage?: boolean; trace?: boolean } = {}): BrowserHost | undefined {
  let host: BrowserHost;
  try {
    host = new BrowserHost(resolveServerOptions(options, env));
  } catch {
    return undefined;
  }
  timingMark("server: browser launch started early");
  host.start().catch(() => undefined);
  if (ahead.openPage) host.openAhead(ahead.trace ? (context) => startTracing(context, traceTitle("STEP")) : undefined);
  return host;
}

export { BrowserHost };
