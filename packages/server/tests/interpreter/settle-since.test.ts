/**
 * A wait for the page to settle that starts from an earlier one's quiet DOM (`settleBeforeRead`'s
 * `since`: the model's page view right after the grammar's look before a hand-over), on a real
 * Chromium: an unchanged DOM on a page none of whose requests ended since is quiet at its first
 * read, with no second wait over animation frames; a change or an answer since is waited for as
 * ever. Counted in Playwright's trace, not timed.
 */
import { describe, expect, it } from "vitest";
import { settleBeforeRead } from "../../src/interpreter/page/index.js";
import { pageCalls, usePages, type PageTest } from "./_setup.js";

describe("a settle from an earlier quiet DOM", () => {
  let t: PageTest;
  usePages((test) => (t = test), "todos.html");

  /** A DOM change now, so that a read within the next 100 ms must wait over two frames to call it quiet. */
  const touch = () => t.page.evaluate(() => (document.title = `${document.title} `));

  it("reads an unchanged DOM as quiet at once, in one call, and says it is quiet since the same moment", async () => {
    await touch();
    const first = await settleBeforeRead(t.page, 3_000);
    expect(first.quiet).toBeDefined();
    let again: Awaited<ReturnType<typeof settleBeforeRead>> | undefined;
    const calls = await pageCalls(t.context, async () => {
      again = await settleBeforeRead(t.page, 3_000, { since: first.quiet });
    });
    expect(calls.map((c) => c.method)).toEqual(["evaluateExpression"]);
    expect(again).toMatchObject({ waited: false, capReached: false, quiet: first.quiet });
  });

  it("waits as ever for a DOM that changed since", async () => {
    const first = await settleBeforeRead(t.page, 3_000);
    await t.page.getByRole("checkbox").first().check();
    await touch();
    let again: Awaited<ReturnType<typeof settleBeforeRead>> | undefined;
    const calls = await pageCalls(t.context, async () => {
      again = await settleBeforeRead(t.page, 3_000, { since: first.quiet });
    });
    // The change came within 100 ms: quiet only once two frames pass without another (or 100 ms on a slow machine).
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(again!.quiet).toBeDefined();
    expect(again!.quiet!.stamp).not.toEqual(first.quiet!.stamp);
    expect(again!.quiet!.at).toBeGreaterThan(first.quiet!.at);
  });

  it("waits as ever when one of the page's requests ended since, even with the DOM unchanged", async () => {
    const first = await settleBeforeRead(t.page, 3_000);
    // A request the page sends and whose answer it does not show (yet): what the earlier wait never saw.
    await t.page.evaluate(() => fetch(location.href).then((r) => r.text()));
    let again: Awaited<ReturnType<typeof settleBeforeRead>> | undefined;
    const calls = await pageCalls(t.context, async () => {
      again = await settleBeforeRead(t.page, 3_000, { since: first.quiet });
    });
    expect(again!.quiet!.stamp).toEqual(first.quiet!.stamp);
    // Quiet counted from the answer's end (100 ms), not taken from the earlier wait.
    expect(again!.quiet!.at).toBeGreaterThan(first.quiet!.at);
    expect(calls.length).toBeGreaterThanOrEqual(1);
  });
});
