/**
 * `step(title, fn)`: a named group of steps (Playwright Test's `test.step`), told to the executor
 * as it opens and closes, nested through helpers and concurrent branches by AsyncLocalStorage.
 */
import { describe, expect, it } from "vitest";
import { act, check, runWithExecutor, step } from "./dsl.js";
import { SoftChecksFailedError, StepFailedError, WorkflowContextError } from "./errors.js";
import type { Executor, StepGroup, StepRequest } from "./executor.js";

/** An executor that records what it is told, in order; a step whose instruction includes "fail" fails. */
function recorder(): Executor & { events: string[]; steps: StepRequest[] } {
  const events: string[] = [];
  const steps: StepRequest[] = [];
  return {
    events,
    steps,
    async runStep(s) {
      steps.push(s);
      events.push(`${s.type} ${s.instruction} in ${s.groupId ?? "-"}`);
      if (s.instruction.includes("fail")) throw new StepFailedError({ index: s.index, instruction: s.instruction, type: s.type, serviceCode: "WF_CHECK_FAILED", serviceMessage: "no" });
      return { result: s.type === "CHECK" ? { holds: true, reason: "ok", evidence: "" } : null };
    },
    onGroupStart: (g: StepGroup) => void events.push(`open ${g.id} ${g.title}${g.parentId ? ` in ${g.parentId}` : ""}${g.callSite ? " @site" : ""}`),
    onGroupEnd: (g: StepGroup, o) => void events.push(`close ${g.id}${o.error ? " threw" : ""}${o.softFailed ? " soft-failed" : ""}`),
  };
}

const signal = () => new AbortController().signal;

describe("step()", () => {
  it("outside a run throws a WorkflowContextError", async () => {
    await expect(step("x", () => 1)).rejects.toBeInstanceOf(WorkflowContextError);
  });

  it("returns its function's value and tags each step with the innermost group, through helpers and nesting", async () => {
    const executor = recorder();
    const signIn = (who: string) => step(`sign in as ${who}`, async () => {
      await act(`type "${who}" into "Email"`);
      return who.length;
    });
    const value = await runWithExecutor({ executor, signal: signal() }, async () => {
      await act("go to /");
      const n = await step("checkout", async () => {
        const length = await signIn("ada");
        await act('click "Pay"');
        return length * 2;
      });
      await act('click "Done"');
      return n;
    });
    expect(value).toBe(6);
    expect(executor.events).toEqual([
      "ACT go to / in -",
      "open 1 checkout @site",
      "open 2 sign in as ada in 1 @site",
      'ACT type "ada" into "Email" in 2',
      "close 2",
      'ACT click "Pay" in 1',
      "close 1",
      'ACT click "Done" in -',
    ]);
  });

  it("keeps concurrent groups apart", async () => {
    const executor = recorder();
    await runWithExecutor({ executor, signal: signal() }, async () => {
      await Promise.all([step("a", () => act("click A")), step("b", () => act("click B"))]);
    });
    expect(executor.steps.map((s) => [s.instruction, s.groupId])).toEqual([["click A", 1], ["click B", 2]]);
  });

  it("rethrows what its function throws and tells the executor; a failed soft check marks the group", async () => {
    const executor = recorder();
    const run = runWithExecutor({ executor, signal: signal() }, async () => {
      await step("soft", () => check.soft("fail softly"));
      await step("hard", () => act("fail hard"));
    });
    await expect(run).rejects.toBeInstanceOf(StepFailedError);
    expect(executor.events.filter((e) => e.startsWith("close"))).toEqual(["close 1 soft-failed", "close 2 threw"]);
  });

  it("refuses an empty title", async () => {
    const executor = recorder();
    await expect(runWithExecutor({ executor, signal: signal() }, () => step("  ", () => 1))).rejects.toThrow(/non-empty title/);
  });
});

describe("check.soft with an executor of another copy of @wf/core", () => {
  it("knows its StepFailedError by its code, not its class, and goes on", async () => {
    // What a step failure looks like when the executor's @wf/core is another module instance.
    const foreign = Object.assign(new Error("Step 1 CHECK failed"), { name: "StepFailedError", code: "WF_STEP_FAILED", serviceCode: "WF_CHECK_FAILED", serviceMessage: "no", index: 1, instruction: "x", type: "CHECK" });
    const steps: string[] = [];
    const executor: Executor = {
      async runStep(s) {
        steps.push(s.instruction);
        if (s.instruction === "fails") throw foreign;
        return { result: { holds: true, reason: "ok", evidence: "" } };
      },
    };
    const run = runWithExecutor({ executor, signal: signal() }, async () => {
      await check.soft("fails");
      await check("holds");
    });
    await expect(run).rejects.toBeInstanceOf(SoftChecksFailedError);
    expect(steps).toEqual(["fails", "holds"]);
  });
});

describe("the run's default check timeout", () => {
  it("applies to a check that sets none; a check's own timeoutMs wins", async () => {
    const executor = recorder();
    await runWithExecutor({ executor, signal: signal(), checkTimeoutMs: 1_500 }, async () => {
      await check("it holds");
      await check("it holds too", { timeoutMs: 0 });
    });
    expect(executor.steps.map((s) => s.check?.timeoutMs)).toEqual([1_500, 0]);
  });

  it("is 5 s when the run sets none, and a soft failure still fails the run", async () => {
    const executor = recorder();
    await expect(runWithExecutor({ executor, signal: signal() }, () => check.soft("fail"))).rejects.toBeInstanceOf(SoftChecksFailedError);
    expect(executor.steps[0]!.check?.timeoutMs).toBe(5_000);
  });
});
