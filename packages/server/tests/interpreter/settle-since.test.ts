/**
 * A wait for the page to settle that starts from an earlier one's quiet DOM (`settleBeforeRead`'s
 * `since`: the model's page view right after the grammar's look before a hand-over), on a real
 * Chromium: an unchanged DOM on a page none of whose requests ended since is quiet at its first
 * read, with no second wait over animation frames; a change or an answer since is waited for as
 * ever. Counted in Playwright's trace, not timed.
 */
import { describe, expect, it } from "vitest";
import { domStamp, settleBeforeRead } from "../../src/interpreter/page/index.js";
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

describe("a settle's two quiet frames, counted from a mark", () => {
  let t: PageTest;
  usePages((test) => (t = test), "todos.html");

  /**
   * Makes every DOM change look as if it came just now (the page's clock stands still), so a settle
   * always goes on to its wait over two frames; and counts the animation frames asked for, which
   * never come (`window.__framesAsked`): a wait over frames then ends only by its 100 ms fallback.
   */
  const freeze = () =>
    t.page.evaluate(() => {
      const w = window as unknown as { __framesAsked: number };
      const now = performance.now();
      performance.now = () => now;
      w.__framesAsked = 0;
      window.requestAnimationFrame = () => ++w.__framesAsked;
      document.title = `${document.title} `;
    });
  const framesAsked = () => t.page.evaluate(() => (window as unknown as { __framesAsked: number }).__framesAsked);
  // Polled by a timer: the page's animation frames never come.
  const markDone = () => t.page.waitForFunction(() => (window as unknown as { __wfQuiet: { frames?: { done: boolean } } }).__wfQuiet.frames?.done === true, undefined, { polling: 20 });

  it("does not wait for frames again when the DOM has not changed since the mark's frames passed", async () => {
    await settleBeforeRead(t.page, 3_000);
    await freeze();
    await domStamp(t.page, { markFrames: true });
    await markDone();
    const asked = await framesAsked();
    const outcome = await settleBeforeRead(t.page, 3_000);
    expect(outcome).toMatchObject({ capReached: false });
    expect(outcome.quiet).toBeDefined();
    // No frame asked for: the mark's two frames stood for the settle's.
    expect(await framesAsked()).toBe(asked);
  });

  it("waits for two frames of its own when the DOM changed after the mark", async () => {
    await settleBeforeRead(t.page, 3_000);
    await freeze();
    await domStamp(t.page, { markFrames: true });
    await markDone();
    await t.page.evaluate(() => (document.title = `${document.title}.`));
    const asked = await framesAsked();
    const outcome = await settleBeforeRead(t.page, 3_000);
    expect(outcome.quiet).toBeDefined();
    expect(await framesAsked()).toBeGreaterThan(asked);
  });
});
