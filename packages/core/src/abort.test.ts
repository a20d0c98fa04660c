import { describe, expect, it } from "vitest";
import { untilAborted } from "./abort.js";
import { RunAbortedError } from "./errors.js";

describe("untilAborted", () => {
  it("settles like the promise when the signal stays quiet", async () => {
    await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error("boom")), new AbortController().signal)).rejects.toThrow("boom");
  });

  it("rejects with RunAbortedError at the abort, without waiting for work that ignores it", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const waiting = untilAborted(never, controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toBeInstanceOf(RunAbortedError);
    await expect(untilAborted(Promise.resolve(1), controller.signal)).rejects.toThrow(/aborted: cancelled/);
  });
});
