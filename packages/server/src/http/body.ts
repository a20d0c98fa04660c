/**
 * Request bodies: JSON only, in UTF-8, not compressed. Everything else is a 415, bytes that are not
 * UTF-8 or not JSON a 400; an empty body reads as no body. The text is kept as sent (`rawBodies`)
 * for a request forwarded to the instance holding its session.
 */
import type { FastifyInstance } from "fastify";
import { HttpProblem } from "../errors.js";
import { rawBodies } from "../cluster/instances.js";

/** Replaces Fastify's body parsers with the one JSON parser described above. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: "buffer" }, (request, body, done) => {
    const refused = checkBodyEncoding(request.headers["content-type"], request.headers["content-encoding"]);
    if (refused) return done(refused, undefined);
    const text = decodeUtf8(typeof body === "string" ? Buffer.from(body, "utf8") : body);
    if (typeof text !== "string") return done(text, undefined);
    // Kept as sent, for a request forwarded to the instance holding its session.
    rawBodies.set(request, text);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(new HttpProblem("WF_MALFORMED_JSON", `The body is not valid JSON: ${(error as Error).message}. Send a JSON object.`), undefined);
    }
  });
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * A body's `charset` other than UTF-8, or a `Content-Encoding` other than `identity`, as the 415
 * problem (RFC 8259: JSON between systems is UTF-8; the server decompresses nothing). Undefined
 * when the body may be read.
 */
export function checkBodyEncoding(contentType: string | undefined, contentEncoding: string | string[] | undefined): HttpProblem | undefined {
  const encodings = (Array.isArray(contentEncoding) ? contentEncoding.join(",") : (contentEncoding ?? ""))
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "" && e !== "identity");
  if (encodings.length > 0) {
    return new HttpProblem(
      "WF_UNSUPPORTED_MEDIA_TYPE",
      `The body is sent with Content-Encoding: ${encodings.join(", ")}, which this server does not decode. Send it uncompressed (no Content-Encoding header, or identity).`,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return new HttpProblem("WF_UNSUPPORTED_MEDIA_TYPE", `The body's charset is ${JSON.stringify(charset)}; JSON is read as UTF-8 only. Send it in UTF-8 with \`Content-Type: application/json\` (or \`; charset=utf-8\`).`);
  }
  return undefined;
}

/** The body as text, or the 400 problem naming the first byte that is not UTF-8 (never replaced by U+FFFD). */
function decodeUtf8(bytes: Buffer): string | HttpProblem {
  try {
    return UTF8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return new HttpProblem(
      "WF_MALFORMED_JSON",
      `The body is not valid UTF-8: the byte at offset ${offset} (0x${(bytes[offset] ?? 0).toString(16).padStart(2, "0")}) does not start or continue a UTF-8 character. Send the JSON encoded as UTF-8 (non-ASCII text as UTF-8 bytes or \\u escapes).`,
    );
  }
}

/** Offset of the first byte that breaks UTF-8: a bad lead byte, a missing or wrong continuation (overlong, surrogate, above U+10FFFF), or a cut-off sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // [continuation bytes, allowed range of the first continuation byte]
    const form: [number, number, number] | undefined =
      b >= 0xc2 && b <= 0xdf ? [1, 0x80, 0xbf] :
      b === 0xe0 ? [2, 0xa0, 0xbf] :
      b === 0xed ? [2, 0x80, 0x9f] :
      b >= 0xe1 && b <= 0xef ? [2, 0x80, 0xbf] :
      b === 0xf0 ? [3, 0x90, 0xbf] :
      b >= 0xf1 && b <= 0xf3 ? [3, 0x80, 0xbf] :
      b === 0xf4 ? [3, 0x80, 0x8f] : undefined;
    if (!form) return i;
    const [count, low, high] = form;
    for (let k = 1; k <= count; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < low || c > high : (c & 0xc0) !== 0x80) return i + k;
    }
    i += count + 1;
  }
  return bytes.length;
}
