import { describe, expect, it } from "vitest";
import { keyScore, normalizeText, parseBoolean, parseNumber, similarity } from "./_text.js";

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
    ["12 345", 12345],
    ["12\u00a0345,5", 12345.5],
    ["−5 %", -5],
    ["+7", 7],
    ["$1,099.00", 1099],
    ["-$5", -5],
    ["1,234,567", 1234567],
    ["1,600", 1600],
    ["4,294,967,295", 4294967295],
    ["3,5", 3.5],
    ["1.234", 1.234],
    ["1.234.567", 1234567],
    ["12'345", 12345],
    [" 42 ", 42],
  ])("%s → %d", (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });
  // A number field takes a cell whose whole text is a number; words or units make it prose (issue 3 follow-up, item 4).
  it.each([
    "Ada Lovelace",
    "32 TB",
    "1 GB",
    "4 bytes",
    "2.5 kg",
    "12 345 items",
    "v2.",
    "-32768 to +32767",
    "limited by the number of tuples that can fit onto 4,294,967,295 pages",
    "1,2,3",
    "1,,000",
    "€5 €",
    "unlimited",
    "",
  ])("%j is not a number", (text) => {
    expect(parseNumber(text)).toBeUndefined();
  });
});

describe("normalizeText", () => {
  it("turns NBSP and runs of whitespace into single spaces", () => {
    expect(normalizeText("Appendix\u00a0K.\u00a0PostgreSQL Limits")).toBe("Appendix K. PostgreSQL Limits");
    expect(normalizeText("  a\n\t b\u202fc  ")).toBe("a b c");
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
