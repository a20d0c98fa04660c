import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, secretEncodings } from "./redact.js";
import { REDACTED } from "./secret.js";

/** Every way a page, a server or a serializer writes `secret`, as the redaction must recognise it. */
function encodings(secret: string): Record<string, string> {
  const bytes = new TextEncoder().encode(secret);
  const base64 = btoa(String.fromCharCode(...bytes));
  const form = new URLSearchParams({ q: secret }).toString().slice(2);
  const html = secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  return {
    raw: secret,
    json: JSON.stringify(secret).slice(1, -1),
    jsonAscii: JSON.stringify(secret).slice(1, -1).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    jsonTwice: JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    uriComponent: encodeURIComponent(secret),
    uriComponentLower: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    uri: encodeURI(secret),
    form,
    formLower: form.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    html,
    htmlHex: secret.replace(/&/g, "&amp;").replace(/"/g, "&#x22;").replace(/'/g, "&#x27;"),
    base64,
    base64Url: base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    basicAuth: btoa(String.fromCharCode(...new TextEncoder().encode(`user:${secret}`))),
  };
}

// Secrets as users have them: spaces, slashes, `&`, quotes, `+`, `%`, non-ASCII (incl. astral).
const secretChar = fc.oneof(
  fc.constantFrom(" ", "/", "&", '"', "'", "+", "%", "=", "?", "#", "\\", "<", ">", ":", "é", "ß", "日", "😀", "\n"),
  fc.string({ minLength: 1, maxLength: 1 }),
  fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
);
const secretArb = fc
  .array(secretChar, { minLength: 6, maxLength: 24 })
  .map((chars) => chars.join(""))
  .filter((s) => s.trim().length >= 6 && !REDACTED.includes(s));
const surrounding = fc.string({ maxLength: 12 }).map((s) => s.replace(/[A-Za-z0-9+/=_-]/g, " "));

describe("createRedactor", () => {
  it("removes every encoding of every secret, embedded in any text (property)", () => {
    fc.assert(
      fc.property(fc.array(secretArb, { minLength: 1, maxLength: 3 }), surrounding, surrounding, (secrets, before, after) => {
        const redactor = createRedactor(secrets);
        for (const secret of secrets) {
          for (const [name, encoded] of Object.entries(encodings(secret))) {
            // basic auth carries "user:" before the secret: base64 of the secret alone is not in it.
            const text = name === "basicAuth" ? `Authorization: Basic ${encoded}` : `${before}${encoded}${after}`;
            const out = redactor.text(text);
            expect(out, `${name} of ${JSON.stringify(secret)} in ${JSON.stringify(text)}`).toContain(REDACTED);
            for (const form of Object.values(encodings(secret))) {
              if (name === "basicAuth" && form !== encoded) continue;
              if (form.length >= 6) expect(out.includes(form), `${name}: ${JSON.stringify(out)} still holds ${JSON.stringify(form)}`).toBe(false);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("leaves text without secrets unchanged (property)", () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 40 }), (secret, text) => {
        fc.pre(!Object.values(encodings(secret)).some((form) => text.includes(form)) && !text.includes(secret.slice(0, 3)));
        expect(createRedactor([secret]).text(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("redacts a GET form's URL, a JSON record and HTML as the browser and the serializers write them", () => {
    const secret = "pa ss/wörd&x=1'\"";
    const redactor = createRedactor([secret]);
    const url = `http://127.0.0.1:1/done.html?${new URLSearchParams({ code: secret, next: "a" })}`;
    expect(redactor.text(url)).toBe(`http://127.0.0.1:1/done.html?code=${REDACTED}&next=a`);
    expect(redactor.text(JSON.stringify({ pageUrl: url, typed: secret }))).toBe(JSON.stringify({ pageUrl: `http://127.0.0.1:1/done.html?code=${REDACTED}&next=a`, typed: REDACTED }));
    expect(redactor.text(`<input value="${encodings(secret).html}">`)).toBe(`<input value="${REDACTED}">`);
    expect(redactor.value({ [secret]: [secret, 3, null] })).toEqual({ [REDACTED]: [REDACTED, 3, null] });
  });

  it("with no secrets (or only empty ones) is the identity", () => {
    expect(createRedactor([]).text("a b")).toBe("a b");
    expect(createRedactor(["", ""]).text("a b")).toBe("a b");
    const value = { a: 1 };
    expect(createRedactor([]).value(value)).toBe(value);
  });

  it("lists the encodings it recognises as plain strings for byte searches", () => {
    const forms = secretEncodings("a b&c");
    expect(forms).toEqual(expect.arrayContaining(["a b&c", "a+b%26c", "a%20b%26c", "a b&amp;c", btoa("a b&c").replace(/=+$/, "")]));
  });
});
