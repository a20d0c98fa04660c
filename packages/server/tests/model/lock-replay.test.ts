/**
 * The lock replays what it recorded (issue 21): an ACT the model resolved is recorded as grammar
 * instructions that name exactly one element, and replayed at once (no model) on the same page,
 * the way `wf run`'s lock does: the step's reported `actions` become the next step's `replay`.
 * Through the real session manager and a real Chromium, with a double of the model provider that
 * picks element references from the page it was sent, as a model would.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ReplayAction, StepStatus } from "@wf/core/protocol";
import type { RunningServer } from "../../src/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { askReply, pageOf, type ModelDouble, type RecordedRequest } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
let pages: StaticServer;
let server: RunningServer;
const session = sessionSteps(() => fixture.server);

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/model/", import.meta.url)));
  ({ model, pages, server } = fixture);
});

afterAll(() => fixture?.close());

beforeEach(async () => {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected model call" });
  await session.open();
});

afterEach(() => session.close());

function act(step: string, replay?: ReplayAction[]): Promise<StepStatus> {
  return server.context.sessions.runStep(session.sessionId, { type: "ACT", step, ...(replay ? { replay } : {}) });
}


/**
 * The reference of the `role` element on the page line that shows `text` (a row, a list item, a
 * card): how a model picks a nameless checkbox by the words beside it. The `nth` such line, from 1.
 */
function refOnLine(request: RecordedRequest, text: string, role: string, nth = 1): string {
  const page = pageOf(request);
  const has = (unit: string) => unit.includes(text) && new RegExp(`\\[e\\d+\\] ${role}\\b`).test(unit);
  // A line (a table row), else a list item's block (the page view writes an item as "-" and its lines).
  let units = page.split("\n").filter(has);
  if (units.length === 0) units = page.split(/\n(?=-(?: |$))/m).filter(has);
  const unit = units[nth - 1];
  const ref = unit && new RegExp(`\\[(e\\d+)\\] ${role}\\b`).exec(unit)?.[1];
  if (!ref) throw new Error(`no ${role} on a line or item showing ${JSON.stringify(text)} in the page sent:\n${page.slice(0, 3000)}`);
  return ref;
}

/** The reference of the `role` element right after the line or heading that shows `text` (a dialog's title, a card's name). */
function refAfter(request: RecordedRequest, text: string, role: string, name?: string): string {
  const page = pageOf(request);
  const from = page.indexOf(text);
  if (from < 0) throw new Error(`no ${JSON.stringify(text)} in the page sent:\n${page.slice(0, 3000)}`);
  const m = new RegExp(`\\[(e\\d+)\\] ${role}${name ? ` "${name}"` : "\\b"}`).exec(page.slice(from));
  if (!m) throw new Error(`no ${role} after ${JSON.stringify(text)} in the page sent:\n${page.slice(from, from + 2000)}`);
  return m[1]!;
}

/** Records `step` through the model (one call), returning the actions a lock entry keeps. */
async function record(url: string, step: string, answer: (request: RecordedRequest) => { verb: string; ref: string | null; value: string | null }): Promise<ReplayAction[]> {
  expect((await act(`go to "${url}"`)).status).toBe("SUCCEEDED");
  model.requests.length = 0;
  model.script = (request) => ({ content: { reason: "the element the step names", actions: [answer(request)] } });
  const status = await act(step);
  expect(status.error ?? undefined).toBeUndefined();
  expect(status).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
  expect(model.requests).toHaveLength(1);
  const actions = (status.result as { actions: ReplayAction[] }).actions;
  expect(actions.length).toBeGreaterThan(0);
  model.script = () => ({ status: 500, message: "replay must not call the model" });
  return actions.map((a) => ({ instruction: a.instruction, ...(a.element ? { element: a.element } : {}) }));
}

/** Opens `url` afresh and replays `actions` as the runtime does (the step's `replay`), with no model call. */
async function replay(url: string, step: string, actions: ReplayAction[]): Promise<StepStatus> {
  expect((await act(`go to "${url}"`)).status).toBe("SUCCEEDED");
  const before = model.requests.length;
  const status = await act(step, actions);
  expect(model.requests.length).toBe(before);
  return status;
}

/** The page's title, as the page view sent to the model shows it (an ASK the double answers from its request). */
async function title(): Promise<string> {
  model.script = (request) => ({ content: askReply(request, { value: /^Page: (.*)$/m.exec(pageOf(request))?.[1] ?? null }) });
  const status = await server.context.sessions.runStep(session.sessionId, { type: "ASK", step: "the page title" });
  model.script = () => ({ status: 500, message: "unexpected model call" });
  return String(status.result);
}

describe("a recorded step replays on the page it was recorded on", { timeout: 60_000 }, () => {
  it("a nameless checkbox identified by its list item", async () => {
    const url = `${pages.url}/lock-todos.html`;
    const actions = await record(url, "tick off paying the rent", (r) => ({ verb: "check", ref: refOnLine(r, "Pay rent", "checkbox"), value: null }));
    expect(actions[0]!.instruction).toMatch(/^check the checkbox in the "Pay rent[^"]*" item$/);

    const status = await replay(url, "tick off paying the rent", actions);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status).toMatchObject({ status: "SUCCEEDED", replayed: true });
    expect(await title()).toBe("done: Pay rent");
  });

  it("an unlabelled select identified by the text in its table row", async () => {
    const url = `${pages.url}/lock-schema.html`;
    const actions = await record(url, "archive the record's state", (r) => ({ verb: "select", ref: refOnLine(r, "state", "combobox"), value: "archived" }));
    expect(actions[0]!.instruction).toMatch(/^select "archived" in the dropdown in the "state[^"]*" row$/);

    const status = await replay(url, "archive the record's state", actions);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status).toMatchObject({ status: "SUCCEEDED", replayed: true });
    expect(await title()).toBe("state = archived");
  });

  it("twin Close buttons in two dialogs (a <dialog> and a div with role=dialog and aria-labelledby)", async () => {
    const url = `${pages.url}/lock-dialogs.html`;
    const share = await record(url, "close the sharing dialog", (r) => ({ verb: "click", ref: refAfter(r, "Share settings", "button", "Close"), value: null }));
    expect(share[0]!.instruction).toBe('click the "Close" button in the "Share settings" dialog');
    const notifications = await record(url, "dismiss the notifications", (r) => ({ verb: "click", ref: refAfter(r, "Notifications", "button", "Close"), value: null }));
    expect(notifications[0]!.instruction).toBe('click the "Close" button in the "Notifications" dialog');

    let status = await replay(url, "close the sharing dialog", share);
    expect(status.error ?? undefined).toBeUndefined();
    expect(await title()).toBe("closed share");
    status = await replay(url, "dismiss the notifications", notifications);
    expect(status.error ?? undefined).toBeUndefined();
    expect(await title()).toBe("closed notifications");
  });

  it("a button whose visible text differs from its accessible name, one per card", async () => {
    const url = `${pages.url}/lock-cart.html`;
    const actions = await record(url, "put the green cup in the cart", (r) => ({ verb: "click", ref: refAfter(r, "Green cup", "button", "Add to cart"), value: null }));
    expect(actions[0]!.element).toMatchObject({ role: "button", name: "Add to cart" });
    expect(actions[0]!.instruction).toMatch(/^click the "Add to cart" button in the "Green cup[^"]*" (?:item|card)$/);

    const status = await replay(url, "put the green cup in the cart", actions);
    expect(status.error ?? undefined).toBeUndefined();
    expect(await title()).toBe("added Green cup");
  });

  it("an element no scope tells apart (the second of two identical items) is replayed by its recorded locator", async () => {
    const url = `${pages.url}/lock-todos.html?variant=twin`;
    const actions = await record(url, "tick off the second rent task", (r) => ({ verb: "check", ref: refOnLine(r, "Pay rent", "checkbox", 2), value: null }));
    expect(actions[0]!.element).toMatchObject({ role: "checkbox", primary: "locator" });

    const status = await replay(url, "tick off the second rent task", actions);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status).toMatchObject({ status: "SUCCEEDED", replayed: true });
    expect(await title()).toBe("done: Pay rent"); // one of the two, not both
  });

  it("an entry recorded before this change (an instruction that names four checkboxes) replays by its recorded locator", async () => {
    const url = `${pages.url}/lock-todos.html`;
    const actions: ReplayAction[] = [
      { instruction: "check the checkbox", element: { role: "checkbox", name: "", locator: "getByRole('listitem').filter({ hasText: 'Pay rent' }).getByRole('checkbox')" } },
    ];
    const status = await replay(url, "tick off paying the rent", actions);
    expect(status.error ?? undefined).toBeUndefined();
    expect(status).toMatchObject({ status: "SUCCEEDED", replayed: true });
    expect(await title()).toBe("done: Pay rent");
  });
});

describe("a page changed on purpose fails WF_REPLAY_MISMATCH naming the difference", { timeout: 60_000 }, () => {
  let rent: ReplayAction[];
  beforeEach(async () => {
    rent = await record(`${pages.url}/lock-todos.html`, "tick off paying the rent", (r) => ({ verb: "check", ref: refOnLine(r, "Pay rent", "checkbox"), value: null }));
  });

  it("the item renamed: the place it was recorded in is gone", async () => {
    const status = await replay(`${pages.url}/lock-todos.html?variant=renamed`, "tick off paying the rent", rent);
    expect(status.error?.code).toBe("WF_REPLAY_MISMATCH");
    expect(status.error?.message).toMatch(/the lock recorded checkbox "" in the "Pay rent" item, the page has nothing \(.*the page has no "Pay rent" (?:item|card)/);
    expect(status.error?.message).toMatch(/the page changed/i);
  });

  it("a twin added: two elements match and the recorded locator names two", async () => {
    const status = await replay(`${pages.url}/lock-todos.html?variant=twin`, "tick off paying the rent", rent);
    expect(status.error?.code).toBe("WF_REPLAY_MISMATCH");
    expect(status.error?.message).toMatch(/2 elements match `check the checkbox in the "Pay rent[^"]*" item`/);
  });

  it("the role changed: the message names the recorded and the found role", async () => {
    const status = await replay(`${pages.url}/lock-todos.html?variant=role`, "tick off paying the rent", rent);
    expect(status.error?.code).toBe("WF_REPLAY_MISMATCH");
    expect(status.error?.message).toContain('the lock recorded checkbox ""');
    expect(status.error?.message).toMatch(/the page has switch/);
  });

  it("an old instruction that names several elements, on an unchanged page, does not claim the page changed", async () => {
    const status = await replay(`${pages.url}/lock-todos.html`, "tick off paying the rent", [{ instruction: "check the checkbox", element: { role: "checkbox", name: "" } }]);
    expect(status.error?.code).toBe("WF_REPLAY_MISMATCH");
    expect(status.error?.message).toMatch(/\d elements match `check the checkbox`/);
    expect(status.error?.message).not.toMatch(/the page changed/i);
  });
});
