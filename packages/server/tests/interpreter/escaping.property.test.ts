/**
 * Every piece of user text that reaches a selector or pattern is escaped (issue 31): random strings
 * (quotes straight and curly, brackets, slashes, backslashes, regex and selector characters) put
 * into every grammar form with a quoted part, carried out by the deterministic interpreter on a real
 * Chromium page. Whatever the outcome, it is a success or an {@link InterpreterError} with a code,
 * never Playwright's `InvalidSelectorError` or another raw error.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ACT_GRAMMAR, createDeterministicInterpreter, isInterpreterError } from "../../src/interpreter/index.js";
import { FIXTURES, step, usePages } from "./_setup.js";

let page: Page;
usePages((test) => ({ page } = test));

const interpreter = createDeterministicInterpreter({ uploadRoot: FIXTURES, findTimeoutMs: 50 });

/** A page whose names hold the characters the strings are made of. */
const PAGE = `<!doctype html><title>Escapes</title>
<main>
  <button>Ada's order</button> <button>Say "hi"</button> <button>[x] close</button> <a href="#a">a/b\\c</a>
  <label>50% off (today) <input name="promo"></label>
  <label>Size <select><option>S</option><option>M*</option></select></label>
  <label><input type="checkbox"> I’m in</label>
  <h2>Notes: $1.00 ^ {x} | y?</h2>
</main>`;

/** Characters that break quoting, selectors or patterns when not escaped. */
const TRICKY = ["\"", "'", "‘", "’", "“", "”", "«", "»", "`", "´", "\\", "/", "[", "]", "(", ")", "{", "}", ".", "*", "+", "?", "^", "$", "|", ">", ">>", "<", "=", "#", ":", ",", ";", "!", "%", "&", "@", "~", "-", "—", " ", "\n", "\u00a0", "é", "😀"];
const text = fc.oneof(
  fc.array(fc.constantFrom(...TRICKY, "a", "b", "Ada", "s", "order", "x"), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
  fc.constantFrom("Ada’s order", "Ada\\'s order", "[x]", "a/b\\c", "50% off (today)", "M*", '"', "''", "\\", "/.*/", ">> css=x", "internal:text=\"x\"i"),
);

/** Every grammar form with a quoted part: its examples, each quoted part to be replaced. */
const FORMS = ACT_GRAMMAR.flatMap((rule) => rule.examples).filter((example) => /"[^"]*"/.test(example));

/** The outcome of one instruction: `ok`, or the error it failed with (an InterpreterError, else a raw one). */
async function outcome(p: Page, instruction: string): Promise<unknown> {
  try {
    await interpreter.act(step(p, instruction, 1_500));
    return "ok";
  } catch (error) {
    return error;
  }
}

describe("user text in every grammar form", () => {
  it("never reaches a selector or pattern unescaped", async () => {
    expect(FORMS.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FORMS), text, async (form, value) => {
        await page.setContent(PAGE);
        const instruction = form.replace(/"[^"]*"/g, () => `"${value}"`);
        const result = await outcome(page, instruction);
        if (result === "ok") return;
        const message = result instanceof Error ? result.message : String(result);
        expect(message, instruction).not.toMatch(/InvalidSelectorError|Error while parsing selector|Invalid regular expression/);
        expect(isInterpreterError(result), `${instruction}: ${message}`).toBe(true);
      }),
      { numRuns: 150, seed: 31 },
    );
  }, 240_000);
});
