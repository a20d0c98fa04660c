/**
 * The page as the model sees it, on the shapes real pages have and earlier views dropped: a nested
 * `div`/`span` app holding a long highlighted JSON response, a `dl` table of contents whose terms
 * lack definitions, same-origin and cross-origin iframes (two local servers) with forms, and open
 * shadow roots with a form. Through the real server and Chromium, against a "perfect" model double:
 * it answers an ASK only when the prompt holds the answer, and acts only on an element the prompt
 * shows, so a step succeeds exactly when the view carried what it needs.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";
import { askReply, pageOf, type RecordedRequest } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/model/", import.meta.url));
/** The app fixtures the grammar's tests use too (a Material UI app as it renders). */
const APP_FIXTURES = fileURLToPath(new URL("../fixtures/interpreter/", import.meta.url));

let fixture: ModelServer;
/** Another origin (another port) for the cross-origin frame. */
let otherOrigin: StaticServer;
let apps: StaticServer;
const session = sessionSteps(() => fixture.server);
const { act, ask } = session;

beforeAll(async () => {
  fixture = await startModelServer(FIXTURES);
  otherOrigin = await startStaticServer(FIXTURES);
  apps = await startStaticServer(APP_FIXTURES);
});

afterAll(async () => {
  await fixture?.close();
  await otherOrigin?.close();
  await apps?.close();
});

beforeEach(async () => {
  fixture.model.requests.length = 0;
  fixture.model.script = () => ({ status: 500, message: "unexpected call" });
  await session.open();
});

afterEach(() => session.close());

async function open(path: string): Promise<void> {
  expect(await act(`go to "${fixture.pages.url}/${path}"`)).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });
}

/** Every element line of the page sent: ref, role, name. */
function elementsSent(request: RecordedRequest): Array<{ ref: string; role: string; name: string }> {
  return [...pageOf(request).matchAll(/\[((?:f\d+)?e\d+)\] (\w+) "([^"]*)"/g)].map((m) => ({ ref: m[1]!, role: m[2]!, name: m[3]! }));
}

/**
 * A perfect model's ACT: the one element of `role` named `name` (inside a frame when `inFrame`),
 * only when the page sent shows it; else no action ("not on the page").
 */
function actOn(verb: string, name: string, role: string, value: string | null = null, inFrame?: boolean) {
  return (request: RecordedRequest) => {
    const found = elementsSent(request).filter((e) => e.name === name && e.role === role && (inFrame === undefined || e.ref.startsWith("f") === inFrame));
    if (found.length !== 1) return { content: { reason: `${found.length} elements ${role} "${name}" on the page sent`, actions: null } };
    return { content: { reason: `the ${role} "${name}"`, actions: [{ verb, ref: found[0]!.ref, value }] } };
  };
}

/** A perfect model's ASK: `value` when the page sent contains `evidence`, else null. */
function answerIfShown(evidence: string, value: unknown) {
  return (request: RecordedRequest) => ({ content: askReply(request, { value: pageOf(request).includes(evidence) ? value : null }) });
}

const Text = z.object({ value: z.string().nullable() });

describe("structure, not inline runs", () => {
  it("keeps a long highlighted JSON response of a nested div/span app whole, line by line, and the elements after it", async () => {
    await open("view-api-explorer.html");
    fixture.model.script = answerIfShown('"name": "Clementine-the-last"', "Clementine-the-last");
    const last = await ask("the name of the last pet in the response body", Text);
    expect(last).toMatchObject({ status: "SUCCEEDED", result: { value: "Clementine-the-last" } });
    const page = pageOf(fixture.model.requests[0]!);
    // The body is over 5,000 characters, far under the budget: nothing cut, one JSON line a line.
    expect(page).not.toContain("omitted");
    expect(last.pageReduced).toBeUndefined();
    expect(page.match(/"status": "available"/g)).toHaveLength(24);
    expect(page).toMatch(/^\s+"name": "Clementine-the-last",$/m);
    expect(page).toContain("x-request-id: req-7f3a9c2e-petstore");

    fixture.model.script = actOn("click", "Download", "button");
    expect(await act("download the response body")).toMatchObject({ status: "SUCCEEDED", interpreter: "model", resolved: 'click the "Download" button' });
    fixture.model.script = answerIfShown('button "Downloaded"', "Downloaded");
    expect(await ask("what the download control says now", Text)).toMatchObject({ result: { value: "Downloaded" } });
  });

  it("keeps every term of a dl table of contents, with or without a definition, and its link", async () => {
    await open("view-toc.html");
    fixture.model.script = actOn("click", "1. Installation from Binaries", "link");
    const opened = await act("open the chapter on installing from binaries");
    expect(opened).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    expect(opened.result).toMatchObject({ url: `${fixture.pages.url}/view-toc.html#installation` });
    const page = pageOf(fixture.model.requests[0]!);
    for (const entry of ["I. Tutorial", "3. Server Setup and Operation", "A. Release Notes", "B. Acronyms", "Bibliography", "2.1. Upgrading Data via pg_dumpall"]) {
      expect(page).toMatch(new RegExp(`\\[e\\d+\\] link "${entry.replace(/[.]/g, "\\.")}"`));
    }
    // Sub-entries sit under their term, not on its line.
    expect(page).toMatch(/^(\s*)\[e\d+\] link "2\. Upgrading a Cluster"\n\1\s+\[e\d+\] link "2\.1\./m);
    // A glossary term with a definition reads as one line; one without keeps its own line.
    expect(page).toContain("ANSI: American National Standards Institute");
    expect(page).toMatch(/^\s*API$/m);
  });
});

describe("frames", () => {
  it("shows a same-origin and a cross-origin iframe (and one nested in it) where they sit, and acts in them", async () => {
    await open(`view-frames.html?pay=${encodeURIComponent(`${otherOrigin.url}/view-frame-pay.html`)}`);

    fixture.model.script = actOn("fill", "Card number", "textbox", "4242 4242 4242 4242");
    const filled = await act("enter the test card 4242 4242 4242 4242");
    expect(filled).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    expect((filled.result as { element: { locator: string } }).element.locator).toMatch(/contentFrame\(\)\.getBy\w+\(.*Card number/);
    const page = pageOf(fixture.model.requests[0]!);
    expect(page).toMatch(/iframe "Delivery address":\n\s+Street \[f\d+e\d+\] textbox "Street" = "1 Main St"/);
    expect(page).toMatch(/iframe "Secure card payment":/);
    expect(page).toMatch(/iframe "3-D Secure":\n\s+Verified by PayCo: ready/);

    fixture.model.script = actOn("click", "Pay €42.00", "button");
    expect(await act("pay")).toMatchObject({ status: "SUCCEEDED" });
    fixture.model.script = answerIfShown("Payment authorised for card ending 4242", "authorised");
    expect(await ask("did the payment go through?", Text)).toMatchObject({ result: { value: "authorised" } });

    // Two "Save" buttons: the page's and the address frame's. The model names the one in the frame.
    fixture.model.script = actOn("fill", "City", "textbox", "Lisbon", true);
    expect(await act("set the delivery city to Lisbon")).toMatchObject({ status: "SUCCEEDED" });
    fixture.model.script = actOn("click", "Save", "button", null, true);
    const saved = await act("save the delivery address");
    expect(saved).toMatchObject({ status: "SUCCEEDED" });
    expect((saved.result as { element: { locator: string } }).element.locator).toMatch(/^locator\('iframe\[title="Delivery address"\]'\)\.contentFrame\(\)/);
    fixture.model.script = answerIfShown("Address saved: Lisbon", "Lisbon");
    expect(await ask("the saved city", Text)).toMatchObject({ result: { value: "Lisbon" } });
  });
});

describe("shadow roots", () => {
  it("reads open shadow roots (slots included) and acts in them; a closed root stays unseen", async () => {
    await open("view-shadow.html");
    fixture.model.script = actOn("fill", "Display name", "textbox", "Ada");
    expect(await act("set my display name to Ada")).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    const page = pageOf(fixture.model.requests[0]!);
    expect(page).toMatch(/^\s*# Account settings$/m);
    expect(page).toContain("Member since: March 2019");
    expect(page).toMatch(/navigation "Sections": \[e\d+\] link "Profile" \[e\d+\] link "Billing"/);
    expect(page).not.toContain("Closed root text");

    fixture.model.script = actOn("fill", "Team", "textbox", "Core");
    expect(await act("put Core as the team")).toMatchObject({ status: "SUCCEEDED" });
    fixture.model.script = actOn("click", "Save profile", "button");
    expect(await act("save the profile")).toMatchObject({ status: "SUCCEEDED" });
    fixture.model.script = answerIfShown("Saved Ada of Core", "Saved Ada of Core");
    expect(await ask("the profile's status message", Text)).toMatchObject({ result: { value: "Saved Ada of Core" } });
  });
});

describe("an app as its accessibility tree has it (Material UI)", () => {
  it("names elements as Playwright does, lists an open autocomplete's options one by one, and names the dialog by its labelledby", async () => {
    expect(await act(`go to "${apps.url}/mui-app.html"`)).toMatchObject({ status: "SUCCEEDED" });
    expect(await act('type "react" into "Search packages"')).toMatchObject({ status: "SUCCEEDED", interpreter: "grammar" });

    fixture.model.script = answerIfShown('option "react-dom React package for working with the DOM. 18.3.1"', "react-dom");
    expect(await ask("the package name of the second suggestion", Text)).toMatchObject({ status: "SUCCEEDED", result: { value: "react-dom" } });
    const asked = pageOf(fixture.model.requests[0]!);
    expect(asked).toMatch(/^listbox:\n  option "react React is a JavaScript library for building user interfaces\. 18\.3\.1"\n  option "react-dom /m);
    // The name Playwright matches, with what CSS shows beside it.
    expect(asked).toContain('button "Login" (shows "LOGIN")');
    expect(asked).toContain('tab "Readme" (shows "README") (selected)');

    fixture.model.script = actOn("click", "react-router Declarative routing for React 6.26.2", "option");
    const picked = await act("pick the react-router suggestion");
    expect(picked).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    expect(picked.resolved).toBe('click the "react-router Declarative routing for React 6.26.2" option');

    fixture.model.script = actOn("click", "Login", "button");
    expect(await act("open the sign-in form")).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    fixture.model.script = actOn("fill", "Email", "textbox", "ada@example.com");
    expect(await act("enter ada@example.com as the email")).toMatchObject({ status: "SUCCEEDED", interpreter: "model" });
    const signIn = pageOf(fixture.model.requests.at(-1)!);
    expect(signIn).toMatch(/^dialog "Close":$/m);
    expect(signIn).not.toContain("Email *");
    // MUI hides the page behind its modal from assistive technology: the app bar is not in the view.
    expect(signIn).not.toContain("Search packages");
  });
});
