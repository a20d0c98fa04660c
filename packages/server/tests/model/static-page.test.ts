/**
 * A page with no script cannot change by itself (decision 0073): a grammar ASK right after `go to`
 * of a static documentation page does not treat the page's own parse as "still changing" and wait
 * for 500 ms of quiet, while a page that runs script without a `script` element (an `onload`
 * attribute, an SVG `script`) is still read as one that may change. A real Chromium on pages
 * served from disk; the ASKs through a real server without a model.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServer, type RunningServer } from "../../src/index.js";
import { toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { QUIET_MS, domQuietForMs, settleBeforeRead } from "../../src/interpreter/page/index.js";
import { pageCalls } from "../interpreter/_setup.js";
import { startDirectPage, type DirectPage } from "../helpers/direct-page.js";
import { sessionSteps } from "../helpers/model-server.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/model/", import.meta.url));

let direct: DirectPage;
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  direct = await startDirectPage(FIXTURES);
  dataDir = await mkdtemp(join(tmpdir(), "wf-static-"));
  server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, stepTimeoutMs: 20_000 });
});

afterAll(async () => {
  await server?.close();
  await direct?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const url = (name: string) => `${direct.pages.url}/${name}`;

describe("how long a page just opened has been quiet", () => {
  it("a page without any script: quiet however recently it was parsed", async () => {
    await direct.page.goto(url("static-releases.html"));
    expect(await domQuietForMs(direct.page)).toBeGreaterThanOrEqual(QUIET_MS);
  });

  it.each(["static-releases-onload.html", "static-releases-svg.html"])("%s, which runs script without an HTML script element: counted from its last change", async (name) => {
    await direct.page.goto(url(name));
    // Not the "no script" answer (1e9); how long ago its last change was depends on the machine's load.
    expect(await domQuietForMs(direct.page)).toBeLessThan(1e9);
  });
});

describe("a settle on a page just opened", () => {
  it("a page without any script: settled at its first look, with no wait over animation frames", async () => {
    // A first settle installs the DOM observer for the documents the page opens next: the one
    // opened now is watched from its start, and its own parse is a change within the last 100 ms
    // (on any but a very slow machine), which a page with script is given two frames to follow.
    await direct.page.goto(url("static-releases-onload.html"));
    await settleBeforeRead(direct.page, 3_000);
    let outcome: Awaited<ReturnType<typeof settleBeforeRead>> | undefined;
    const calls = await pageCalls(direct.page.context(), async () => {
      await direct.page.goto(url("static-releases.html"));
      outcome = await settleBeforeRead(direct.page, 3_000);
    });
    expect(outcome).toMatchObject({ waited: false, capReached: false });
    expect(outcome!.quiet).toBeDefined();
    const looks = calls.filter((c) => c.method === "evaluateExpression");
    expect(looks.map((c) => c.expression?.slice(0, 40)), "one look, no second one over two frames").toHaveLength(1);
  });
});

describe("a grammar ASK right after go to", () => {
  const session = sessionSteps(() => server);
  const { act, ask } = session;
  beforeEach(() => session.open());
  afterEach(() => session.close());
  const Releases = z.object({ releases: z.array(z.object({ version: z.string(), date: z.string() })) });

  it("answers a static page as it is", async () => {
    expect(await act(`go to "${url("static-releases.html")}"`)).toMatchObject({ status: "SUCCEEDED" });
    const step = await ask("the releases", Releases);
    expect(step).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
    expect((step.result as z.infer<typeof Releases>).releases.map((r) => r.version)).toEqual(["4.2.1", "4.2.0", "4.1.0"]);
  });

  it.each(["static-releases-onload.html", "static-releases-svg.html"])("waits on %s for the release its script adds 300 ms after load", async (name) => {
    expect(await act(`go to "${url(name)}"`)).toMatchObject({ status: "SUCCEEDED" });
    const step = await ask("the releases", Releases);
    expect(step).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
    expect((step.result as z.infer<typeof Releases>).releases.map((r) => r.version)).toEqual(["4.3.0-rc.1", "4.2.1", "4.2.0", "4.1.0"]);
  });
});

describe("what a grammar ASK of a quiet page sends to it", () => {
  it("the settle's probe, one look at how long the DOM has been quiet with its stamp, and the read", async () => {
    await direct.page.goto(url("static-releases.html"));
    const Releases = z.object({ releases: z.array(z.object({ version: z.string(), date: z.string() })) });
    const schema = normalizeStepSchema(toResponseFormat(Releases, "answer") as unknown as Record<string, unknown>);
    const grammar = createDeterministicInterpreter();
    let answer: unknown;
    const calls = await pageCalls(direct.page.context(), async () => {
      answer = await grammar.ask({ page: direct.page, question: "the releases", schema, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
    });
    expect((answer as z.infer<typeof Releases>).releases.map((r) => r.version)).toEqual(["4.2.1", "4.2.0", "4.1.0"]);
    // The settle's probes (one, or two when the page changed within 100 ms: it waits two frames
    // then) are promises; after them, one evaluation reads how long the DOM has been quiet and
    // its stamp (it was two), then the read.
    const after = calls.filter((c) => !c.expression?.startsWith("new Promise("));
    expect(calls.length - after.length).toBeGreaterThanOrEqual(1);
    expect(after.map((c) => c.method), JSON.stringify(calls.map((c) => c.expression?.slice(0, 40)))).toEqual(["evaluateExpression", "evaluateExpression"]);
    expect(after[0]!.expression).toContain("__wfQuiet.id");
    expect(after[0]!.expression).toContain("__wfQuiet.last");
  });
});
