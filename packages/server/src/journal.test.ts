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
      expect(again).toEqual({ events: [expect.objectContaining({ record: { sessionId: "a" } }), expect.objectContaining({ record: { stepId: "3" } })], skippedLines: [] });
      await expect(journal.append({ type: "step", record: {} })).rejects.toThrow(/closed/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
