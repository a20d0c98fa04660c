import { describe, expect, it } from "vitest";
import { backoffDelayMs, parseRetryAfterMs, provesNotSent } from "./_retry.js";

describe("retry helpers", () => {
  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfterMs("3", now)).toBe(3000);
    expect(parseRetryAfterMs(["0"], now)).toBe(0);
    expect(parseRetryAfterMs("Thu, 01 Jan 2026 00:00:02 GMT", now)).toBe(2000);
    expect(parseRetryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });

  it("keeps full-jitter delays within [0, min(max, min·2^n)]", () => {
    for (let retry = 0; retry < 10; retry++) {
      const delay = backoffDelayMs(retry, { minDelayMs: 200, maxDelayMs: 5_000 });
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(5_000, 200 * 2 ** retry));
    }
  });

  it("counts only connect failures as proof that a request was not sent", () => {
    expect(provesNotSent(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(provesNotSent(Object.assign(new Error("x"), { code: "UND_ERR_SOCKET" }))).toBe(false);
    expect(provesNotSent(new Error("plain"))).toBe(false);
  });
});
