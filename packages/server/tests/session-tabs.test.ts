/**
 * Tabs, popups and file uploads through the real server (session manager, queue, records) and a
 * real Chromium, with the grammar only (no model): a tab an action opens is followed and the step
 * says so; `switch to the … tab` and `close this tab`; uploads through a hidden file input behind
 * its label and through a "browse" button that opens the file chooser; and the bytes a remote
 * client sends with a step.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROUTES, routePath, type StepStatus } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const FILES = fileURLToPath(new URL("./fixtures/tabs/files/", import.meta.url));

let pages: StaticServer;
let server: RunningServer;
let dataDir: string;
let sessionId: string;

beforeAll(async () => {
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/tabs/", import.meta.url)));
  dataDir = await mkdtemp(join(tmpdir(), "wf-tabs-"));
  server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, uploadRoot: FILES, stepTimeoutMs: 15_000, bodyLimitBytes: 64 * 1024 });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  sessionId = (await server.context.sessions.createSession({ kind: "STEP" })).sessionId;
});

afterEach(async () => {
  await server.context.sessions.finishSession(sessionId, { status: "SUCCEEDED" }).catch(() => undefined);
});

function act(step: string, extra: { files?: Array<{ path: string; name: string; contentBase64: string }> } = {}): Promise<StepStatus> {
  return server.context.sessions.runStep(sessionId, { type: "ACT", step, ...extra });
}

async function ok(step: string): Promise<StepStatus> {
  const status = await act(step);
  expect(status, `${step}: ${JSON.stringify(status.error)}`).toMatchObject({ status: "SUCCEEDED" });
  return status;
}

describe("tabs and popups", () => {
  it("follows a target=_blank link into its new tab, says so in the result, and the next steps act there", async () => {
    await ok(`go to "${pages.url}/orders.html"`);
    const opened = await ok('click "Open invoice"');
    expect(opened.result).toMatchObject({
      action: "click",
      url: `${pages.url}/invoice.html?order=42`,
      tab: { change: "opened", index: 2, count: 2, url: `${pages.url}/invoice.html?order=42`, title: "Invoice 42" },
    });
    expect((opened.result as { message: string }).message).toContain('a new tab opened; now on tab 2 of 2: "Invoice 42"');
    expect(opened.pageUrl).toBe(`${pages.url}/invoice.html?order=42`);

    await ok('click "Mark as paid"');
    await ok('wait for "Invoice 42 marked as paid"');
    // No browser tab is named "History": the page's own tab of that name is clicked.
    const pageTab = await ok('switch to the "History" tab');
    expect(pageTab.result).toMatchObject({ action: "click", element: { role: "tab", name: "History" } });
    expect(pageTab.result).not.toHaveProperty("tab");
    await ok('wait for "No payments yet for invoice 42"');
    // A step that changes no tab reports none.
    expect((await ok('wait for "Amount due"')).result).not.toHaveProperty("tab");
  });

  it("follows a window.open popup; a popup that closes itself falls back to the tab that opened it", async () => {
    await ok(`go to "${pages.url}/orders.html"`);
    const popup = await ok('click "Print view"');
    expect(popup.result).toMatchObject({ tab: { change: "opened", index: 2, count: 2, title: "Print preview" } });
    const closed = await ok('click "Done printing"');
    expect(closed.result).toMatchObject({ tab: { change: "closed", index: 1, count: 1, title: "Orders · Acme back office" } });
    expect(closed.pageUrl).toBe(`${pages.url}/orders.html`);
    await ok('wait for "printed"');
  });

  it("follows a tab opened in the middle of a chained instruction, and one the page opens late (in the next step)", async () => {
    await ok(`go to "${pages.url}/orders.html"`);
    await ok('click "Open invoice" and click "Mark as paid"');
    await ok('wait for "Invoice 42 marked as paid"');

    await ok("switch to the first tab");
    const late = await ok('click "Open the receipt (after a moment)"');
    expect(late.result).not.toHaveProperty("tab"); // the page opens it 400 ms later
    const waited = await ok("wait 1 second");
    expect(waited.result).toMatchObject({ tab: { change: "opened", index: 3, count: 3, title: "Invoice 43" } });
    await ok('wait for "$75.50"');
  });

  it("switches by title or URL (case-folded) and by position, closes tabs, and names the open tabs when none matches", async () => {
    await ok(`go to "${pages.url}/orders.html"`);
    await ok('click "Open invoice"');
    expect((await ok("switch to the first tab")).result).toMatchObject({ action: "switch", tab: { change: "switched", index: 1, count: 2 } });
    await ok('click "Print view"');

    const byTitle = await ok('switch to the "invoice" tab');
    expect(byTitle.result).toMatchObject({ tab: { change: "switched", index: 2, count: 3, title: "Invoice 42" } });
    expect((byTitle.result as { message: string }).message).toBe(`Switched to tab 2 of 3: "Invoice 42" at ${pages.url}/invoice.html?order=42`);
    expect(byTitle.pageUrl).toBe(`${pages.url}/invoice.html?order=42`);
    expect((await ok('switch to the "PRINT.html" tab')).result).toMatchObject({ tab: { index: 3, title: "Print preview" } });

    const ambiguous = await act('switch to the "order=42" tab');
    expect(ambiguous).toMatchObject({ status: "FAILED", error: { code: "WF_TAB_AMBIGUOUS" } });
    expect(ambiguous.error!.message).toContain('2 tabs match it: 2. "Invoice 42"');
    const missing = await act('switch to the "Refunds" tab');
    expect(missing).toMatchObject({ status: "FAILED", error: { code: "WF_TAB_NOT_FOUND" } });
    expect(missing.error!.message).toContain(`Open tabs: 1. "Orders · Acme back office" (${pages.url}/orders.html); 2. "Invoice 42"`);
    expect(missing.error!.message).toContain('3. "Print preview"');
    expect(await act("switch to the fifth tab")).toMatchObject({ status: "FAILED", error: { code: "WF_TAB_NOT_FOUND" } });

    expect((await ok("switch to the last tab")).result).toMatchObject({ tab: { index: 3 } });
    expect((await ok("switch to the second tab")).result).toMatchObject({ tab: { index: 2 } });
    // Closing the current tab falls back to the one current before it (the print preview).
    const closed = await ok("close this tab");
    expect(closed.result).toMatchObject({ action: "close", tab: { change: "closed", index: 2, count: 2, title: "Print preview" } });
    const named = await ok('close the "Print preview" tab');
    expect(named.result).toMatchObject({ tab: { change: "closed", index: 1, count: 1, title: "Orders · Acme back office" } });
    expect(named.pageUrl).toBe(`${pages.url}/orders.html`);
    expect(await act("close this tab")).toMatchObject({ status: "FAILED", error: { code: "WF_TAB_CLOSE_REFUSED" } });
    await ok('click "Open invoice"'); // the session still works on its one tab
  });
});

describe("uploads", () => {
  it("uploads through a hidden file input behind a styled label, and through a button that opens the file chooser", async () => {
    await ok(`go to "${pages.url}/upload.html"`);
    const label = await ok('upload "receipt.txt" to "Choose a file…"');
    expect(label.result).toMatchObject({ action: "upload" });
    await ok('wait for "Attached: receipt.txt (44 bytes)"');
    const button = await ok('upload "passport-scan.txt" to the "browse" button');
    expect(button.result).toMatchObject({ action: "upload", element: { role: "button", name: "browse" } });
    await ok('wait for "Scan attached: passport-scan.txt — PASSPORT SCAN of A. Lovelace"');
  });

  it("uploads the bytes a remote client sent with the step, from a session folder deleted when the session ends", async () => {
    await ok(`go to "${pages.url}/upload.html"`);
    const content = "REMOTE receipt bytes 99.00 EUR\n";
    const files = [{ path: "client/docs/remote-receipt.txt", name: "remote-receipt.txt", contentBase64: Buffer.from(content).toString("base64") }];
    expect(existsSync(join(FILES, "client/docs/remote-receipt.txt"))).toBe(false); // not on the server's disk
    const before = new Set((await readdir(tmpdir())).filter((n) => n.startsWith("wf-uploads-")));
    await expect(act('upload "client/docs/remote-receipt.txt" to "Choose a file…"', { files })).resolves.toMatchObject({ status: "SUCCEEDED" });
    await ok(`wait for "Attached: remote-receipt.txt (${content.length} bytes)"`);
    const made = (await readdir(tmpdir())).filter((n) => n.startsWith("wf-uploads-") && !before.has(n));
    expect(made).toHaveLength(1);
    await server.context.sessions.finishSession(sessionId, { status: "SUCCEEDED" });
    expect(existsSync(join(tmpdir(), made[0]!))).toBe(false);
  });

  it("answers 413 WF_UPLOAD_TOO_LARGE past 10 MiB of files, and keeps the body limit for the rest of the body", async () => {
    const call = (body: unknown) =>
      fetch(server.url + routePath(ROUTES.stepRun, { id: sessionId }), { method: "POST", headers: { "api-key": "k", "content-type": "application/json" }, body: JSON.stringify(body) });
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1).toString("base64");
    const tooLarge = await call({ type: "ACT", step: 'upload "big.bin" to "Choose a file…"', files: [{ path: "big.bin", name: "big.bin", contentBase64: big }] });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ code: "WF_UPLOAD_TOO_LARGE", detail: expect.stringContaining("10485761 bytes") });
    const dom = await call({ type: "ASK", step: "x", currentDom: "<p>" + "a".repeat(70 * 1024) + "</p>" });
    expect(dom.status).toBe(413);
    expect(await dom.json()).toMatchObject({ code: "WF_BODY_TOO_LARGE" });
  });
});
