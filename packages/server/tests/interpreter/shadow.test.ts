/**
 * The grammar and the deterministic ASK inside open shadow roots (web components): scopes whose
 * heading lives in a component's shadow root, a form inside a component nested in a component,
 * a field named by the cell beside it, a table in a shadow root; a closed shadow root stays unreachable.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Page } from "playwright-core";
import { decodeAnswer, toResponseFormat } from "@wf/core";
import { normalizeStepSchema } from "@wf/core/protocol";
import { createDeterministicInterpreter } from "../../src/interpreter/index.js";
import { FIXTURES, rejection, step, usePages } from "./_setup.js";

let page: Page;
const interpreter = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 300 });
const act = (instruction: string) => interpreter.act(step(page, instruction));

async function ask<S extends z.ZodType>(question: string, schema: S): Promise<z.infer<S>> {
  const normalized = normalizeStepSchema(toResponseFormat(schema, "answer") as unknown as Record<string, unknown>);
  const raw = await interpreter.ask({ page, question, schema: normalized, timeoutMs: 10_000, signal: new AbortController().signal, secrets: [], report: {} });
  return decodeAnswer(schema, raw) as z.infer<S>;
}

usePages((test) => ({ page } = test), "shadow-components.html");

describe("open shadow roots", () => {
  it("scopes to a section whose heading is in a component's shadow root, content slotted", async () => {
    const billing = await act('click "Save" in the "Billing" section');
    expect(billing.target).toBe('button "Save" in the "Billing" section');
    expect(await page.title()).toBe("saved billing");
    await act('click "Save" in the "Shipping" section');
    expect(await page.title()).toBe("saved shipping");
  });

  it("does not take the two sections' Save buttons for twins: the error names each section", async () => {
    const error = await rejection(act('click "Save"'));
    expect(error.code).toBe("WF_ELEMENT_AMBIGUOUS");
    expect(error.message).toContain('"Save" (button, under "Billing")');
    expect(error.message).toContain('"Save" (button, under "Shipping")');
    expect(error.message).toContain('`"Save" in the "Billing" section`');
    expect(await page.title()).toBe("Settings (components)");
  });

  it("fills a form inside a component and inside the component nested in it, by label, labelledby and the cell beside it", async () => {
    await act('type "ada" into "Nickname"');
    await act('type "Paris" into the "City" field in the "Join us" section');
    await act('fill "3" in "Quantity"');
    await act('click "Join" in the "Join us" section');
    expect(await page.title()).toBe("joined");
    expect(await page.locator("x-signup").locator("#joined").textContent()).toBe("Joined as ada from Paris");
    expect(await page.locator("x-prices").locator("input.qty").inputValue()).toBe("3");
  });

  it("reads a table inside a shadow root for ASK", async () => {
    const prices = await ask("the price list", z.array(z.object({ plan: z.string(), monthly: z.string(), yearly: z.string() })));
    expect(prices).toEqual([
      { plan: "Basic", monthly: "5 EUR", yearly: "50 EUR" },
      { plan: "Pro", monthly: "12 EUR", yearly: "120 EUR" },
    ]);
  });

  it("cannot reach into a closed shadow root: not found, saying where to look", async () => {
    const error = await rejection(act('click "Reveal secret"'));
    expect(error.code).toBe("WF_ELEMENT_NOT_FOUND");
    expect(error.message).toContain("closed shadow roots): <x-vault>");
  });
});
