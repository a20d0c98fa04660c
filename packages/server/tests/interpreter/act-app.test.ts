/**
 * ACT on an app-shaped page (issue 9): negative answers that name the right thing and come as soon
 * as the page is stable, loose text, twins, scopes, labels by proximity, sentences people write.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createDeterministicInterpreter, type InterpreterError } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { rejection, step, usePages } from "./_setup.js";

let server: StaticServer;
let page: Page;
// A find timeout far longer than any step here: a not-found must come from the page being stable.
const interpreter = createDeterministicInterpreter({ findTimeoutMs: 60_000 });

function act(instruction: string) {
  return interpreter.act(step(page, instruction, 20_000));
}
function failure(instruction: string): Promise<InterpreterError> {
  return rejection(act(instruction));
}
const log = async () => (await page.locator("#log").textContent()) ?? "";

usePages((test) => ({ server, page } = test), "app.html");

describe("negative answers name the right thing, as soon as the page is stable", () => {
  it("a missing option of a <select> lists the options, not 'not found'", async () => {
    const error = await failure('select "Huge" from "Size"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('has no option "Huge"');
    expect(error.message).toContain('Options: "Small", "Medium", "Large"');
    expect(error.details.candidates?.map((c) => c.name)).toEqual(["Small", "Medium", "Large"]);
  });

  it("a missing option of a custom dropdown lists what it shows once open", async () => {
    await act('select "Green" from "Colour"');
    expect(await log()).toContain("colour green");
    await page.reload();
    const error = await failure('select "Blue" from "Colour"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('has no option "Blue"');
    expect(error.message).toContain('Options: "Red", "Green"');
  });

  it("a target that is not there fails once the page is stable, not after the find timeout", async () => {
    // The step has 20 s and the find timeout is 60 s: only the settled page can end the search.
    const error = await failure('click "Frobnicate"');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
  });

  it("still waits for a target an app renders after a fetch", async () => {
    await page.goto(`${server.url}/late.html`);
    expect((await act('click "Continue"')).target).toBe('button "Continue"');
  });
});

describe("loose text: dashes, quotes, whitespace and case, and a link's unique prefix", () => {
  it("clicks a link written with an em dash by a hyphen, and curly quotes by straight ones", async () => {
    expect((await act('click "json - JSON encoder and decoder"')).target).toBe('link "json — JSON encoder and decoder"');
    expect((await act('click "csv – CSV file reading and writing"')).target).toBe('link "csv — CSV File Reading and Writing"');
    expect((await act(`click '"Smart" quotes - and dashes'`)).target).toBe('link "“Smart” quotes — and dashes"');
    expect(await log()).toBe("json;csv;quotes;");
  });

  it("clicks a link by the unique start of its name, up to a word boundary", async () => {
    expect((await act('click "json"')).target).toBe('link "json — JSON encoder and decoder"');
    expect((await act('click "jsonschema"')).target).toBe('link "jsonschema – validation"');
    expect(await log()).toBe("json;jsonschema;");
    // Not the start of a word: nothing matches.
    expect((await failure('click "jso"')).code).toBe("WF_ELEMENT_NOT_FOUND");
  });
});

describe("twins and ambiguity", () => {
  it("acts on the first of identical twins (the same search box in header and footer) and says so", async () => {
    const result = await act('fill "Search" with "dataclass"');
    expect(result.message).toContain('2 identical matches, searchbox "Search"');
    expect(result.message).toContain("used the first in document order");
    expect(await page.locator("header input").inputValue()).toBe("dataclass");
    expect(await page.locator("footer input").inputValue()).toBe("");
  });

  it("acts on the first of twin search boxes on a docs page (same form action and field name)", async () => {
    await page.goto(`${server.url}/constants.html`);
    const result = await act('type "dataclass" into "Quick search"');
    expect(result.message).toContain("used the first in document order");
    expect(await page.locator(".search-top input[name=q]").inputValue()).toBe("dataclass");
  });

  it("keeps buttons in different sections ambiguous, with a hint that itself names one", async () => {
    const error = await failure('click "Edit"');
    expect(error.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(error.message).toContain('`"Edit" in the "Profile" section`');
    // The hint works.
    await act('click "Edit" in the "Profile" section');
    expect(await log()).toBe("edit profile;");
  });

  it("keeps buttons of different list items ambiguous, and the item named in the hint picks one", async () => {
    const error = await failure('click "Delete"');
    expect(error.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(error.message).toContain('`"Delete" in the "Buy milk" item`');
    expect(error.message).not.toContain('`the "Delete" button`');
    expect(error.message).toContain('`the first "Delete" button`');
    await act('click "Delete" in the "Walk the dog" item');
    expect(await log()).toBe("delete dog;");
  });
});

describe("scopes: in/inside/within/under a section, dialog, row, table, list, form", () => {
  it("clicks in a section by its heading, quoted or not, and the innermost section's own button", async () => {
    await act('click "Edit" in the "Billing" section');
    await act("click Edit under the Invoices section");
    await act('click the "Edit" button within the "Profile" section');
    expect(await log()).toBe("edit billing;edit invoices;edit profile;");
  });

  it("clicks inside the open dialog, unnamed or by name", async () => {
    await act('click "Delete account"');
    const result = await act('click the "OK" button inside the dialog');
    expect(result.target).toBe('button "OK" in the dialog');
    await act('click "Delete account"');
    await act('click "OK" in the "Confirm deletion" dialog');
    expect(await log()).toBe("dialog ok;dialog ok;");
  });

  it("clicks the expander in a row, and nests a row in a table", async () => {
    expect((await failure('click the expander in the "status" row')).code).toBe("WF_ELEMENT_AMBIGUOUS");
    await act('click the "[...]" expander in the "status" row of the "Order" schema');
    await act('click the expander in the "status" row of the "Pet" table');
    await act('click "Expand" in the "id" row');
    expect(await log()).toBe("expand order.status;expand pet.status;expand order.id;");
  });

  it("fails naming the scope when nothing matches inside it", async () => {
    const error = await failure('click "Edit" in the "Shipping" section');
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('in the "Shipping" section');
    expect(error.message).toContain('the page has no "Shipping" section');
    // A place that exists but lacks the target: the usual closest candidates.
    const inProfile = await failure('click "Delete" in the "Profile" section');
    expect(inProfile.message).toMatch(/^no element matches "Delete" in the "Profile" section\./);
  });
});

describe("labels by proximity, below true accessible names", () => {
  it("selects in an unlabelled <select> named by its row's first cell", async () => {
    const result = await act('select "xml" from "format"');
    expect(result.message).toBe('Selected "xml" in combobox "format"');
    expect(await page.locator("table.parameters select").inputValue()).toBe("xml");
    await act('fill "limit" with "25"');
    expect(await page.locator("table.parameters input").inputValue()).toBe("25");
  });

  it("checks a checkbox whose text is a sibling <label> without for, and one beside a <dt>", async () => {
    await act('check "Buy milk"');
    expect(await page.locator("#t1").isChecked()).toBe(true);
    expect(await page.locator("#t2").isChecked()).toBe(false);
    await act('check "Notifications"');
    expect(await page.locator("#notify").isChecked()).toBe(true);
    await act('uncheck "buy milk"');
    expect(await page.locator("#t1").isChecked()).toBe(false);
  });

  it("prefers a true accessible name to a nearby text", async () => {
    // "Size" is a real <label for>: the select it labels, not anything beside the word.
    await act('select "Large" from "Size"');
    expect(await page.locator("#size").inputValue()).toBe("l");
  });
});

describe("sentences people write", () => {
  it("goes to the URL that ends a sentence", async () => {
    const result = await act(`Go to the library index at ${server.url}/constants.html`);
    expect(result).toMatchObject({ action: "goto", url: `${server.url}/constants.html` });
  });

  it("searches: types into the page's search box and submits", async () => {
    await page.goto(`${server.url}/constants.html`);
    const result = await act('Search for "dataclass"');
    expect(result.action).toBe("search");
    expect(result.url).toBe(`${server.url}/search-results.html?q=dataclass`);
  });

  it("fills the search box with an unquoted value", async () => {
    await act("fill the search box with dataclass");
    expect(await page.locator("header input").inputValue()).toBe("dataclass");
  });

  it("waits for the results as the page settling, not for the word", async () => {
    await page.goto(`${server.url}/late.html`);
    const result = await act("Wait for the search results to finish loading");
    expect(result.message).toContain("loaded and stable");
    expect(await page.getByRole("button", { name: "Continue" }).count()).toBe(1);
    await act("wait until the page has loaded");
  });

  it("fails at once on a wait that names nothing checkable, and on words it does not understand", async () => {
    const vague = await failure("wait until the spinner disappears");
    expect(vague.code).toBe("WF_INSTRUCTION_NOT_UNDERSTOOD");
    expect(vague.message).toContain("names nothing the grammar can check");
    const odd = await failure('click "Edit" and frobnicate the widget');
    expect(odd.code).toBe("WF_INSTRUCTION_NOT_UNDERSTOOD");
  });
});

describe("a long table cut into sections by heading rows", () => {
  beforeEach(async () => {
    await page.goto(`${server.url}/settings-table.html`);
  });

  it("scopes to the rows under a heading row, for a click and a proximity label", async () => {
    const both = await failure('click "Edit"');
    expect(both.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(both.message).toContain('`"Edit" in the "General" section`');
    await act('click "Edit" in the "Network" section');
    expect(await log()).toBe("edit network;");
    await act('check "Enabled" in the "Network" section');
    expect(await page.locator("#network-enabled").isChecked()).toBe(true);
    expect(await page.locator("#general-enabled").isChecked()).toBe(false);
    await act('fill "Name" in the "General" section with "gateway"');
    expect(await page.locator("#general-name").inputValue()).toBe("gateway");
  });
});
