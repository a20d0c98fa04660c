/**
 * Shapes people write that the grammar used to miss (issue 24): a button named by the unique start
 * of its name, a modal built from divs, an unlabelled select named by its row's label cell, and a
 * section named by a disclosure button.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createDeterministicInterpreter, type InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { rejection, step, usePages } from "./_setup.js";

let server: StaticServer;
let page: Page;
const interpreter = createDeterministicInterpreter({ findTimeoutMs: 60_000 });

function act(instruction: string) {
  return interpreter.act(step(page, instruction, 20_000));
}
function failure(instruction: string): Promise<InterpreterError> {
  return rejection(act(instruction));
}
const log = async () => (await page.locator("#log").textContent()) ?? "";
const open = (fixture: string) => page.goto(`${server.url}/${fixture}`);

usePages((test) => ({ server, page } = test));

describe("a quoted name that is the unique start of a button's name", () => {
  it("clicks the button \"Archive done (3)\" for `click \"Archive done\"`, and a tab by the start of its name", async () => {
    await open("toolbar-modal.html");
    const result = await act('click "Archive done"');
    expect(result.target).toBe('button "Archive done (3)"');
    expect(result.element).toEqual({ role: "button", name: "Archive done (3)" });
    expect((await act('click the "Inbox" tab')).target).toBe('tab "Inbox (12)"');
    expect(await log()).toBe("archive;tab inbox;");
  });

  it("still needs a separator: `Archive` names neither \"Archive done (3)\" nor \"Archive all\" by its start", async () => {
    await open("toolbar-modal.html");
    expect((await failure('click "Archive d"')).code).toBe("WF_ELEMENT_NOT_FOUND");
    expect((await act('click "Archive all"')).target).toBe('button "Archive all"');
  });
});

describe("a modal built from divs is a dialog", () => {
  it("clicks the modal's button by its visible text, not the same-named button behind the overlay, and reports its accessible name", async () => {
    await open("toolbar-modal.html");
    await act('click "Settings"');
    const result = await act('click the "Save" button inside the dialog');
    expect(result.element).toEqual({ role: "button", name: "Apply settings" });
    expect(result.target).toBe('button "Apply settings" in the dialog');
    expect(await log()).toBe("modal save;");
  });

  it("names the modal by its heading, and says there is no dialog when it is closed", async () => {
    await open("toolbar-modal.html");
    await act('click "Settings"');
    await act('click "Cancel" in the "Display settings" dialog');
    expect(await log()).toBe("modal cancel;");
    const error = await failure('click the "Save" button inside the dialog');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain("the page has no dialog");
  });

  it("without a scope, the form's own Save is still the one named Save", async () => {
    await open("toolbar-modal.html");
    expect((await act('click "Save"')).element).toEqual({ role: "button", name: "Save" });
    expect(await log()).toBe("form save;");
  });
});

describe("an unlabelled select named by the label in its row", () => {
  it("selects in the row whose first cell starts with the parameter's name (name, type and description in one cell)", async () => {
    await open("params-table.html");
    const result = await act('select "updated" from "sort"');
    expect(result.message).toBe('Selected "updated" in combobox "sort"');
    expect(await page.locator("tr[data-param-name=sort] select").inputValue()).toBe("updated");
    await act('select "sold" from the "status" dropdown');
    expect(await page.locator("tr[data-param-name=status] select").inputValue()).toBe("sold");
  });

  it("names the option asked for and lists the ones that exist when it is missing", async () => {
    await open("params-table.html");
    const error = await failure('select "newest" from "sort"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('has no option "newest"');
    expect(error.message).toContain('Options: "--", "created", "updated", "total"');
    expect(error.details.target).toBe("newest");
  });
});

describe("a section named by a disclosure button", () => {
  it("clicks the expander in a field's row of the model a disclosure button names", async () => {
    await open("schema-browser.html");
    await act('click the "[...]" expander in the "status" row of the Order schema');
    await act('click the "[...]" expander in the "status" row of the "Pet" schema');
    expect(await log()).toBe("expand order.status;expand pet.status;");
  });

  it("keeps the rows of two models apart: unscoped it is ambiguous, with a hint naming the model", async () => {
    await open("schema-browser.html");
    const error = await failure('click the "[...]" expander in the "status" row');
    expect(error.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(error.message).toContain('in the "Order" section');
  });

  it("a collapsed model is a section whose rows show once it is expanded; a model the page does not have is named", async () => {
    await open("schema-browser.html");
    const hidden = await failure('click the "[...]" expander in the "status" row of the User schema');
    expect(hidden.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(hidden.message).not.toContain("has no");
    await act('click the "User" expander');
    await act('click the "[...]" expander in the "status" row of the User schema');
    expect(await log()).toBe("expand user.status;");
    const none = await failure('click the "[...]" expander in the "status" row of the Category schema');
    expect(none.message).toContain('the page has no "Category" section');
  });
});
