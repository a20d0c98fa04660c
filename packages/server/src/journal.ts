/**
 * The append-only NDJSON journal of sessions and steps in the data directory
 * (`<dataDir>/journal.ndjson`). Each line is one event: the whole record of a session or a step
 * after a change, so replaying keeps the last line per id. Writes are grouped: every
 * {@link Journal.append} waits until its line is written (and `fdatasync`ed when `sync` is on),
 * so an HTTP answer sent after it never reports what the disk doesn't hold. A write that fails
 * (a full disk) rejects with the 503 problem `WF_STORAGE_UNAVAILABLE` and its partial bytes are
 * truncated away, so the next append starts on a fresh line; later appends work again once space
 * returns. Unreadable lines are reported on replay and kept in a `journal.corrupt-<time>.ndjson`
 * file beside the journal rather than dropped.
 */
import { open, mkdir, readFile, rename, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { HttpProblem } from "./errors.js";

/** One journal line. `record` is a session or step record as the session manager keeps it. */
export type JournalEvent =
  | { type: "session"; at: string; record: Record<string, unknown> }
  | { type: "step"; at: string; record: Record<string, unknown> }
  | { type: string; at: string; record: Record<string, unknown> };

/** What {@link Journal.replay} read. */
export interface JournalReplay {
  events: JournalEvent[];
  /** Lines that could not be parsed (a torn or corrupted line), with their 1-based line numbers. */
  skippedLines: number[];
  /** The unreadable lines themselves: number, text, and the ids that could still be read from it. */
  corruptLines: CorruptLine[];
}

/** A journal line that could not be read back. */
export interface CorruptLine {
  /** 1-based line number in the journal. */
  line: number;
  /** The line as it was on disk. */
  text: string;
  /** `sessionId`/`stepId`/`runId` values found in the text (`"stepId":"ab12…"`), to say which records it touched. */
  ids: string[];
  /** True for the last line of the file (a write cut short by a crash), false for one in the middle (corruption). */
  last: boolean;
}

/**
 * Writes bytes at the end of the journal: one `write(2)`, resolving with how many bytes it wrote
 * (fewer than asked is allowed; the journal writes the rest). The default is `handle.write(data)`;
 * tests pass one that fails on purpose (a full disk).
 */
export type JournalWrite = (handle: FileHandle, data: Uint8Array) => Promise<number>;

/** Options of {@link openJournal}. */
export interface JournalOptions {
  /** `fdatasync` after each group of writes. @default true */
  sync?: boolean;
  /** How bytes are written. @default `handle.write(data)` */
  write?: JournalWrite;
}

/** How long a client is asked to wait after a failed journal write, in ms. */
export const STORAGE_RETRY_AFTER_MS = 5_000;

/** The 503 problem of a journal write that failed; `cause` is the file-system error. */
export function storageUnavailable(path: string, cause: unknown): HttpProblem {
  const reason = (cause as NodeJS.ErrnoException)?.code ?? (cause as Error)?.message ?? String(cause);
  return new HttpProblem(
    "WF_STORAGE_UNAVAILABLE",
    `The server could not record this change in its journal (${path}: ${reason}), so nothing was done. Free disk space on the server, then retry.`,
    { retryAfterMs: STORAGE_RETRY_AFTER_MS, cause },
  );
}

/** The journal file name inside the data directory. */
export const JOURNAL_FILE = "journal.ndjson";

/** Appends events to `<dataDir>/journal.ndjson` and replays them. Create with {@link openJournal}. */
export class Journal {
  /** Absolute path of the journal file. */
  readonly path: string;
  private handle: FileHandle;
  private readonly sync: boolean;
  private readonly write: JournalWrite;
  /** Bytes of whole lines in the file: where the next append starts. */
  private size: number;
  /** True when a failed write may have left bytes after `size` that could not be truncated yet. */
  private torn = false;
  private pending: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  /** @internal use {@link openJournal}. */
  constructor(path: string, handle: FileHandle, size: number, options: JournalOptions = {}) {
    this.path = path;
    this.handle = handle;
    this.size = size;
    this.sync = options.sync ?? true;
    this.write = options.write ?? (async (h, data) => (await h.write(data)).bytesWritten);
  }

  /**
   * Appends one event; resolves once it is on disk (written, and synced when `sync` is on).
   * @throws {@link HttpProblem} `WF_STORAGE_UNAVAILABLE` (503) when the write failed (e.g. a full
   *   disk); the file then holds none of the event's bytes.
   * @throws {@link Error} after {@link Journal.close}.
   */
  append(event: Omit<JournalEvent, "at"> & { at?: string }): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`The journal ${this.path} is closed; the event was not recorded.`));
    const line = JSON.stringify({ at: new Date().toISOString(), ...event }) + "\n";
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line, resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      const data = Buffer.from(batch.map((b) => b.line).join(""), "utf8");
      try {
        if (this.torn) await this.repair();
        for (let done = 0; done < data.length; ) {
          const written = await this.write(this.handle, data.subarray(done));
          if (!(written > 0)) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
          done += written;
        }
        if (this.sync) await this.handle.datasync();
        this.size += data.length;
        for (const b of batch) b.resolve();
      } catch (error) {
        // Whatever part of the batch reached the file is cut off, so no half line stays for the
        // next batch to append onto; if even that fails, the next flush tries again first.
        this.torn = true;
        await this.repair().catch(() => undefined);
        const problem = storageUnavailable(this.path, error);
        for (const b of batch) b.reject(problem);
      }
    }
    this.flushing = undefined;
  }

  /** Truncates the file to its last whole line. */
  private async repair(): Promise<void> {
    await this.handle.truncate(this.size);
    if (this.sync) await this.handle.datasync();
    this.torn = false;
  }

  /**
   * Copies unreadable lines to `journal.corrupt-<time>.ndjson` beside the journal (before a
   * compaction drops them from the journal itself), so they can be inspected or repaired by hand.
   * @returns the path written, or undefined when there were no lines.
   */
  async quarantine(lines: readonly CorruptLine[]): Promise<string | undefined> {
    if (lines.length === 0) return undefined;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const path = this.path.replace(/\.ndjson$/, "") + `.corrupt-${stamp}.ndjson`;
    await writeFile(path, lines.map((l) => l.text + "\n").join(""), { mode: 0o600, flag: "wx" });
    return path;
  }

  /**
   * Replaces the whole journal with `events` (a compaction: one line per record), atomically: the
   * new file is written and synced beside the old one, then renamed over it. Used at start-up so
   * the journal does not grow without bound across restarts.
   */
  async rewrite(events: ReadonlyArray<Omit<JournalEvent, "at"> & { at?: string }>): Promise<void> {
    while (this.flushing) await this.flushing;
    const at = new Date().toISOString();
    const tmp = `${this.path}.tmp`;
    const out = await open(tmp, "w");
    try {
      await out.write(events.map((e) => JSON.stringify({ at, ...e }) + "\n").join(""));
      await out.sync();
    } finally {
      await out.close();
    }
    await this.handle.close();
    await rename(tmp, this.path);
    this.handle = await open(this.path, "a");
    this.size = (await this.handle.stat()).size;
    this.torn = false;
  }

  /** Waits for pending writes, then closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }
}

/**
 * Opens (creating the folder and file if needed) the journal of `dataDir` and reads what it holds.
 * When the file ends in a torn line, a newline is appended first so the next event starts a
 * line of its own.
 *
 * @param dataDir - the server's data directory.
 * @param options - see {@link JournalOptions}.
 */
export async function openJournal(dataDir: string, options: JournalOptions = {}): Promise<{ journal: Journal; replay: JournalReplay }> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, JOURNAL_FILE);
  let text = "";
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const replay = parseJournal(text);
  const handle = await open(path, "a");
  if (text.length > 0 && !text.endsWith("\n")) await handle.write("\n");
  const { size } = await handle.stat();
  return { journal: new Journal(path, handle, size, options), replay };
}

/** Parses journal text; unreadable lines are reported in `skippedLines` and `corruptLines`, not thrown. */
export function parseJournal(text: string): JournalReplay {
  const events: JournalEvent[] = [];
  const corruptLines: CorruptLine[] = [];
  const lines = text.split("\n");
  let lastNonEmpty = lines.length - 1;
  while (lastNonEmpty >= 0 && lines[lastNonEmpty]!.trim() === "") lastNonEmpty -= 1;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let event: JournalEvent | undefined;
    try {
      event = JSON.parse(line) as JournalEvent;
    } catch {
      event = undefined;
    }
    if (event && typeof event === "object" && typeof event.type === "string" && event.record && typeof event.record === "object") events.push(event);
    else corruptLines.push({ line: i + 1, text: line, ids: idsIn(line), last: i === lastNonEmpty });
  });
  return { events, skippedLines: corruptLines.map((l) => l.line), corruptLines };
}

/** The record ids a (broken) line still shows, e.g. `stepId=ab12`. */
function idsIn(line: string): string[] {
  const ids = new Set<string>();
  for (const match of line.matchAll(/"(sessionId|stepId|runId)"\s*:\s*"([^"\\]{1,200})"/g)) ids.add(`${match[1]}=${match[2]}`);
  return [...ids];
}
