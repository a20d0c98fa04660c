import { describe, expect, it } from "vitest";
import { keyScore, parseBoolean, parseNumber, similarity } from "./_text.js";

describe("keyScore", () => {
  it("matches field names to page keys loosely", () => {
    expect(keyScore("storageSize", "Storage Size")).toBe(1);
    expect(keyScore("storage_size", "storage-size:")).toBe(1);
    expect(keyScore("unitPrice", "Unit price (€)")).toBeGreaterThanOrEqual(0.5);
    expect(keyScore("price", "Unit price")).toBeGreaterThanOrEqual(0.5);
    expect(keyScore("headings", "heading")).toBe(1);
    expect(keyScore("name", "Title")).toBe(0.5);
    expect(keyScore("range", "Storage Size")).toBe(0);
    expect(keyScore("description", "Range")).toBe(0);
  });
});

describe("parseNumber", () => {
  it.each([
    ["1,234.50 €", 1234.5],
    ["€ 24,99", 24.99],
    ["1.234,50", 1234.5],
    ["12 345 items", 12345],
    ["−5 %", -5],
    ["-32768 to +32767", -32768],
    ["$1,099.00", 1099],
    ["4 bytes", 4],
    ["1,234,567", 1234567],
    ["v2.", 2],
  ])("%s → %d", (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });
  it("finds no number in plain words", () => {
    expect(parseNumber("Ada Lovelace")).toBeUndefined();
  });
});

describe("parseBoolean and similarity", () => {
  it("reads yes/no words and leaves others alone", () => {
    expect(parseBoolean(" Yes ")).toBe(true);
    expect(parseBoolean("✗")).toBe(false);
    expect(parseBoolean("maybe")).toBeUndefined();
  });
  it("ranks near names above unrelated ones", () => {
    expect(similarity("Sign in", "Sign up")).toBeGreaterThan(similarity("Sign in", "Pricing"));
    expect(similarity("Sign in", "Sign in with SSO")).toBeGreaterThan(similarity("Sign in", "Help"));
  });
});
