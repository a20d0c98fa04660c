/**
 * The embedded server's Chromium, launched before the rest of `wf run` loads: this module imports
 * nothing at load but types, so `wf run flow.ts` can start Chromium (a process of its own, ~200 ms
 * to its first CDP answer) right after the configuration is read, and load the runner, the
 * workflow file and `@wf/server` while it starts (issue 26).
 */
import type { BrowserHost } from "@wf/server/prelaunch";
import type { ResolvedCliConfig } from "./config.js";

/** The embedded server's browser, launching ahead of the server: {@link launchEmbeddedBrowser}. */
export interface EarlyBrowser {
  /** The browser host, for the server to own; undefined when none could be launched ahead. Once taken, the server closes it. */
  take(): Promise<BrowserHost | undefined>;
  /** Settles once the launch has begun (playwright-core loaded, Chromium spawning) or could not begin; never rejects. */
  readonly started?: Promise<void>;
}

/**
 * Starts the embedded server's Chromium now, before the workflow files are loaded, so its
 * launch overlaps their compilation (`wf run`). Pass the result to `runWorkflowFile`
 * (`browser`), or close it with {@link closeEarlyBrowser}. Await `started` before loading anything
 * else, so that the launch is not queued behind that loading.
 *
 * @param options.openPage - open the run's context and page as soon as Chromium is up; not for a
 *   session that asks for context options of its own (a project's viewport, a device). @default true
 * @returns undefined when the run will not start an embedded server (a service URL is configured).
 */
export function launchEmbeddedBrowser(config: ResolvedCliConfig, options: { openPage?: boolean } = {}): EarlyBrowser | undefined {
  if (config.serviceUrl) return undefined;
  // The browser fields of openService's options: the same Chromium, headed and slowed down alike.
  const launching = import("@wf/server/prelaunch")
    // The run's one session takes the page opened as soon as Chromium is up, and its trace
    // already recording when its first attempt records one (`on`, `retain-on-failure`).
    .then(({ prelaunchBrowser }) =>
      prelaunchBrowser({ headed: config.headed, slowMoMs: config.slowMoMs }, config.env, { openPage: options.openPage ?? true, trace: config.trace === "on" || config.trace === "retain-on-failure" }),
    )
    .catch(() => undefined);
  let taken = false;
  return {
    take: () => {
      if (taken) return Promise.resolve(undefined);
      taken = true;
      return launching;
    },
    started: launching.then(() => undefined),
  };
}

/** Closes a browser launched ahead that no server took. */
export async function closeEarlyBrowser(early: EarlyBrowser | undefined): Promise<void> {
  await (await early?.take())?.close();
}
