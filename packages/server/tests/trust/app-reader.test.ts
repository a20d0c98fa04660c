/**
 * The grammar's reader on an application UI, through the real server (no model) and Chromium
 * (issue 32): after a tab is clicked, the ASK reads inside the tab panel the question names; a
 * Markdown heading's code block and an alert answer the questions that name them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServer, type RunningServer } from "../../src/index.js";
import { sessionSteps } from "../helpers/model-server.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

let server: RunningServer;
let pages: StaticServer;
let dataDir: string;
const session = sessionSteps(() => server);
const { act, ask } = session;

beforeAll(async () => {
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/interpreter/", import.meta.url)));
  dataDir = await mkdtemp(join(tmpdir(), "wf-app-reader-"));
  server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, stepTimeoutMs: 20_000 });
});
afterAll(async () => {
  await server?.close();
  await pages?.close();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => session.open());
afterEach(() => session.close());

describe("a package page of a React + MUI app", () => {
  it("reads the Markdown's usage code, then the dependencies in the tab the workflow opened", async () => {
    expect(await act(`go to "${pages.url}/mui-package.html"`)).toMatchObject({ status: "SUCCEEDED" });
    expect((await ask("the installation command")).result).toBe("npm i react-query");
    expect(await act('click the "Dependencies" tab')).toMatchObject({ status: "SUCCEEDED" });
    const Dep = z.object({ package: z.string(), versionRange: z.string() });
    expect(await ask("the dependencies in the Dependencies tab", z.array(Dep))).toMatchObject({
      status: "SUCCEEDED",
      result: {
        value: [
          { package: "@tanstack/query-core", versionRange: "^5.0.0" },
          { package: "use-sync-external-store", versionRange: "^1.2.0" },
        ],
      },
    });
    // The Versions tab was not opened: refused, naming what to do, rather than read from a hidden panel.
    const versions = await ask("the versions in the Versions tab", z.array(z.object({ version: z.string() })));
    expect(versions).toMatchObject({ status: "FAILED", error: { code: "WF_ANSWER_UNCERTAIN" } });
    expect(versions.error!.message).toMatch(/click the tab first/);
  });

  it("reads the error alert of the search page, and refuses a success message it does not show", async () => {
    await act(`go to "${pages.url}/mui-search.html"`);
    expect((await ask("the error message")).result).toBe("Could not load download counts: the statistics service did not answer");
    expect(await ask("the success message")).toMatchObject({ status: "FAILED", error: { code: "WF_ANSWER_NOT_FOUND" } });
  });
});
