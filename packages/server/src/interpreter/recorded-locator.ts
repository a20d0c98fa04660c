/**
 * Recorded locators read back: the Playwright locator a lock entry keeps for an element (the text
 * `locator.normalize()` wrote, e.g. `getByRole('button', { name: 'Sign in' }).nth(1)`) turned into a
 * live Locator again, so a replay can look for the recorded element when its instruction no longer
 * finds it. Only the calls `normalize()` writes are read; anything else (a regular expression, an
 * unknown method) gives `undefined`, never a guess.
 */
import type { Locator, Page } from "playwright-core";

/** One call of a locator chain: `getByRole('button', { name: 'Go' })` → `{ method: "getByRole", args: ["button", { name: "Go" }] }`. */
interface Call {
  method: string;
  args: unknown[];
}

type Role = Parameters<Page["getByRole"]>[0];

/**
 * Builds the Locator a recorded locator text names, on `page`.
 *
 * @param text - e.g. `getByTestId('submit')`, `getByRole('textbox', { name: 'Email' })`, `locator('#q').first()`.
 * @returns the Locator, or `undefined` when the text is not a chain of the calls Playwright's
 *   `locator.normalize()` writes (getByRole/TestId/Text/Label/Placeholder/AltText/Title, locator,
 *   nth, first, last) with literal arguments.
 */
export function recordedLocator(page: Page, text: string): Locator | undefined {
  const calls = parseChain(text);
  if (!calls || calls.length === 0) return undefined;
  let current: Page | Locator = page;
  for (const { method, args } of calls) {
    const [first, second] = args;
    const options = second === undefined ? undefined : isOptions(second) ? second : null;
    if (options === null) return undefined;
    switch (method) {
      case "getByRole":
        if (typeof first !== "string") return undefined;
        current = current.getByRole(first as Role, options as Parameters<Page["getByRole"]>[1]);
        break;
      case "getByTestId":
      case "getByText":
      case "getByLabel":
      case "getByPlaceholder":
      case "getByAltText":
      case "getByTitle":
        if (typeof first !== "string") return undefined;
        current = current[method](first, options as { exact?: boolean });
        break;
      case "locator":
        if (typeof first !== "string" || options) return undefined;
        current = current.locator(first);
        break;
      case "filter": {
        // `filter({ hasText: 'Pay rent' })`: only text filters with literal strings (a `has:` locator is not read).
        const texts = isOptions(first) && args.length === 1 ? Object.entries(first) : undefined;
        if (current === page || !texts || texts.some(([k, v]) => !["hasText", "hasNotText"].includes(k) || typeof v !== "string")) return undefined;
        current = (current as Locator).filter(first as { hasText?: string; hasNotText?: string });
        break;
      }
      case "nth":
        if (current === page || typeof first !== "number" || !Number.isInteger(first)) return undefined;
        current = (current as Locator).nth(first);
        break;
      case "first":
      case "last":
        if (current === page || args.length > 0) return undefined;
        current = (current as Locator)[method]();
        break;
      default:
        return undefined;
    }
  }
  return current === page ? undefined : (current as Locator);
}

function isOptions(value: unknown): value is Record<string, string | boolean | number> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses `a('x').b({ k: 'v' }).c(1)`; undefined when the text is anything else. */
function parseChain(text: string): Call[] | undefined {
  let at = 0;
  const skip = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const fail = (): never => {
    throw new SyntaxError(`unexpected ${JSON.stringify(text.slice(at, at + 10))}`);
  };
  const word = (): string => {
    skip();
    const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(at));
    if (!m) fail();
    at += m![0].length;
    return m![0];
  };
  const expect = (char: string) => {
    skip();
    if (text[at] !== char) fail();
    at++;
  };
  const value = (): unknown => {
    skip();
    const char = text[at];
    if (char === "'" || char === '"' || char === "`") return string(char);
    if (char === "{") return object();
    const m = /^(-?\d+(?:\.\d+)?|true|false)/.exec(text.slice(at));
    if (!m) fail();
    at += m![0].length;
    return m![0] === "true" ? true : m![0] === "false" ? false : Number(m![0]);
  };
  const string = (quote: string): string => {
    at++;
    let out = "";
    while (at < text.length && text[at] !== quote) {
      if (text[at] === "\\") {
        at++;
        const escaped = text[at];
        out += escaped === "n" ? "\n" : escaped === "t" ? "\t" : escaped === "\\" ? "\\" : (escaped ?? "");
      } else {
        if (quote === "`" && text[at] === "$" && text[at + 1] === "{") fail();
        out += text[at];
      }
      at++;
    }
    if (at >= text.length) fail();
    at++;
    return out;
  };
  const object = (): Record<string, unknown> => {
    expect("{");
    const out: Record<string, unknown> = {};
    skip();
    while (text[at] !== "}") {
      const key = word();
      expect(":");
      out[key] = value();
      skip();
      if (text[at] === ",") at++;
      skip();
      if (at >= text.length) fail();
    }
    at++;
    return out;
  };
  try {
    const calls: Call[] = [];
    for (;;) {
      const method = word();
      expect("(");
      const args: unknown[] = [];
      skip();
      while (text[at] !== ")") {
        args.push(value());
        skip();
        if (text[at] === ",") at++;
        skip();
        if (at >= text.length) fail();
      }
      at++;
      calls.push({ method, args });
      skip();
      if (at >= text.length) return calls;
      expect(".");
    }
  } catch {
    return undefined;
  }
}
