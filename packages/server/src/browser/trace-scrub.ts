/**
 * Takes the secrets out of a Playwright trace zip, which Playwright itself will not do: every
 * string value of every JSON line (`trace.trace`, `trace.network`, …: action titles and params,
 * DOM snapshots with `__playwright_value_`, network URLs, headers and bodies, console, evaluated
 * results) goes through the session's redaction, while structural keys (ids, names of resources,
 * times) are kept, so the trace still opens. Text resources (bodies by hash) are redacted and
 * renamed by the hash of their new content, with every reference updated; binary resources that
 * hold a secret's bytes are dropped; screencast frames taken while a secret could be on the page
 * are dropped. The zip is read and written with fflate.
 */
import { createHash } from "node:crypto";
import { unzipSync, zipSync } from "fflate";
import { secretEncodings, type Redactor } from "@wf/core";

/** What a scrub needs to know of the session. */
export interface TraceScrubber {
  redactor: Redactor;
  /** Whether a secret could be seen on the page at this wall-clock time (ms since the epoch). */
  exposedAt(wallTimeMs: number): boolean;
}

/** Keys whose values are structure (ids, resource names, times), never page content. */
const STRUCTURAL_KEYS = new Set(["file", "callId", "pageId", "frameId", "sha1", "_sha1", "snapshotName", "type", "class", "method", "guid", "parentId", "stepId", "version", "browserName", "platform"]);

/** A line that is not JSON (kept, as text redacted). */
class RawLine {
  constructor(readonly text: string) {}
}

interface ZipEntry {
  name: string;
  data: Buffer;
}

/** What {@link scrubTrace} did, for the logs and tests. */
export interface ScrubSummary {
  /** Strings changed in JSON lines. */
  redactedValues: number;
  /** Text resources rewritten (and renamed). */
  renamedResources: number;
  /** Resources dropped: screencast frames while a secret was on the page, binary files holding a secret. */
  droppedResources: number;
}

/**
 * Returns `zip` (a Playwright trace) without any secret of `scrubber`.
 * @throws {@link Error} when `zip` is not a zip file this reader understands.
 */
export function scrubTrace(zip: Buffer, scrubber: TraceScrubber): { zip: Buffer; summary: ScrubSummary } {
  const entries = readZip(zip);
  const summary: ScrubSummary = { redactedValues: 0, renamedResources: 0, droppedResources: 0 };
  const { redactor } = scrubber;
  // Top-level files are JSON lines (`trace.trace`, `trace.network`, `trace.stacks`, `1-trace.trace`…);
  // those in folders are blobs (`resources/<sha1>.<ext>`, `screencast/<page>-<time>.jpeg`).
  const isResource = (name: string) => name.includes("/");

  // 1. JSON lines, parsed; screencast frames shown while a secret was exposed are dropped.
  const droppedFrames = new Set<string>();
  const documents = new Map<string, unknown[]>();
  for (const entry of entries) {
    if (isResource(entry.name)) continue;
    const lines = entry.data.toString("utf8").split("\n");
    const parsed: unknown[] = [];
    let clock: { wallTime: number; monotonicTime: number } | undefined;
    for (const line of lines) {
      if (line.trim() === "") {
        parsed.push(new RawLine(line));
        continue;
      }
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        parsed.push(new RawLine(redactor.text(line)));
        continue;
      }
      if (event.type === "context-options" && typeof event.wallTime === "number" && typeof event.monotonicTime === "number") {
        clock = { wallTime: event.wallTime, monotonicTime: event.monotonicTime };
      }
      if (event.type === "screencast-frame") {
        // The frame's file: `file` (a zip entry) in newer traces, `sha1` (under resources/) in older ones.
        const file = typeof event.file === "string" ? event.file : typeof event.sha1 === "string" ? `resources/${event.sha1}` : undefined;
        const at =
          typeof event.frameSwapWallTime === "number"
            ? event.frameSwapWallTime
            : typeof event.timestamp === "number" && clock
              ? clock.wallTime + (event.timestamp - clock.monotonicTime)
              : undefined;
        // Without a time, every frame of a session with secrets is dropped.
        if (at === undefined || scrubber.exposedAt(at)) {
          if (file !== undefined) droppedFrames.add(file);
          continue;
        }
      }
      parsed.push(event);
    }
    documents.set(entry.name, parsed);
  }

  // 2. Resources: frames dropped, text redacted and renamed, binaries holding a secret dropped.
  const renames = new Map<string, string>();
  const needles = redactor.secrets.flatMap(secretEncodings).filter((form) => form.length >= 4).map((form) => Buffer.from(form, "utf8"));
  const out: ZipEntry[] = [];
  for (const entry of entries) {
    if (!isResource(entry.name)) continue;
    const name = entry.name.slice(entry.name.indexOf("/") + 1);
    if (droppedFrames.has(entry.name)) {
      summary.droppedResources += 1;
      continue;
    }
    const text = entry.data.toString("utf8");
    if (Buffer.from(text, "utf8").equals(entry.data)) {
      const redacted = redactor.text(text);
      if (redacted !== text) {
        const dot = name.lastIndexOf(".");
        const renamed = createHash("sha1").update(redacted).digest("hex") + (dot > 0 ? name.slice(dot) : "");
        renames.set(name, renamed);
        out.push({ name: `${entry.name.slice(0, entry.name.indexOf("/"))}/${renamed}`, data: Buffer.from(redacted, "utf8") });
        summary.renamedResources += 1;
        continue;
      }
    } else if (needles.some((needle) => entry.data.includes(needle))) {
      summary.droppedResources += 1;
      continue;
    }
    out.push(entry);
  }

  // 3. JSON written back: string values redacted, structural keys kept (resource names follow renames).
  const walk = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (typeof value === "string") {
      const renamed = renames.get(value);
      if (renamed !== undefined) return renamed;
      if (key !== undefined && STRUCTURAL_KEYS.has(key)) return value;
      const redacted = redactor.text(value);
      if (redacted !== value) summary.redactedValues += 1;
      return redacted;
    }
    if (value === null || typeof value !== "object" || depth > 200) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) copy[k] = walk(v, k, depth + 1);
    return copy;
  };
  for (const entry of entries) {
    const parsed = documents.get(entry.name);
    if (!parsed) continue;
    const text = parsed.map((item) => (item instanceof RawLine ? item.text : JSON.stringify(walk(item, undefined, 0)))).join("\n");
    out.unshift({ name: entry.name, data: Buffer.from(text, "utf8") });
  }
  return { zip: writeZip(out), summary };
}

/**
 * Reads a zip's entries, in their order (fflate).
 * @throws {@link Error} for a file that is not a zip.
 */
export function readZip(zip: Buffer): ZipEntry[] {
  return Object.entries(unzipSync(new Uint8Array(zip.buffer, zip.byteOffset, zip.byteLength))).map(([name, data]) => ({ name, data: Buffer.from(data) }));
}

/** Writes entries as a deflated zip, in their order (fflate). */
export function writeZip(entries: ZipEntry[]): Buffer {
  const files: Record<string, Uint8Array> = {};
  for (const entry of entries) files[entry.name] = entry.data;
  return Buffer.from(zipSync(files, { level: 6 }));
}
