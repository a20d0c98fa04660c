/**
 * The grammar never guesses (issue 31), through the real server (no model) and Chromium: an
 * instruction with several actions is run as the sequence it says or refused, never typed as one
 * text; an unquoted URL is never cut short; a target with a curly apostrophe is a normal
 * not-found, never a selector error; an ASK without a schema answers what it names or fails
 * `WF_ANSWER_NOT_FOUND`, never with the whole page.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/index.js";
import { sessionSteps } from "../helpers/model-server.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

let server: RunningServer;
let pages: StaticServer;
let dataDir: string;
const session = sessionSteps(() => server);
const { act, ask } = session;

beforeAll(async () => {
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/trust/", import.meta.url)));
  dataDir = await mkdtemp(join(tmpdir(), "wf-trust-"));
  server = await startServer({ port: 0, apiKeys: ["k"], dataDir, journalSync: false, stepTimeoutMs: 20_000 });
});
afterAll(async () => {
  await server?.close();
  await pages?.close();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await session.open();
  await act(`go to "${pages.url}/profile.html"`);
});
afterEach(() => session.close());

/** Whether a grammar check holds on the session's page now. */
async function holds(statement: string): Promise<boolean> {
  const status = await server.context.sessions.runStep(session.sessionId, { type: "ASK", step: statement, check: { timeoutMs: 500 } });
  return status.status === "SUCCEEDED";
}

describe("an instruction with several actions", () => {
  it("is refused, never typed into the field as one text: `fill in the name field with Ada and then submit the form`", async () => {
    const status = await act("fill in the name field with Ada and then submit the form");
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_INSTRUCTION_NOT_UNDERSTOOD" } });
    expect(status.error!.message).toMatch(/the part "submit the form"/);
    expect(await holds('the page does not show "name:"')).toBe(true);
    expect(await holds('the page does not show "submitted"')).toBe(true);
  });

  it("an unquoted value that says `then` is refused and says how to quote it", async () => {
    const status = await act("fill the name field with Ada, then Grace");
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_INSTRUCTION_NOT_UNDERSTOOD" } });
    expect(status.error!.message).toMatch(/reads as several actions\. Quote the value/);
  });

  it("is run as the sequence it says when each action has its verb, each action reported", async () => {
    const status = await act('fill "Name" with "Ada", then click "Save profile"');
    expect(status).toMatchObject({ status: "SUCCEEDED", result: { action: "click" } });
    expect((status.result as { message: string }).message).toMatch(/^Filled textbox "Name" with "Ada"; Clicked button "Save profile"/);
    expect(await holds('the page shows "submitted: Ada"')).toBe(true);
  });
});

describe("go to", () => {
  it("refuses an unquoted URL ending in `!` instead of opening it without the `!`, and says how to quote it", async () => {
    const status = await act(`go to ${pages.url}/order.html?pw=hunter2!`, { redact: ["hunter2!"] });
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_INSTRUCTION_NOT_UNDERSTOOD" } });
    expect(status.error!.message).toMatch(/ends in "!", which may end the sentence or belong to the URL/);
    expect(await holds('the title is "Your profile"')).toBe(true);
  });

  it("opens a quoted URL exactly as written, and the secret in it stays out of the records", async () => {
    const status = await act(`go to "${pages.url}/order.html?pw=hunter2!"`, { redact: ["hunter2!"] });
    expect(status).toMatchObject({ status: "SUCCEEDED", result: { action: "goto" } });
    expect(JSON.stringify(status)).not.toContain("hunter2");
    expect(await holds('the URL contains "pw=hunter2!"')).toBe(true);
  });
});

describe("user text in selectors", () => {
  it("a target with a curly apostrophe finds the button written with a straight one; one with no match is a normal not-found", async () => {
    expect(await act('click "Ada’s order"')).toMatchObject({ status: "SUCCEEDED", result: { element: { role: "button", name: "Ada's order" } } });
    expect(await holds('the page shows "order opened"')).toBe(true);
    const status = await act('click "Bob’s order"');
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_ELEMENT_NOT_FOUND" } });
    expect(status.error!.message).toMatch(/Closest: "Ada's order" \(button\)/);
  });
});

describe("ask without a schema", () => {
  it("fails WF_ANSWER_NOT_FOUND for a thing the page does not name, instead of answering with the whole page", async () => {
    const status = await ask("the greeting");
    expect(status).toMatchObject({ status: "FAILED", error: { code: "WF_ANSWER_NOT_FOUND" } });
    expect(status.error!.message).toMatch(/`the page text`/);
  });

  it("answers the page text, a heading's section, and the open dialog's text", async () => {
    expect((await ask("the page text")).result).toContain("Hello, Grace");
    expect((await ask("the Returns policy")).result).toBe("Items can be returned within 30 days. Refunds go to the original card.");
    expect((await ask('the text of the "Shipping" section')).result).toBe("Orders ship in 2 days.");
    expect((await ask("what does the dialog say?")).result).toBe("We use cookies only to keep you signed in. OK");
  });
});
