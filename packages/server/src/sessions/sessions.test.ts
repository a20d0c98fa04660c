import { describe, expect, it } from "vitest";
import { toWireError } from "./step-runner.js";
import { validateAnswer, withBaseHref } from "./session-browser.js";

describe("validateAnswer", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, price: { type: ["number", "null"] }, tags: { type: "array", items: { type: "string" } } },
    required: ["name", "price", "tags"],
    additionalProperties: false,
  };

  it("accepts an answer of the schema's shape", () => {
    expect(() => validateAnswer({ name: "a", price: null, tags: [] }, schema)).not.toThrow();
  });

  it("rejects a mismatch with WF_ANSWER_INVALID and JSON Pointer paths", () => {
    let error: unknown;
    try {
      validateAnswer({ name: 1, price: 2, tags: ["x", 3] }, schema);
    } catch (e) {
      error = e;
    }
    expect(toWireError(error)).toMatchObject({ code: "WF_ANSWER_INVALID" });
    const paths = ((error as { details: { errors: { path: string }[] } }).details.errors).map((e) => e.path).sort();
    expect(paths).toEqual(["/name", "/tags/1"]);
  });
});

describe("withBaseHref", () => {
  it("puts <base> first in <head>, or before the HTML without one", () => {
    expect(withBaseHref("<html><head><title>x</title></head></html>", "http://h/a/")).toBe('<html><head><base href="http://h/a/"><title>x</title></head></html>');
    expect(withBaseHref("<p>x</p>", 'http://h/"q')).toBe('<base href="http://h/&quot;q"><p>x</p>');
    expect(withBaseHref("<p>x</p>", undefined)).toBe("<p>x</p>");
  });
});
