import { describe, expect, it } from "vitest";
import { retryAfterMs } from "./provider-fetch.js";
import { addUsage, tokenCount } from "./provider.js";

describe("retryAfterMs", () => {
  it("reads Retry-After-Ms first, then Retry-After as seconds or an HTTP date, as the SDK does", () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "120" }), now)).toBe(120_000);
    expect(retryAfterMs(new Headers({ "retry-after": "1.5" }), now)).toBe(1_500);
    expect(retryAfterMs(new Headers({ "retry-after": "Fri, 27 Nov 2026 10:02:00 GMT" }), now)).toBe(120_000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe("the provider's token counts", () => {
  it("are taken only as non-negative safe integers", () => {
    for (const good of [0, 1, 812, Number.MAX_SAFE_INTEGER]) expect(tokenCount(good)).toBe(good);
    for (const bad of ["12", -1, 12.5, 1e300, Number.NaN, Infinity, null, undefined, {}, [3], true]) expect(tokenCount(bad), String(bad)).toBeUndefined();
  });

  it("add up into a step's usage, calls counted apart from tokens, estimated kept once set", () => {
    let usage = addUsage(undefined, "m", { calls: 1 });
    usage = addUsage(usage, "m", { calls: 1 });
    usage = addUsage(usage, "m", { promptTokens: 100, completionTokens: 10, durationMs: 12.34, estimated: true });
    usage = addUsage(usage, "m", { promptTokens: 5, completionTokens: 1, durationMs: 1 });
    expect(usage).toEqual({ model: "m", calls: 2, promptTokens: 105, completionTokens: 11, totalTokens: 116, durationMs: 13.3, estimated: true });
  });
});
