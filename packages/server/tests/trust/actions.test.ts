/**
 * Actions checked before they run (issue 31), through the real server and Chromium, with a double
 * of the model provider that answers wrongly on purpose: a verb that does not fit its element
 * (`check` on a button, `select` on a text field) or an element the page marks disabled is re-asked
 * once with the reason, then fails with its own code, nothing done to the page; the grammar's own
 * actions are checked the same way, without a model call. The page is then inspected by grammar
 * checks (`allowModel: false`).
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StepStatus } from "@wf/core/protocol";
import { refFor, type ModelDouble, type RecordedRequest } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
const session = sessionSteps(() => fixture.server);
const { act } = session;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/trust/", import.meta.url)));
  model = fixture.model;
});
afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
  await act(`go to "${fixture.pages.url}/order.html"`);
});
afterEach(() => session.close());

/** Whether a grammar check holds on the session's page now (no model). */
async function holds(statement: string): Promise<boolean> {
  const status = await fixture.server.context.sessions.runStep(session.sessionId, { type: "ASK", step: statement, check: { timeoutMs: 500 }, allowModel: false });
  return status.status === "SUCCEEDED";
}

/** A plan of one action on the element whose line names `text` (with `role`). */
function plan(verb: string, text: string, role: string, value: string | null = null) {
  return (request: RecordedRequest) => ({ content: { reason: `${verb} ${text}.`, actions: [{ verb, ref: refFor(request, text, role), value }] } });
}

/** The user message of the re-ask: what the model was told was wrong. */
function reasked(): string {
  return model.requests[1]!.body.messages.at(-1)!.content;
}

function failed(status: StepStatus, code: string): void {
  expect(status).toMatchObject({ status: "FAILED", error: { code } });
}

describe("a model's action that does not fit its element", () => {
  it("`check` on a button is re-asked once with the reason, then fails WF_ACTION_NOT_APPLICABLE; no nearby checkbox is ticked", async () => {
    model.script = plan("check", "Add gift wrap", "button");
    const status = await act("add gift wrapping to my order");

    failed(status, "WF_ACTION_NOT_APPLICABLE");
    expect(status.error!.message).toMatch(/button "Add gift wrap"/);
    expect(model.requests).toHaveLength(2);
    expect(reasked()).toMatch(/\(check\) is on e\d+, button "Add gift wrap", which is not what `check` acts on: it applies to a checkbox/);
    expect(await holds('the "Gift wrap" checkbox is not checked')).toBe(true);
    expect(await holds('the page does not show "wrap clicked"')).toBe(true);
  });

  it("a `check` corrected on the re-ask ticks the checkbox it names, and the step reports and records that element", async () => {
    model.script = (request, n) => (n === 0 ? plan("check", "Add gift wrap", "button")(request) : plan("check", "Gift wrap", "checkbox")(request));
    const status = await act("add gift wrapping to my order");

    expect(status).toMatchObject({ status: "SUCCEEDED", resolved: 'check the "Gift wrap" checkbox', result: { action: "check", element: { role: "checkbox", name: "Gift wrap" } } });
    expect(model.requests).toHaveLength(2);
    expect(await holds('the "Gift wrap" checkbox is checked')).toBe(true);
  });

  it("`select` on a text field fails WF_ACTION_NOT_APPLICABLE; the field is not typed into", async () => {
    model.script = plan("select", "Delivery note", "textbox", "Large");
    const status = await act("pick the large box for the delivery");

    failed(status, "WF_ACTION_NOT_APPLICABLE");
    expect(model.requests).toHaveLength(2);
    expect(reasked()).toMatch(/textbox "Delivery note", which is not what `select` acts on: it applies to a dropdown/);
    expect(await holds('the page does not show "note:"')).toBe(true);
  });

  it("`fill` on a <select> fails WF_ACTION_NOT_APPLICABLE", async () => {
    model.script = plan("fill", "Box size", "combobox", "Large");
    failed(await act("make the box size large please"), "WF_ACTION_NOT_APPLICABLE");
    expect(model.requests).toHaveLength(2);
  });

  it("a click on an element the page marks disabled is re-asked, then fails WF_ELEMENT_DISABLED at once, not at the step's deadline", async () => {
    model.script = plan("click", "Pay now", "button");
    const status = await act("pay for the order right away", { timeoutMs: 15_000 });

    failed(status, "WF_ELEMENT_DISABLED");
    expect(status.error!.message).toMatch(/button "Pay now", which is disabled/);
    expect(model.requests).toHaveLength(2);
    expect(reasked()).toMatch(/button "Pay now", which is disabled/);
    expect(await holds('the page does not show "paid"')).toBe(true);
  });
});

describe("the grammar's actions, checked the same way (no model call)", () => {
  it("a click on a disabled button fails WF_ELEMENT_DISABLED once the page has settled", async () => {
    const status = await act('click "Pay now"', { timeoutMs: 15_000 });
    failed(status, "WF_ELEMENT_DISABLED");
    expect(status.error!.message).toMatch(/button "Pay now" is disabled\. Nothing was done to it\./);
    expect(model.requests).toHaveLength(0);
  });

  it("waits for a button the page enables while it is still changing", async () => {
    // "Save for later" enables "Pay now" a moment later.
    await act('click "Save for later"');
    expect(await act('click "Pay now"')).toMatchObject({ status: "SUCCEEDED", result: { action: "click" } });
    expect(await holds('the page shows "paid"')).toBe(true);
    expect(model.requests).toHaveLength(0);
  });

  it("`select` on a text field fails WF_ACTION_NOT_APPLICABLE and says how to fill it; `set … to` fills it", async () => {
    const status = await act('select "Large" in "Delivery note"');
    failed(status, "WF_ACTION_NOT_APPLICABLE");
    expect(status.error!.message).toMatch(/`set "…" to "…"`/);
    expect(await holds('the page does not show "note:"')).toBe(true);

    expect(await act('set "Delivery note" to "Ring twice"')).toMatchObject({ status: "SUCCEEDED", result: { action: "fill" } });
    expect(await holds('the page shows "note: Ring twice"')).toBe(true);
    expect(await act('select "Large" in "Box size"')).toMatchObject({ status: "SUCCEEDED", result: { action: "select" } });
    expect(model.requests).toHaveLength(0);
  });

  it("a read-only field fails WF_ELEMENT_DISABLED", async () => {
    const status = await act('fill "Order reference" with "ORD-9"');
    failed(status, "WF_ELEMENT_DISABLED");
    expect(status.error!.message).toMatch(/is read-only/);
  });

  it("`check` on a button the instruction names by its role fails; the item form still ticks the item's checkbox", async () => {
    failed(await act('check the "Add gift wrap" button'), "WF_ACTION_NOT_APPLICABLE");
    expect(await holds('the "Gift wrap" checkbox is not checked')).toBe(true);
    expect(await act('check "gift wrap"')).toMatchObject({ status: "SUCCEEDED", result: { element: { role: "checkbox" } } });
    expect(await holds('the "Gift wrap" checkbox is checked')).toBe(true);
    expect(model.requests).toHaveLength(0);
  });
});

describe("what the grammar refuses goes to the model", () => {
  it("a target with a curly apostrophe and no match is a normal not-found, handed to the model (no selector error)", async () => {
    model.script = () => ({ content: { reason: "There is no receipt of Ada on the page.", actions: null } });
    const status = await act('click "Ada’s receipt"');
    failed(status, "WF_MODEL_NO_MATCH");
    expect(model.requests).toHaveLength(1);
  });

  it("a compound instruction is handed to the model, which carries out each action, each reported", async () => {
    model.script = (request) => ({
      content: {
        reason: "Fill the note, then save.",
        actions: [
          { verb: "fill", ref: refFor(request, "Delivery note", "textbox"), value: "Ring twice" },
          { verb: "click", ref: refFor(request, "Save for later", "button"), value: null },
        ],
      },
    });
    const status = await act("fill the delivery note with Ring twice and then save the order for later");
    expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'type "Ring twice" into the "Delivery note" field; click the "Save for later" button' });
    expect(status.result).toMatchObject({ actions: [{ element: { name: "Delivery note" } }, { element: { name: "Save for later" } }] });
    expect(await holds('the page shows "saved"')).toBe(true);
  });
});
