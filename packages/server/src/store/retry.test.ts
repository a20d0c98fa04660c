import { describe, expect, it } from "vitest";
import { HttpProblem } from "../errors.js";
import { StoreRetry } from "./retry.js";

/** A store write that fails `failures` times with the full-disk problem, then succeeds. */
function failingWrite(failures: number): { write: () => Promise<void>; calls: () => number } {
  let calls = 0;
  return {
    write: async () => {
      calls += 1;
      if (calls <= failures) throw new HttpProblem("WF_STORAGE_UNAVAILABLE", "could not extend file: No space left on device", { retryAfterMs: 5_000 });
    },
    calls: () => calls,
  };
}

/** A retry whose clock moves only by its own waits, and a record of what it logged. */
function setUp() {
  let now = 0;
  const lines: Array<{ level: "warn" | "info"; message: string; context: Record<string, unknown> }> = [];
  const retry = new StoreRetry({
    location: "/data/db",
    log: { warn: (context, message) => lines.push({ level: "warn", message, context }), info: (context, message) => lines.push({ level: "info", message, context }) },
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  return { retry, lines, advance: (ms: number) => (now += ms) };
}

describe("StoreRetry", () => {
  it("warns on the first retry, then at most once a minute, and says when writes go through again", async () => {
    const { retry, lines } = setUp();
    // 30 failures 5 s apart: 150 s of a full disk.
    const outcome = failingWrite(30);
    await retry.write("the outcome of step st1", outcome.write, () => false);
    expect(outcome.calls()).toBe(31);
    const warnings = lines.filter((l) => l.level === "warn");
    // At 0 s, 60 s and 120 s.
    expect(warnings).toHaveLength(3);
    expect(warnings[0]!.message).toContain("the outcome of step st1 could not be written to /data/db and is retried every 5 s");
    expect(warnings[0]!.message).toContain("No space left on device");
    expect(warnings.map((w) => w.context.forMs)).toEqual([0, 60_000, 120_000]);
    const info = lines.filter((l) => l.level === "info");
    expect(info).toHaveLength(1);
    expect(info[0]!.message).toContain("no write waits for /data/db any more");
    expect(info[0]!.context).toMatchObject({ tries: 30, forMs: 150_000 });
  });

  it("one warning a minute for every write waiting together, naming how many wait", async () => {
    const { retry, lines } = setUp();
    const a = failingWrite(3);
    const b = failingWrite(3);
    await Promise.all([retry.write("the outcome of step a", a.write, () => false), retry.write("the outcome of step b", b.write, () => false)]);
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(lines.filter((l) => l.level === "info")).toHaveLength(1);
  });

  it("a write that succeeds at once logs nothing; other errors are thrown at once, unretried", async () => {
    const { retry, lines } = setUp();
    await retry.write("x", async () => undefined, () => false);
    let calls = 0;
    const corrupt = new HttpProblem("WF_STORAGE_CORRUPT", "damaged");
    await expect(
      retry.write(
        "y",
        async () => {
          calls += 1;
          throw corrupt;
        },
        () => false,
      ),
    ).rejects.toBe(corrupt);
    expect(calls).toBe(1);
    expect(lines).toEqual([]);
  });

  it("gives up when told, with the last error", async () => {
    const { retry } = setUp();
    let tries = 0;
    const outcome = failingWrite(100);
    await expect(retry.write("z", outcome.write, () => ++tries > 3)).rejects.toMatchObject({ code: "WF_STORAGE_UNAVAILABLE" });
    expect(outcome.calls()).toBe(4);
  });
});
