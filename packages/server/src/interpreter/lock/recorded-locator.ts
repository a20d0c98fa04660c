/**
 * Recorded locators read back: the Playwright locator a lock entry keeps for an element (the text
 * `locator.normalize()` wrote, e.g. `getByRole('button', { name: 'Sign in' }).nth(1)`) turned into a
 * live Locator again, so a replay can look for the recorded element when its instruction no longer
 * finds it. Only the calls `normalize()` writes are read; anything else (a regular expression, an
 * unknown method) gives `undefined`, never a guess.
 */
import type { FrameLocator, Locator, Page } from "playwright-core";

/** One call of a locator chain: `getByRole('button', { name: 'Go' })` → `{ method: "getByRole", args: ["button", { name: "Go" }] }`. */
interface Call {
  method: string;
  args: unknown[];
}

type Role = Parameters<Page["getByRole"]>[0];

/**
 * Builds the Locator a recorded locator text names, on `page`.
 *
 * @param text - e.g. `getByTestId('submit')`, `getByRole('textbox', { name: 'Email' })`, `locator('#q').first()`,
 *   or inside an iframe `locator('iframe[title="Pay"]').contentFrame().getByRole('button', { name: 'Pay' })`
 *   (also the older `frameLocator('iframe').getByRole(…)`).
 * @returns the Locator, or `undefined` when the text is not a chain of the calls Playwright's
 *   `locator.normalize()` writes (getByRole/TestId/Text/Label/Placeholder/AltText/Title, locator,
 *   filter with hasText/hasNotText, nth, first, last, contentFrame, frameLocator) with literal
 *   arguments, ending on an element.
 */
export function recordedLocator(page: Page, text: string): Locator | undefined {
  const calls = parseChain(text);
  if (!calls || calls.length === 0) return undefined;
  // What the chain stands on so far: the page, a frame (a FrameLocator), or elements (a Locator).
  let current: Page | Locator = page;
  let frame: FrameLocator | undefined;
  for (const { method, args } of calls) {
    if (frame) {
      // A frame takes the element calls, and `first()`/`last()`/`nth()` pick among the frames.
      if (method === "contentFrame") return undefined;
      if (method === "frameLocator") {
        if (typeof args[0] !== "string" || args.length > 1) return undefined;
        frame = frame.frameLocator(args[0]);
        continue;
      }
      if (method === "first" || method === "last" || method === "nth") {
        if (method === "nth") {
          if (typeof args[0] !== "number" || !Number.isInteger(args[0])) return undefined;
          frame = frame.nth(args[0]);
        } else {
          if (args.length > 0) return undefined;
          frame = frame[method]();
        }
        continue;
      }
      const inner = elementCall(frame, method, args);
      if (!inner) return undefined;
      current = inner;
      frame = undefined;
      continue;
    }
    if (method === "contentFrame") {
      if (current === page || args.length > 0) return undefined;
      frame = (current as Locator).contentFrame();
      continue;
    }
    if (method === "frameLocator") {
      if (typeof args[0] !== "string" || args.length > 1) return undefined;
      frame = current.frameLocator(args[0]);
      continue;
    }
    if (method === "nth" || method === "first" || method === "last") {
      if (current === page) return undefined;
      if (method === "nth") {
        if (typeof args[0] !== "number" || !Number.isInteger(args[0])) return undefined;
        current = (current as Locator).nth(args[0]);
      } else {
        if (args.length > 0) return undefined;
        current = (current as Locator)[method]();
      }
      continue;
    }
    if (method === "filter") {
      // `filter({ hasText: 'Pay rent' })`: only text filters with literal strings (a `has:` locator is not read).
      const [first] = args;
      const texts = isOptions(first) && args.length === 1 ? Object.entries(first) : undefined;
      if (current === page || !texts || texts.some(([k, v]) => !["hasText", "hasNotText"].includes(k) || typeof v !== "string")) return undefined;
      current = (current as Locator).filter(first as { hasText?: string; hasNotText?: string });
      continue;
    }
    const next = elementCall(current, method, args);
    if (!next) return undefined;
    current = next;
  }
  return current === page || frame ? undefined : (current as Locator);
}

/** One element call (`getByRole(…)`, `locator(…)`) on a page, frame or locator; undefined for any other call or argument. */
function elementCall(on: Page | FrameLocator | Locator, method: string, args: unknown[]): Locator | undefined {
  const [first, second] = args;
  const options = second === undefined ? undefined : isOptions(second) ? second : null;
  if (options === null) return undefined;
  switch (method) {
    case "getByRole":
      if (typeof first !== "string") return undefined;
      return on.getByRole(first as Role, options as Parameters<Page["getByRole"]>[1]);
    case "getByTestId":
    case "getByText":
    case "getByLabel":
    case "getByPlaceholder":
    case "getByAltText":
    case "getByTitle":
      if (typeof first !== "string") return undefined;
      return on[method](first, options as { exact?: boolean });
    case "locator":
      if (typeof first !== "string" || options) return undefined;
      return on.locator(first);
    default:
      return undefined;
  }
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

/**
 * The frames a recorded locator goes through, outermost first, each named as the grammar's frame
 * scope names it: the `title`, `name`, `aria-label` or `id` its iframe selector tests
 * (`locator('iframe[title="Payment"]').contentFrame()…` → `["Payment"]`), `""` when the selector
 * names none. `[]` for a locator in the main frame or a text this module does not read.
 */
export function recordedFrames(text: string): string[] {
  const calls = parseChain(text);
  if (!calls) return [];
  const out: string[] = [];
  calls.forEach((call, i) => {
    let selector: unknown;
    if (call.method === "frameLocator") selector = call.args[0];
    else if (call.method === "contentFrame") selector = calls.slice(0, i).reverse().find((c) => c.method === "locator")?.args[0];
    else return;
    out.push(typeof selector === "string" ? frameName(selector) : "");
  });
  return out;
}

/** `iframe[title="Payment"]` → `Payment`; `#checkout` → `checkout`; `""` when the selector names no title, name, label or id. */
function frameName(selector: string): string {
  const attr = /\[\s*(?:title|name|aria-label|id)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([\w-]+))\s*(?:[is]\s*)?\]/.exec(selector);
  if (attr) return (attr[1] ?? attr[2] ?? attr[3] ?? "").replace(/\\(.)/g, "$1");
  const id = /#((?:[\w-]|\\.)+)/.exec(selector);
  return id ? id[1]!.replace(/\\(.)/g, "$1") : "";
}
