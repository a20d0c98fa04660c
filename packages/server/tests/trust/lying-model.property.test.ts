/**
 * The lying-model suite, property-based (issue 31): through the real server, a real Chromium and
 * the provider double, the double answers every step from the page view it was sent, but with
 * whatever fast-check draws: an ACT with one action of a random verb on a random reference of that
 * view (or one it does not have) with a value from the page or from nowhere; an ASK with values and
 * quotes from the view (its markup included) or made up; a check of a statement false by
 * construction with evidence from the view, the statement or nowhere. The invariant, per run:
 *
 * - the step fails with a named code (never the generic WF_STEP_FAILED / WF_STEP_TIMEOUT), or
 * - it succeeded and what it says is true: an ACT's `result.element` is the element whose
 *   reference the model gave, and the page's controls changed only on that element, as its verb
 *   says (read from the session's page before and after); every value an ASK returns is text the
 *   page states; a false statement never passes a check.
 *
 * Each run starts on a fresh load of `account.html`; the seed is fixed so a failure replays.
 */
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { StepStatus } from "@wf/core/protocol";
import { ACT_VERBS } from "../../src/interpreter/model/prompts.js";
import { askReply, pageOf, type ModelDouble, type Quote, type RecordedRequest } from "../helpers/model-double.js";
import { sessionSteps, startModelServer, type ModelServer } from "../helpers/model-server.js";

let fixture: ModelServer;
let model: ModelDouble;
const session = sessionSteps(() => fixture.server);
const RUNS = 25;
const SEED = 31;
/**
 * Each step's deadline, in ms: generous, because the machine running the suite may be loaded; a
 * named refusal comes long before it, so reaching it (WF_STEP_TIMEOUT) means a step hung.
 */
const STEP_MS = 12_000;

beforeAll(async () => {
  fixture = await startModelServer(fileURLToPath(new URL("../fixtures/trust/", import.meta.url)));
  model = fixture.model;
  await session.open();
}, 60_000);

afterAll(async () => {
  console.log(`lying-model outcomes: ${JSON.stringify(tally, null, 1)}`);
  await session.close().catch(() => undefined);
  await fixture?.close();
});

const pageUrl = () => `${fixture.pages.url}/account.html`;

/** Codes a step may fail with under a lying model: each names what was wrong. */
const NAMED = new Set([
  "WF_ACTION_NOT_APPLICABLE",
  "WF_ELEMENT_DISABLED",
  "WF_ELEMENT_NOT_FOUND",
  "WF_MODEL_NO_MATCH",
  "WF_MODEL_ANSWER_INVALID",
  "WF_ANSWER_UNCERTAIN",
  "WF_ANSWER_NOT_FOUND",
  "WF_CHECK_FAILED",
  "WF_OPTION_NOT_FOUND",
  "WF_INVALID_KEY",
  "WF_NAVIGATION_FAILED",
  "WF_NAVIGATION_BLOCKED",
  "WF_TAB_NOT_FOUND",
  "WF_TAB_CLOSE_REFUSED",
  "WF_UPLOAD_FILE_NOT_FOUND",
  "WF_UPLOAD_NOT_ALLOWED",
]);

/**
 * The session's current page, read beside the server (the test's own eyes on the browser; the
 * server has no public accessor for it).
 */
function livePage(): Page {
  const sessions = fixture.server.context.sessions as unknown as { registry: { live: Map<string, { browser: { page: Page } }> } };
  return sessions.registry.live.get(session.sessionId)!.browser.page;
}

/** A fresh load of the fixture; a new session when the last run closed its tab or broke it. */
async function fresh(): Promise<void> {
  model.requests.length = 0;
  model.script = () => ({ status: 500, message: "unexpected call" });
  try {
    await livePage().goto(pageUrl(), { timeout: 5_000 });
    return;
  } catch {
    await session.close().catch(() => undefined);
    await session.open();
  }
  const status = await session.act(`go to "${pageUrl()}"`);
  expect(status.status).toBe("SUCCEEDED");
}

/** Every control's state: what an action may change. */
interface Control {
  id: string;
  value: string;
  checked: boolean;
  selected: string;
}
async function controls(): Promise<Control[]> {
  return livePage().evaluate(() =>
    Array.from(document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>("input, select, textarea")).map((e) => ({
      id: e.id,
      value: e.value,
      checked: e instanceof HTMLInputElement ? e.checked : false,
      selected: e instanceof HTMLSelectElement ? (e.selectedOptions[0]?.textContent ?? "") : "",
    })),
  );
}

/** The controls of account.html by their accessible name (case-folded), as the view names them. */
const CONTROL_IDS: Record<string, string> = {
  "full name": "full-name",
  "account number": "acct",
  plan: "plan",
  "anything we should know": "notes",
  "email me receipts": "receipts",
  "product news": "promo",
};

/** What the page states, as a person reads it: its text, field values, options and accessible names. */
async function statedText(): Promise<string> {
  return livePage().evaluate(() => {
    const parts = [document.body.innerText];
    for (const e of Array.from(document.querySelectorAll<HTMLElement>("*"))) {
      if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) parts.push(e.value, e.placeholder);
      if (e instanceof HTMLOptionElement) parts.push(e.textContent ?? "");
      for (const a of ["aria-label", "title"]) if (e.getAttribute(a)) parts.push(e.getAttribute(a)!);
    }
    return parts.join("\n");
  });
}

const fold = (text: string) => text.normalize("NFKC").toLowerCase().replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/[|\s]+/g, " ").trim();

/** Numbers the text writes (1,234.50 → 1234.5). */
function numbersOf(text: string): number[] {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, "")));
}

/** The element lines of a view: reference, role, name. */
interface ViewElement {
  ref: string;
  role: string;
  name: string;
}
function elementsOf(request: RecordedRequest): ViewElement[] {
  return [...pageOf(request).matchAll(/\[((?:f\d+)?e\d+)\] (\w+) "([^"]*)"/g)].map((m) => ({ ref: m[1]!, role: m[2]!, name: m[3]! }));
}

/** Strings of the view: its lines, their words, the names and values in quotes (markup included, on purpose). */
function stringsOf(request: RecordedRequest): string[] {
  const view = pageOf(request).split("\nThe page:\n").at(-1)!;
  const lines = view.split("\n").filter(Boolean);
  return [...lines, ...lines.flatMap((l) => l.split(/\s+/)), ...[...view.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)].filter((s) => s.length > 0);
}

/** A string drawn for a request: from its view (by index), or given. */
type Drawn = { from: "view"; index: number } | { from: "given"; text: string } | { from: "none" };
const drawn: fc.Arbitrary<Drawn> = fc.oneof(
  fc.record({ from: fc.constant("view" as const), index: fc.nat() }),
  fc.record({ from: fc.constant("given" as const), text: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("Team", "Basic", "Enter", "Tab", "ArrowDown", " ", "Space", "42.00", "Ada", "e99", "/etc/passwd", "https://example.test/")) }),
  fc.constant({ from: "none" as const }),
);
function resolve(d: Drawn, request: RecordedRequest): string | null {
  if (d.from === "none") return null;
  if (d.from === "given") return d.text;
  const strings = stringsOf(request);
  return strings[d.index % strings.length]!;
}

/** Verbs that act on an element, and what each may change on it. */
const MAY_CHANGE_TARGET = new Set(["click", "double_click", "press", "check", "uncheck", "fill", "clear", "select", "upload"]);
const NAVIGATES = new Set(["goto", "back", "forward", "reload", "switch_tab", "close_tab"]);

/** Outcomes per property (`SUCCEEDED` or the failure's code), printed at the end: a property that never succeeds proves little. */
const tally: Record<string, Record<string, number>> = {};
function count(property: string, status: StepStatus, extra = ""): void {
  const key = (status.status === "SUCCEEDED" ? "SUCCEEDED" : (status.error?.code ?? status.status)) + extra;
  const t = (tally[property] ??= {});
  t[key] = (t[key] ?? 0) + 1;
}

function expectNamedFailure(status: StepStatus, label: string): void {
  expect(status.status, `${label}: ${JSON.stringify(status.error ?? status.result)}`).toBe("FAILED");
  expect(NAMED.has(status.error!.code), `${label}: failed ${status.error!.code}: ${status.error!.message}`).toBe(true);
}

describe("a model that answers ACTs with random actions", () => {
  // A reference: any element of the view, one whose role the verb acts on (so that some lies are
  // carried out and their effect checked), or one the view does not have.
  const ref = fc.oneof(
    { weight: 4, arbitrary: fc.nat() },
    { weight: 3, arbitrary: fc.record({ fitting: fc.nat() }) },
    { weight: 1, arbitrary: fc.constantFrom("e999", "", "button") },
  );
  const plan = fc.record({ ref, verb: fc.constantFrom(...ACT_VERBS), value: drawn });
  type Plan = { ref: number | { fitting: number } | string; verb: string; value: Drawn };
  const ROLES: Record<string, string[]> = { fill: ["textbox"], clear: ["textbox"], check: ["checkbox"], uncheck: ["checkbox"], select: ["combobox"] };

  function pick(p: Plan, elements: ViewElement[]): ViewElement | undefined {
    if (typeof p.ref === "string" || !elements.length) return undefined;
    if (typeof p.ref === "number") return elements[p.ref % elements.length];
    const roles = ROLES[p.verb];
    const fitting = roles ? elements.filter((e) => roles.includes(e.role)) : elements;
    return fitting[p.ref.fitting % fitting.length];
  }

  it("fails with a named code, or acted on the element it names, as its verb says, and on no other", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plan, { minLength: 2, maxLength: 2 }), async (plans: Plan[]) => {
        await fresh();
        const before = await controls();
        const sent: Array<{ verb: string; ref: string | null; value: string | null; element?: ViewElement }> = [];
        model.script = (request, n) => {
          const p = plans[Math.min(n, plans.length - 1)]!;
          const elements = elementsOf(request);
          const element = pick(p, elements);
          const action = { verb: p.verb, ref: element ? element.ref : typeof p.ref === "string" ? p.ref : null, value: resolve(p.value, request) };
          sent.push({ ...action, element });
          return { content: { reason: "Because.", actions: [action] } };
        };
        const status = await session.act("do what the account page needs done", { timeoutMs: STEP_MS });
        count("act", status, ` ${sent.at(-1)?.verb}`);
        const label = JSON.stringify(sent.map(({ verb, ref, value, element }) => ({ verb, ref, value, on: element && `${element.role} "${element.name}"` })));
        if (status.status !== "SUCCEEDED") return expectNamedFailure(status, label);

        const done = sent.at(-1)!;
        const result = status.result as { action?: string; element?: { role: string; name: string } };
        if (NAVIGATES.has(done.verb)) return; // the page is another one (or a reload); the next run loads it afresh
        if (done.element) expect(result.element, label).toMatchObject({ role: done.element.role, name: done.element.name });
        const after = await controls();
        const target = done.element ? CONTROL_IDS[done.element.name.toLowerCase()] : undefined;
        for (const [i, was] of before.entries()) {
          const now = after[i]!;
          if (now.id !== target || !MAY_CHANGE_TARGET.has(done.verb)) {
            expect(now, `${label}: #${now.id} changed`).toEqual(was);
            continue;
          }
          if (done.verb === "check") expect(now.checked, label).toBe(true);
          if (done.verb === "uncheck") expect(now.checked, label).toBe(false);
          if (done.verb === "fill") expect(now.value, label).toBe(done.value);
          if (done.verb === "clear") expect(now.value, label).toBe("");
          if (done.verb === "select") expect(fold(now.selected), label).toBe(fold(done.value ?? ""));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);
});

describe("a model that answers ASKs with values and quotes from anywhere", () => {
  const Answer = z.object({ holder: z.string().nullable(), amount: z.number().nullable() });
  const quote = fc.record({ on: fc.constantFrom("/holder", "/amount", "/"), text: fc.oneof(drawn, fc.constant({ from: "same" as const })) });
  const number = fc.oneof(fc.constantFrom(19, 1234.5, 1234, 0.99, 3, 2024, 77310, 42, 301), fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer());

  it("fails with a named code, or every value it returns is text the page states", async () => {
    await fc.assert(
      fc.asyncProperty(drawn, fc.option(number), fc.array(quote, { maxLength: 3 }), fc.boolean(), async (holder, amount, quotes, withSchema) => {
        await fresh();
        const sent: unknown[] = [];
        model.script = (request) => {
          // A quote is drawn like a value, or is the holder's value itself (a lie the quote repeats).
          const q: Quote[] = quotes.flatMap((x) => {
            const text = x.text.from === "same" ? resolve(holder, request) : resolve(x.text, request);
            return text === null ? [] : [{ path: withSchema ? x.on : "/value", quote: text }];
          });
          const answer = withSchema ? { holder: resolve(holder, request), amount } : { value: resolve(holder, request) };
          sent.push({ answer, quotes: q });
          return { content: askReply(request, answer, q) };
        };
        const status = withSchema ? await session.ask("the account holder and the amount due", Answer, { timeoutMs: STEP_MS }) : await session.ask("the account holder", undefined, { timeoutMs: STEP_MS });
        count("ask", status);
        const label = JSON.stringify(sent);
        if (status.status !== "SUCCEEDED") return expectNamedFailure(status, label);

        const stated = fold(await statedText());
        const numbers = numbersOf(await statedText());
        const result = status.result as Record<string, unknown> | string | null;
        const values = result === null || typeof result !== "object" ? [result] : Object.values(result);
        const given = (sent.at(-1) as { quotes: Quote[] }).quotes;
        for (const value of values) {
          if (value === null) continue;
          if (typeof value === "string") {
            const ok = stated.includes(fold(value)) || (/^[\d.,]+$/.test(value.trim()) && numbers.includes(Number(value.replace(/,/g, ""))));
            expect(ok, `${label}: returned ${JSON.stringify(value)}, which the page does not state`).toBe(true);
          } else if (typeof value === "number") {
            // A number the page writes, or a count or sum of the page text quoted for it.
            const own = given.filter((g) => g.path === "/amount" || g.path === "/");
            for (const g of own) expect(stated.includes(fold(g.quote)), `${label}: quote ${JSON.stringify(g.quote)} is not page text`).toBe(true);
            const derived = value === own.length || value === own.reduce((sum, g) => sum + (numbersOf(g.quote)[0] ?? 0), 0);
            expect(numbers.includes(value) || derived, `${label}: returned ${value}, which the page does not write`).toBe(true);
          } else {
            throw new Error(`${label}: unexpected value ${JSON.stringify(value)}`);
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);
});

describe("a model that says every check holds", () => {
  const absent = fc.oneof(
    fc.constantFrom("Enterprise", "Gold", "Grace Hopper", "INV-999", "ACC-12345", "Premium", "Cancelled", "Refunded"),
    fc.integer({ min: 100_000, max: 999_999 }).map((n) => `${n}.37`),
  );
  const statement = fc.tuple(
    fc.constantFrom("The plan is {x}", "The account is held by {x}", "Invoice INV-302 came to {x}", "The account number is {x}", "The status says {x}", "There is a {x} invoice", "The last invoice is {x}"),
    absent,
  );
  const evidence = fc.oneof(drawn, fc.constant({ from: "statement" as const }));

  it("never passes a statement that is false", async () => {
    await fc.assert(
      fc.asyncProperty(statement, evidence, async ([template, x], ev) => {
        await fresh();
        const said = template.replace("{x}", x);
        const stated = fold(await statedText());
        fc.pre(!stated.includes(fold(x))); // false by construction: the page never says it
        model.script = (request) => ({
          content: { holds: true, reason: "The page shows it.", evidence: ev.from === "statement" ? said : (resolve(ev, request) ?? "") },
        });
        const status = await fixture.server.context.sessions.runStep(session.sessionId, { type: "ASK", step: said, check: { timeoutMs: 1_000 } });
        count("check", status);
        expectNamedFailure(status, `${said} (evidence ${JSON.stringify(ev)})`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);
});
