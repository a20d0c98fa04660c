/**
 * `wf run flow.ts` launches the embedded server's Chromium before the workflow file is loaded
 * (`launchEmbeddedBrowser`, issue 26), and hands it to the run (`runWorkflowFile({ browser })`).
 * A run that fails before its server starts (a missing file) must close that browser, not leave a
 * Chromium behind; a run with a base URL never launches one.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isHttpProblem } from "@wf/server";
import { resolveCliConfig } from "../src/config.js";
import { launchEmbeddedBrowser, runWorkflowFile } from "../src/run.js";
import { scratchDir } from "./_helpers.js";

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch?.remove();
});

const config = (flags: { serviceUrl?: string } = {}) => resolveCliConfig({ cwd: scratch.dir, env: { WF_CHROMIUM_PATH: "/usr/bin/chromium" }, configFile: false, dotenv: false, flags });

it("a browser launched ahead of a run that fails before its server starts is closed", async () => {
  const resolved = await config();
  const early = launchEmbeddedBrowser(resolved);
  const host = await early!.take();
  expect(host).toBeDefined();
  const error = await runWorkflowFile({ file: join(scratch.dir, "missing.ts"), cwd: scratch.dir, config: resolved, browser: { take: async () => host }, stdout: { write: () => true }, stderr: { write: () => true } }).catch((e: unknown) => e);
  expect((error as { code?: string }).code).toBe("WF_CLI_FILE_NOT_FOUND");
  const refused = await host!.newContext().catch((e: unknown) => e);
  expect(isHttpProblem(refused) && refused.code).toBe("WF_BROWSER_UNAVAILABLE");
}, 60_000);

it("nothing is launched ahead when the run goes to a service at a base URL", async () => {
  expect(launchEmbeddedBrowser(await config({ serviceUrl: "http://127.0.0.1:9" }))).toBeUndefined();
});
