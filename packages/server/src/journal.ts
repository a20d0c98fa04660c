/**
 * The append-only NDJSON journal of sessions and steps in the data directory
 * (`<dataDir>/journal.ndjson`). Each line is one event: the whole record of a session or a step
 * after a change, so replaying keeps the last line per id. Writes are grouped: every
 * {@link Journal.append} waits until its line is written (and `fdatasync`ed when `sync` is on),
 * so an HTTP answer sent after it never reports what the disk doesn't hold. A torn last line (a
 * crash mid-write) is skipped on replay and never merges with the next line.
 */
import { open, mkdir, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

/** One journal line. `record` is a session or step record as the session manager keeps it. */
export type JournalEvent =
  | { type: "session"; at: string; record: Record<string, unknown> }
  | { type: "step"; at: string; record: Record<string, unknown> }
  | { type: string; at: string; record: Record<string, unknown> };

/** What {@link Journal.replay} read. */
export interface JournalReplay {
  events: JournalEvent[];
  /** Lines that could not be parsed (a torn last line), with their 1-based line numbers. */
  skippedLines: number[];
}

/** The journal file name inside the data directory. */
export const JOURNAL_FILE = "journal.ndjson";

/** Appends events to `<dataDir>/journal.ndjson` and replays them. Create with {@link openJournal}. */
export class Journal {
  /** Absolute path of the journal file. */
  readonly path: string;
  private handle: FileHandle;
  private readonly sync: boolean;
  private pending: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  /** @internal use {@link openJournal}. */
  constructor(path: string, handle: FileHandle, sync: boolean) {
    this.path = path;
    this.handle = handle;
    this.sync = sync;
  }

  /**
   * Appends one event; resolves once it is on disk (written, and synced when `sync` is on).
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
      try {
        await this.handle.write(batch.map((b) => b.line).join(""));
        if (this.sync) await this.handle.datasync();
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = undefined;
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
 * @param options.sync - `fdatasync` after each group of writes. @default true
 */
export async function openJournal(dataDir: string, options: { sync?: boolean } = {}): Promise<{ journal: Journal; replay: JournalReplay }> {
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
  return { journal: new Journal(path, handle, options.sync ?? true), replay };
}

/** Parses journal text; unparsable lines (a torn write) are reported in `skippedLines`, not thrown. */
export function parseJournal(text: string): JournalReplay {
  const events: JournalEvent[] = [];
  const skippedLines: number[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      const event = JSON.parse(line) as JournalEvent;
      if (event && typeof event === "object" && typeof event.type === "string" && event.record && typeof event.record === "object") events.push(event);
      else skippedLines.push(i + 1);
    } catch {
      skippedLines.push(i + 1);
    }
  });
  return { events, skippedLines };
}
