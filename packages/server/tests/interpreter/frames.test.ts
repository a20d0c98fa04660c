/**
 * The grammar inside iframes, with no model: same-origin and cross-origin (out-of-process) frames,
 * a frame nested in a frame, the `in the "…" frame` scope, the locator a step reports, a replay of
 * recorded frame actions, and the deterministic ASK reading a table inside a frame.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { replayActions, replayOptions } from "../../src/interpreter/lock/index.js";
import type { StepReport } from "../../src/interpreter/index.js";
import type { StaticServer } from "../helpers/static-server.js";
import { FIXTURES, rejection, serveFixtures, step, usePages } from "./_setup.js";

let server: StaticServer;
/** The same fixtures on another origin (`localhost` instead of `127.0.0.1`, another port): another site, so Chromium runs its frames out of process. */
let other: StaticServer;
let otherUrl: string;
let page: Page;
const interpreter = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 300 });

const act = (instruction: string) => interpreter.act(step(page, instruction));
const frame = (selector: string) => page.locator(selector).contentFrame();

async function ask<S extends z.ZodType>(question: string, schema: S): Promise<z.infer<S>> {
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  const raw = await interpreter.ask({ page, question, schema: normalized, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
  return decodeAnswer(schema, raw) as z.infer<S>;
}

beforeAll(async () => {
  other = await serveFixtures();
  otherUrl = `http://localhost:${other.port}`;
});
afterAll(async () => {
  await other?.close();
});
usePages((test) => ({ server, page } = test));

async function openCheckout(): Promise<void> {
  const nested = `${server.url}/frames-cross-nested.html`;
  const inner = `${otherUrl}/frames-cross-inner.html?nested=${encodeURIComponent(nested)}`;
  await page.goto(`${server.url}/frames-cross.html?inner=${encodeURIComponent(inner)}`);
  await frame("iframe[name=checkout]").locator("iframe").contentFrame().getByRole("button", { name: "Apply" }).waitFor();
}

describe("a same-origin iframe", () => {
  it("fills and clicks inside the frame, and reports the element with its frame", async () => {
    await page.goto(`${server.url}/frames-signin.html`);
    const filled = await act('type "ada@example.com" into "Email address"');
    expect(filled.target).toBe('textbox "Email address" in the "Sign-in form" frame');
    expect(filled.element).toMatchObject({ role: "textbox", name: "Email address" });
    expect(filled.element!.locator).toMatch(/^locator\('(?:iframe\[title="Sign-in form"\]|#auth-frame)'\)\.contentFrame\(\)\.getBy/);
    await act('fill "hunter22" in the "Password" field');
    await act('check "Keep me signed in"');
    const signin = frame("#auth-frame");
    expect(await signin.getByLabel("Email address").inputValue()).toBe("ada@example.com");
    expect(await signin.getByRole("checkbox").isChecked()).toBe(true);

    // The page has its own "Sign in" button: unscoped, the page's own wins; the frame scope picks the frame's.
    const clicked = await act('click "Sign in" in the "Sign-in form" frame');
    expect(clicked.target).toBe('button "Sign in" in the "Sign-in form" frame');
    expect(await signin.getByRole("status").textContent()).toBe("Signed in as ada@example.com (8 chars)");
    expect(await page.title()).toBe("Acme — Account");
    await act('click "Sign in"');
    expect(await page.title()).toBe("outer sign in clicked");
  });

  it("names the frame by id, and `in the frame` for the only one", async () => {
    await page.goto(`${server.url}/frames-signin.html`);
    await act('type "x@example.com" into "Email address" inside the "auth-frame" iframe');
    await act('click the "Sign in" button in the frame');
    expect(await frame("#auth-frame").getByRole("status").textContent()).toBe("Signed in as x@example.com (0 chars)");
    expect(await page.title()).toBe("Acme — Account");
  });

  it("fails naming the frame the page does not have, and lists the frames it has", async () => {
    await page.goto(`${server.url}/frames-signin.html`);
    const error = await rejection(act('click "Sign in" in the "Payment" frame'));
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('the page has no "Payment" frame');
    expect(error.message).toContain('"Sign-in form"');
    expect(await page.title()).toBe("Acme — Account");
  });

  it("reads a table inside the frame for ASK", async () => {
    await page.goto(`${server.url}/frames-signin.html`);
    await frame("#auth-frame").locator("table").waitFor();
    const plans = await ask("the plan limits", z.array(z.object({ plan: z.string(), seats: z.number(), storage: z.string() })));
    expect(plans).toEqual([
      { plan: "Starter", seats: 3, storage: "10 GB" },
      { plan: "Team", seats: 25, storage: "1 TB" },
    ]);
  });
});

describe("a cross-origin iframe with a frame nested in it", () => {
  it("fills and clicks in the cross-origin frame and in the frame nested in it", async () => {
    await openCheckout();
    // Another site: Chromium runs the payment frame out of process (its own CDP target).
    const cdp = await page.context().browser()!.newBrowserCDPSession();
    const { targetInfos } = await cdp.send("Target.getTargets");
    expect(targetInfos.some((t) => t.type === "iframe" && t.url.startsWith(otherUrl))).toBe(true);
    await cdp.detach();
    const card = await act('type "4242424242424242" into "Card number"');
    expect(card.target).toBe('textbox "Card number" in the "checkout" frame');
    expect(card.element!.locator).toContain(".contentFrame()");
    await act('click "Pay" in the "checkout" frame');
    const checkout = frame("iframe[name=checkout]");
    expect(await checkout.locator("#msg").textContent()).toBe("Paid with 4242");
    expect(await page.title()).toBe("Shop — Checkout");

    const code = await act('type "SPRING" into "Code"');
    expect(code.target).toBe('textbox "Code" in the "Promo code" frame of the "checkout" frame');
    expect(code.element!.locator).toMatch(/contentFrame\(\).*contentFrame\(\)\.getBy/);
    await act('click "Apply" in the "Promo code" frame of the "checkout" frame');
    expect(await checkout.locator("iframe").contentFrame().locator("#applied").textContent()).toBe("Applied SPRING");
  });

  it("lists candidates inside frames, saying which frame, when nothing matches", async () => {
    await openCheckout();
    const error = await rejection(act('click "Apply now"'));
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain('"Apply" (button, in the "Promo code" frame of the "checkout" frame)');
    expect(error.details.candidates).toContainEqual({ role: "button", name: "Apply", frame: 'the "Promo code" frame of the "checkout" frame' });
  });

  it("replays recorded actions into the frame, and finds a renamed element again by its recorded frame locator", async () => {
    await openCheckout();
    const options = { ...replayOptions({ uploadRoot: FIXTURES, allowFileUrls: false }), findTimeoutMs: 300 };
    const context = (report: StepReport) => ({ ...step(page, "pay by card"), report });
    const first = await act('type "4000000000000002" into "Card number"');
    const pay = await act('click the "Pay" button in the "checkout" frame');
    const checkout = frame("iframe[name=checkout]");
    await checkout.locator("#msg").evaluate((el) => (el.textContent = ""));

    const result = await replayActions(
      context({}),
      [
        { instruction: 'type "4111111111111111" into the "Card number" field in the "checkout" frame', element: first.element! },
        { instruction: 'click the "Pay" button in the "checkout" frame', element: pay.element! },
      ],
      options,
    );
    expect(await checkout.locator("#msg").textContent()).toBe("Paid with 1111");
    expect(result.actions![1]!.element!.locator).toBe(pay.element!.locator);

    // The lock recorded "Pay now"; the page now says "Pay". Its recorded frame locator finds it again.
    await checkout.locator("#msg").evaluate((el) => (el.textContent = ""));
    const healed = await replayActions(
      context({}),
      [{ instruction: 'click the "Pay now" button', element: { role: "button", name: "Pay now", locator: pay.element!.locator! } }],
      { ...options, refind: true },
    );
    expect(await checkout.locator("#msg").textContent()).toBe("Paid with 1111");
    expect(healed.actions).toEqual([{ instruction: 'click the "Pay" button in the "checkout" frame', element: { role: "button", name: "Pay", locator: pay.element!.locator }, refound: true }]);
  });
});
