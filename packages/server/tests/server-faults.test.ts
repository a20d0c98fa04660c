/**
 * Browser faults never wedge a session (issue 33), through the real server and Chromium: a page
 * that spins its main thread and a page that raises an alert every 10 ms each fail their step with
 * `WF_PAGE_UNRESPONSIVE` by the step's deadline; after it the session answers its next step at
 * once, `close` answers at once and the slot is free for the next session. A renderer crash during
 * `go to` is `WF_PAGE_CRASHED`; a page whose body never finishes arriving is
 * `WF_NAVIGATION_TIMEOUT` naming how far it got. The faulty network is a double: a local HTTP
 * server that stalls or trickles. Time caps here only prove "did not hang"; they are far above
 * what the steps take.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient, type ApiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-faults";
/** Far above anything here takes; reaching it means something hung. */
const HANG_CAP_MS = 20_000;
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;
let api: ApiClient;
/** The faulty site: `/trickle` sends its headers, then a few bytes every 200 ms forever; `/stall` sends half a page and waits. */
let faulty: Server;
let faultyUrl: string;
/** Called when `/stall` is asked for, with its answer (kept open). */
let onStall: ((res: ServerResponse) => void) | undefined;
const open: ServerResponse[] = [];

beforeAll(async () => {
  faulty = createServer((req, res) => {
    open.push(res);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.write(`<!doctype html><html><head><title>Monthly report</title></head><body><div class="wrap"><h1>Monthly report</h1>`);
    if (req.url === "/trickle") {
      const timer = setInterval(() => res.write(`<div class="row"><span>${Date.now()}</span></div>\n`), 200);
      res.on("close", () => clearInterval(timer));
    } else {
      onStall?.(res);
    }
  });
  await new Promise<void>((resolve) => faulty.listen(0, "127.0.0.1", resolve));
  faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
  dataDir = await mkdtemp(join(tmpdir(), "wf-faults-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/", import.meta.url)));
  // One slot: a session that is not freed makes the next create a 429.
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", maxSessions: 1 });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  for (const res of open) res.destroy();
  faulty?.close();
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Runs `promise`, failing the test when it takes over {@link HANG_CAP_MS}. */
async function answers<T>(what: string, promise: Promise<T>, capMs = HANG_CAP_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${capMs} ms`)), capMs)));
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sessions the tests create: one a failed test leaves open is closed after it, so the one slot is free for the next test. */
const created: string[] = [];
async function create() {
  const session = await api.create();
  created.push(session.workflowId);
  return session;
}
afterEach(async () => {
  for (const id of created.splice(0)) await api.call("POST", routePath(ROUTES.stepClose, { id }), {}).catch(() => undefined);
});

async function step(id: string, instruction: string, timeoutMs = 15_000) {
  // A step answers by its own deadline (and a few seconds to end it): a longer wait is a wedge.
  return answers(`the step ${JSON.stringify(instruction)}`, api.runOk(id, { type: "ACT", step: instruction, timeoutMs }).then((s) => api.finished(s.stepId)), Math.max(HANG_CAP_MS, timeoutMs + 5_000));
}

async function close(id: string) {
  return answers("close", api.call("POST", routePath(ROUTES.stepClose, { id }), {}));
}

it("a page spinning its main thread fails WF_PAGE_UNRESPONSIVE; the next step runs, close answers and the slot is freed", async () => {
  const { workflowId } = await create();
  expect((await step(workflowId, `go to "${pages.url}/faults/freeze.html"`)).status).toBe("SUCCEEDED");
  const hung = await step(workflowId, `click "Build report"`, 8_000);
  expect(hung.status).toBe("FAILED");
  expect(hung.error).toMatchObject({ code: "WF_PAGE_UNRESPONSIVE", message: expect.stringContaining("stopped responding") });
  // The hung page was closed: the session carries on in a new tab, at once.
  const next = await step(workflowId, `go to "${pages.url}/server/index.html"`);
  expect(next.status).toBe("SUCCEEDED");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("close right after an unresponsive step answers at once and frees the slot", async () => {
  const { workflowId } = await create();
  await step(workflowId, `go to "${pages.url}/faults/freeze.html"`);
  // 8 s: on a loaded machine the click must have started the loop before the deadline (a step that
  // times out before it did, on a page that still answers, is rightly WF_STEP_TIMEOUT).
  expect((await step(workflowId, `click "Build report"`, 8_000)).error?.code).toBe("WF_PAGE_UNRESPONSIVE");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("a page raising an alert every 10 ms fails its step WF_PAGE_UNRESPONSIVE, its dialogs listed; the next step runs, close answers and the slot is freed", async () => {
  const { workflowId } = await create();
  await step(workflowId, `go to "${pages.url}/faults/alerts.html"`);
  const start = await step(workflowId, `click "Start warnings"`);
  // Whatever a step does now lands between two alerts by chance: the step fails once the loop is
  // plain (10 dialogs within 5 s), saying why, and the page is closed.
  // On a loaded machine the click's own step may already last long enough to see the loop.
  const storm = start.status === "FAILED" ? start : await step(workflowId, `wait for "Kept"`);
  // The first alert opens 10 ms after the click: the click's step lists it when it opened before
  // the step ended (a loaded machine), else the next step does (dialogs between steps go to the next).
  expect((start.dialogs ?? storm.dialogs)?.[0]).toMatchObject({ type: "alert", message: "Your session is about to expire.", handled: "accepted" });
  expect(storm.status).toBe("FAILED");
  expect(storm.error).toMatchObject({ code: "WF_PAGE_UNRESPONSIVE", message: expect.stringContaining("dialogs in a loop") });
  expect(storm.dialogs?.[0]?.count).toBeGreaterThanOrEqual(1);
  const next = await step(workflowId, `go to "${pages.url}/server/index.html"`);
  expect(next.status).toBe("SUCCEEDED");
  expect((await close(workflowId)).status).toBe(200);
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("a renderer crash during go to is WF_PAGE_CRASHED, not a navigation failure", async () => {
  const { workflowId } = await create();
  const first = `${pages.url}/server/index.html`;
  expect((await step(workflowId, `go to "${first}"`)).status).toBe("SUCCEEDED");
  const browser = await server.context.browser.start();
  const page = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === first)!;
  // Half the page has arrived: the renderer that reads it dies (Chromium's own Page.crash).
  onStall = () => {
    onStall = undefined;
    setTimeout(() => void page.context().newCDPSession(page).then((cdp) => cdp.send("Page.crash")).catch(() => undefined), 300);
  };
  const crashed = await step(workflowId, `go to "${faultyUrl}/stall"`);
  expect(crashed.status).toBe("FAILED");
  expect(crashed.error).toMatchObject({ code: "WF_PAGE_CRASHED", message: expect.stringContaining("crashed") });
  // The session ended with it and its slot is free.
  expect((await api.session(workflowId)).status).toBe("FAILED");
  const again = await answers("create", api.call("POST", ROUTES.stepCreate, {}));
  expect(again.status).toBe(200);
  expect((await close(again.json.workflowId)).status).toBe(200);
});

it("a page whose body never finishes arriving is WF_NAVIGATION_TIMEOUT, naming the URL and how far it got", async () => {
  const { workflowId } = await create();
  const url = `${faultyUrl}/trickle`;
  const slow = await step(workflowId, `go to "${url}"`, 4_000);
  expect(slow.status).toBe("FAILED");
  expect(slow.error).toMatchObject({ code: "WF_NAVIGATION_TIMEOUT", details: { url, loadState: "response" } });
  expect(slow.error?.message).toContain(url);
  expect(slow.error?.message).toContain("body never finished arriving");
  // The session answers its next step at once.
  expect((await step(workflowId, `go to "${pages.url}/server/index.html"`)).status).toBe("SUCCEEDED");
  expect((await close(workflowId)).status).toBe(200);
});

it("a navigation that runs out of time while the service's thread is held up is still WF_NAVIGATION_TIMEOUT", async () => {
  // On a loaded machine the thread may stall past both the navigation's timeout (3.5 s here) and
  // the step's deadline (4 s): the navigation's own failure must still win, as it does on time.
  const { workflowId } = await create();
  const url = `${faultyUrl}/trickle`;
  const started = Date.now();
  const held = setTimeout(() => {
    const until = Date.now() + 1_500;
    while (Date.now() < until); // the thread is busy: no timer fires, no message is read
  }, 3_000);
  try {
    const slow = await step(workflowId, `go to "${url}"`, 4_000);
    expect(Date.now() - started).toBeGreaterThan(4_500);
    expect(slow.status).toBe("FAILED");
    expect(slow.error).toMatchObject({ code: "WF_NAVIGATION_TIMEOUT", details: { url, loadState: "response" } });
  } finally {
    clearTimeout(held);
  }
  expect((await close(workflowId)).status).toBe(200);
});

it("a not-found on a 200,000-node page never says the page shows no interactive elements, and says when its search stopped early", async () => {
  // A ledger of ~66,000 rows (div, span, text: ~200,000 nodes) built by the page's script, and a button under it.
  const dir = await mkdtemp(join(tmpdir(), "wf-huge-"));
  await writeFile(
    join(dir, "ledger.html"),
    `<!doctype html><html><head><meta charset="utf-8"><title>Ledger</title></head><body><div id="grid"></div>
<div class="footer"><button type="button" class="btn">Export ledger</button> <a href="#top">Back to top</a></div>
<script>var rows = []; for (var i = 0; i < 66667; i++) rows.push('<div class="r"><span>Entry ' + i + '</span></div>'); document.getElementById("grid").innerHTML = rows.join("");</script>
</body></html>`,
  );
  const site = await startStaticServer(dir);
  try {
    const { workflowId } = await create();
    expect((await step(workflowId, `go to "${site.url}/ledger.html"`, 60_000)).status).toBe("SUCCEEDED");
    const missing = await step(workflowId, `click "Download the ledger"`, 60_000);
    expect(missing.error?.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(missing.error?.message).not.toContain("no interactive elements");
    const details = missing.error?.details as { candidates: Array<{ name: string }>; searchComplete?: boolean };
    // Either the search read the page whole and names the button, or it says it stopped early.
    if (details.searchComplete === false) expect(missing.error?.message).toMatch(/very large|too large/);
    else expect(details.candidates.map((c) => c.name)).toContain("Export ledger");
    expect((await close(workflowId)).status).toBe(200);
  } finally {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
  // Its two steps may take 60 s each: a not-found on this page takes ~20 s on a quiet machine, far more under load.
}, 150_000);
