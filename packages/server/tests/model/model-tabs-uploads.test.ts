/**
 * Tabs, popups and uploads through the model: the real server and Chromium, a double of the
 * provider. Asserts on what the model was sent (the link or button it needs, the `Tabs:` line, no
 * secret path) and on what the service does with its answer (the step follows the popup and says
 * so; the file is uploaded; a path the instruction does not name is refused with a retry).
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseInstructions } from "../../src/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { pageOf, refFor, type ModelDouble } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
let pages: StaticServer;
const session = sessionSteps(() => fixture.server);
const { act } = session;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/tabs/", import.meta.url)), {
    uploadRoot: fileURLToPath(new URL("../fixtures/tabs/files/", import.meta.url)),
  });
  ({ model, pages } = fixture);
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
});

afterEach(() => session.close());

describe("popups through the model", () => {
  it("clicks the link the model picks, follows the tab it opens, says so, and tells the model the open tabs from then on", async () => {
    await act(`go to "${pages.url}/orders.html"`);
    model.script = (request) => ({ content: { reason: "The invoice link of order 42.", actions: [{ verb: "click", ref: refFor(request, "Open invoice", "link"), value: null }] } });
    const opened = await act("show me the invoice for order 42");
    expect(opened).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'click the "Open invoice" link' });
    expect(opened.result).toMatchObject({ action: "click", tab: { change: "opened", index: 2, count: 2, title: "Invoice 42" }, url: `${pages.url}/invoice.html?order=42` });
    const first = pageOf(model.requests[0]!);
    expect(first).toMatch(/\[e\d+\] link "Open invoice"/);
    expect(first).toContain("Ada Lovelace");
    expect(first).not.toContain("Tabs:"); // one tab: no line

    model.requests.length = 0;
    model.script = (request) => ({ content: { reason: "Mark as paid.", actions: [{ verb: "click", ref: refFor(request, "Mark as paid", "button"), value: null }] } });
    expect(await act("settle this invoice")).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    const second = pageOf(model.requests[0]!);
    expect(second).toContain('Tabs: 1 "Orders · Acme back office"; 2 "Invoice 42" (current, the page below)');
    expect(second).toContain("Invoice 42");
    expect(await act('wait for "Invoice 42 marked as paid"')).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });

    model.script = () => ({ content: { reason: "The order list is tab 1.", actions: [{ verb: "switch_tab", ref: null, value: "1" }] } });
    const back = await act("return to the list of orders");
    expect(back).toMatchObject({ status: "SUCCEEDED", resolved: "switch to the first tab", result: { tab: { change: "switched", index: 1, count: 2 } } });
    expect(parseInstructions(back.resolved!)).toEqual([{ verb: "switch-tab", tab: { index: 1 } }]);

    model.script = () => ({ content: { reason: "Close the invoice.", actions: [{ verb: "close_tab", ref: null, value: "Invoice 42" }] } });
    const closed = await act("get rid of the invoice window");
    expect(closed).toMatchObject({ status: "SUCCEEDED", resolved: 'close the "Invoice 42" tab', result: { tab: { change: "closed", index: 1, count: 1 } } });
  });

  it("follows a window.open popup opened by a clickable div", async () => {
    await act(`go to "${pages.url}/orders.html"`);
    model.script = (request) => ({ content: { reason: "Print view opens the printable page.", actions: [{ verb: "click", ref: refFor(request, "Print view"), value: null }] } });
    const popup = await act("show me the printable version of order 42");
    expect(popup).toMatchObject({ status: "SUCCEEDED", result: { tab: { change: "opened", title: "Print preview" } } });
    expect(pageOf(model.requests[0]!)).toMatch(/\[e\d+\] \w+ "Print view"/);
  });
});

describe("uploads through the model", () => {
  it("uploads the file the instruction names through the button that opens the file chooser", async () => {
    await act(`go to "${pages.url}/upload.html"`);
    model.script = (request) => ({ content: { reason: "browse opens the file chooser of the drop zone.", actions: [{ verb: "upload", ref: refFor(request, "browse", "button"), value: "passport-scan.txt" }] } });
    const status = await act("add passport-scan.txt to the supporting documents");
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'upload "passport-scan.txt" to the "browse" button', result: { action: "upload" } });
    const page = pageOf(model.requests[0]!);
    expect(page).toContain("Drop a scan here or");
    expect(page).toMatch(/\[e\d+\] button "browse"/);
    expect(model.requests[0]!.body.messages[0]!.content).toMatch(/- upload: ref of the file input/);
    expect(await act('wait for "Scan attached: passport-scan.txt — PASSPORT SCAN of A. Lovelace"')).toMatchObject({ status: "SUCCEEDED" });
  });

  it("asks again when the model uploads a file the instruction does not name", async () => {
    await act(`go to "${pages.url}/upload.html"`);
    model.script = (request, n) => ({
      content: { reason: "browse.", actions: [{ verb: "upload", ref: refFor(request, "browse", "button"), value: n === 0 ? "receipt.txt" : "passport-scan.txt" }] },
    });
    const status = await act("add passport-scan.txt to the supporting documents");
    expect(status).toMatchObject({ status: "SUCCEEDED", usage: { calls: 2 } });
    expect(model.requests[1]!.body.messages.at(-1)!.content).toMatch(/uploads "receipt.txt", which is not a file the instruction names/);
  });

  it("never shows the model a secret file path: it uploads {{secret1}} and the service uses the real one", async () => {
    await act(`go to "${pages.url}/upload.html"`);
    const secretPath = "passport-scan.txt";
    model.script = (request) => ({ content: { reason: "browse.", actions: [{ verb: "upload", ref: refFor(request, "browse", "button"), value: "{{secret1}}" }] } });
    const status = await act(`attach my scan ${secretPath} to the supporting documents`, { redact: [secretPath] });
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'upload "[secret]" to the "browse" button' });
    expect(pageOf(model.requests[0]!)).toContain("Instruction: attach my scan {{secret1}} to the supporting documents");
    for (const request of model.requests) expect(request.raw).not.toContain(secretPath);
    expect(await act('wait for "PASSPORT SCAN of A. Lovelace"')).toMatchObject({ status: "SUCCEEDED" });
  });
});
