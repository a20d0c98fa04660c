/**
 * The grammar's look before a hand-over to the model, on a real Chromium: an instruction it parses
 * but whose target the page does not show is handed over after a few page round trips, counted as
 * Playwright's own trace records them (each evaluation, query and count the look sends to the page),
 * not timed. A target that is there is still found the same way.
 */
import { describe, expect, it } from "vitest";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { UnexplainedNotFound } from "../../src/interpreter/errors.js";
import { pageCalls, rejection, step, usePages, type PageTest } from "./_setup.js";

describe("the grammar's look before a hand-over", () => {
  let t: PageTest;
  usePages((test) => (t = test), "todos.html");
  const grammar = createDeterministicInterpreter();
  const handOver = (instruction: string) => grammar.act({ ...step(t.page, instruction), handOver: true });

  it("hands a parsed target the page does not show over after at most five page round trips", async () => {
    // A step before, as in a session: the page has been looked at, its observer is in place.
    await grammar.act(step(t.page, 'check "Walk the dog"'));
    let error: unknown;
    // `uncheck "milk one"`: every tier's role, label, text, title and attribute look, and the look for
    // a control whose item says "milk one" (every checkbox's row read at three tiers), find nothing.
    const calls = (await pageCalls(t.context, async () => {
      error = await rejection(handOver("untick the milk one"));
    })).map((c) => c.method);
    expect(error).toBeInstanceOf(UnexplainedNotFound);
    // The look's first round trip (role, exact), one count of every other text look with the
    // controls' rows read for every tier meanwhile, and the DOM's stamps before the look and at the
    // settle's quiet read. It was nine: the rows read once per tier and a stamp after the settle.
    expect(calls.length, calls.join(", ")).toBeLessThanOrEqual(5);
    expect(calls).toContain("queryCount");
  });

  it("does not probe the text looks of a document of more than 10,000 elements at once, and still hands over", async () => {
    // The probe's one evaluation runs on in the page once its time is up and holds up every look
    // after it: on a 200,000-node page a grammar-only not-found took 37 s instead of 19.
    await t.page.goto(`${t.server.url}/catalog-large.html`);
    expect(await t.page.evaluate(() => document.getElementsByTagName("*").length)).toBeGreaterThan(10_000);
    let error: unknown;
    const calls = (await pageCalls(t.context, async () => {
      error = await rejection(handOver("click the purple unicorn"));
    })).map((c) => c.method);
    expect(error).toBeInstanceOf(UnexplainedNotFound);
    expect(calls, calls.join(", ")).not.toContain("queryCount");
  });

  it("still finds a control by the words of its item, at a looser tier, in the hand-over mode", async () => {
    // "buy MILK" matches the item's words only folded (the whole tier); no label, role or text look names the checkbox itself.
    const done = await handOver('check "buy MILK"');
    expect(done.message).toMatch(/checkbox/);
    expect(await t.page.locator("li[data-id='2'] input.toggle").isChecked()).toBe(true);
  });

  it("finds, in the hand-over mode, targets that only a looser tier names, after the one probe of the text looks", async () => {
    // Each is named by no look of the exact tier, so the probe of every other text look runs first:
    // it must say "some look matches" for the look that does (a case or an arrow apart: the whole
    // tier; the start of a name before a dash: the prefix tier; a field's label or title holding the
    // words: the substring tier).
    await t.page.goto(`${t.server.url}/looser-tiers.html`);
    const cases: Array<[string, string]> = [
      ['click "getting started"', "Getting Started"],
      ['click "Next chapter"', "Next chapter →"],
      ['click "json"', "json — JSON encoder and decoder"],
      ['click "Save"', "Save — all settings"],
      ['type "a@example.com" into "Email"', "Email address (work)"],
      ['type "Ada" into "display name"', "Display name"],
      ['type "Paris" into "time zone"', "Time zone, as a city"],
      ['check "weekly newsletter"', "Send me the weekly newsletter"],
    ];
    for (const [instruction, name] of cases) {
      let done: Awaited<ReturnType<typeof handOver>> | undefined;
      const calls = (await pageCalls(t.context, async () => {
        done = await handOver(instruction);
      })).map((c) => c.method);
      expect(done?.element?.name, instruction).toBe(name);
      expect(calls, `${instruction}: ${calls.join(", ")}`).toContain("queryCount");
    }
    expect(await t.page.locator("#em").inputValue()).toBe("a@example.com");
    expect(await t.page.locator("#dn").inputValue()).toBe("Ada");
    expect(await t.page.locator("#tz").inputValue()).toBe("Paris");
    expect(await t.page.locator("#nl").isChecked()).toBe(true);
    expect(await t.page.locator("[role=button]").getAttribute("data-clicked")).toBe("yes");
  });
});
