import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JOURNAL_FILE, openJournal, parseJournal } from "./journal.js";

describe("journal", () => {
  it("skips a torn last line and keeps the rest", () => {
    const text = '{"type":"session","at":"t","record":{"sessionId":"a"}}\n{"type":"step","at":"t","record":{"stepId":"b"}}\n{"type":"st';
    const replay = parseJournal(text);
    expect(replay.events.map((e) => e.type)).toEqual(["session", "step"]);
    expect(replay.skippedLines).toEqual([3]);
  });

  it("reports a corrupted middle line with its number and the ids it still shows", () => {
    const text = '{"type":"session","at":"t","record":{"sessionId":"a"}}\n{"type":"step","at":"t","record":{"stepId":"s1","sessionId":"a","sta\u0000\n{"type":"step","at":"t","record":{"stepId":"s2"}}\n';
    const replay = parseJournal(text);
    expect(replay.events.map((e) => e.record)).toEqual([{ sessionId: "a" }, { stepId: "s2" }]);
    expect(replay.corruptLines).toEqual([{ line: 2, text: expect.stringContaining('"stepId":"s1"'), ids: ["stepId=s1", "sessionId=a"], last: false }]);
  });

  it("a failed write leaves no partial bytes, answers 503 WF_STORAGE_UNAVAILABLE, and later writes work", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-journal-"));
    let full = false;
    try {
      const { journal } = await openJournal(dir, {
        sync: false,
        // A disk that fills up mid-write: one write(2) takes half the bytes, the next fails.
        write: async (handle, data) => {
          if (!full || data.length < 4) {
            if (full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
            return (await handle.write(data)).bytesWritten;
          }
          const { bytesWritten } = await handle.write(data.subarray(0, Math.floor(data.length / 2)));
          return bytesWritten;
        },
      });
      await journal.append({ type: "step", record: { stepId: "1" } });
      full = true;
      const failed = await journal.append({ type: "step", record: { stepId: "2", text: "x".repeat(100) } }).catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: "WF_STORAGE_UNAVAILABLE", status: 503, retryAfterMs: expect.any(Number) });
      expect((failed as Error).message).toContain("ENOSPC");
      const afterFailure = await readFile(join(dir, JOURNAL_FILE), "utf8");
      expect(afterFailure.split("\n")).toHaveLength(2);
      expect(parseJournal(afterFailure).events.map((e) => e.record)).toEqual([{ stepId: "1" }]);
      full = false;
      await journal.append({ type: "step", record: { stepId: "3" } });
      await journal.close();
      const again = parseJournal(await readFile(join(dir, JOURNAL_FILE), "utf8"));
      expect(again.events.map((e) => e.record)).toEqual([{ stepId: "1" }, { stepId: "3" }]);
      expect(again.corruptLines).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("appends whole lines after a torn one, and rewrites atomically", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-journal-"));
    try {
      await writeFile(join(dir, JOURNAL_FILE), '{"type":"session","at":"t","record":{"sessionId":"a"}}\n{"type":"ses');
      const { journal, replay } = await openJournal(dir, { sync: false });
      expect(replay.events).toHaveLength(1);
      await Promise.all([journal.append({ type: "step", record: { stepId: "1" } }), journal.append({ type: "step", record: { stepId: "2" } })]);
      let again = parseJournal(await readFile(join(dir, JOURNAL_FILE), "utf8"));
      expect(again.events.map((e) => e.record)).toEqual([{ sessionId: "a" }, { stepId: "1" }, { stepId: "2" }]);
      await journal.rewrite([{ type: "session", record: { sessionId: "a" } }]);
      await journal.append({ type: "step", record: { stepId: "3" } });
      await journal.close();
      again = parseJournal(await readFile(join(dir, JOURNAL_FILE), "utf8"));
      expect(again).toEqual({ events: [expect.objectContaining({ record: { sessionId: "a" } }), expect.objectContaining({ record: { stepId: "3" } })], skippedLines: [], corruptLines: [] });
      await expect(journal.append({ type: "step", record: {} })).rejects.toThrow(/closed/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
