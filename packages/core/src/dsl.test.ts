import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, ask, check, runWithExecutor } from "./dsl.js";
import { SoftChecksFailedError, StepFailedError, WorkflowContextError } from "./errors.js";
import type { Executor, StepRequest } from "./executor.js";
import { executeWorkflow, workflow } from "./workflow.js";

/** An executor that records each step and answers from a queue: stands in for the service. */
function recordingExecutor(answers: unknown[]): Executor & { steps: StepRequest[] } {
  const steps: StepRequest[] = [];
  return {
    steps,
    async runStep(step) {
      steps.push(step);
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return { result: next };
    },
  };
}

describe("act / ask outside a run", () => {
  it("throws a WorkflowContextError that says how to run", async () => {
    await expect(act("click \"Go\"")).rejects.toBeInstanceOf(WorkflowContextError);
    await expect(ask("the title")).rejects.toThrow(/outside a workflow run/);
  });
});

describe("act / ask inside a run", () => {
  it("hands steps to the bound executor in order, with indexes and the caller's file", async () => {
    const executor = recordingExecutor([{ ok: true }, "Example Domain", { value: [1, 2] }]);
    const result = await runWithExecutor({ executor, signal: new AbortController().signal }, async () => {
      await act('click "More"');
      const title = await ask("the page title");
      const numbers = await ask("the numbers", z.array(z.number()));
      return { title, numbers };
    });
    expect(result).toEqual({ title: "Example Domain", numbers: [1, 2] });
    expect(executor.steps.map((s) => [s.type, s.index, s.instruction])).toEqual([
      ["ACT", 1, 'click "More"'],
      ["ASK", 2, "the page title"],
      ["ASK", 3, "the numbers"],
    ]);
    expect(executor.steps[0]!.callSite).toMatch(/dsl\.test\.ts:\d+:\d+$/);
    expect(executor.steps[2]!.responseFormat?.type).toBe("json_schema");
  });

  it("gives each step the line:column of its call, the same for a step in a loop and through a helper", async () => {
    const executor = recordingExecutor([undefined, undefined, undefined, undefined]);
    const clickThrough = (name: string) => act(`click "${name}"`);
    await runWithExecutor({ executor, signal: new AbortController().signal }, async () => {
      for (const name of ["A", "B"]) await act(`click "${name}"`);
      await clickThrough("C");
      await clickThrough("D");
    });
    // Under vitest the line:column is the transformed file's (no Node source map for it); the exact
    // .ts position is checked on the installed wf (tests/install.test.ts in @wf/cli).
    const [inLoop, again, inHelper, helperAgain] = executor.steps.map((s) => s.callSite);
    expect(inLoop).toMatch(/dsl\.test\.ts:\d+:\d+$/);
    expect(inHelper).toMatch(/dsl\.test\.ts:\d+:\d+$/);
    expect([again, helperAgain]).toEqual([inLoop, inHelper]);
    expect(inHelper).not.toBe(inLoop);
  });

  it("retries a failed step as many times as asked, then gives up with the service's error", async () => {
    const failure = () => new StepFailedError({ index: 1, type: "ACT", instruction: "click", serviceCode: "WF_ELEMENT_NOT_FOUND", serviceMessage: "nope" });
    const executor = recordingExecutor([failure(), { done: true }]);
    await runWithExecutor({ executor, signal: new AbortController().signal }, () => act("click", { retries: 1 }));
    expect(executor.steps.map((s) => s.attempt)).toEqual([1, 2]);

    const failing = recordingExecutor([failure(), failure()]);
    await expect(runWithExecutor({ executor: failing, signal: new AbortController().signal }, () => act("click", { retries: 1 }))).rejects.toThrow(
      /WF_ELEMENT_NOT_FOUND/,
    );
  });
});

describe("executeWorkflow", () => {
  it("validates params and output around the handler", async () => {
    const wf = workflow(
      { name: "add-one", params: z.object({ n: z.coerce.number() }), output: z.object({ m: z.number() }) },
      async ({ params }) => ({ m: params.n + 1 }),
    );
    const executor = recordingExecutor([]);
    await expect(executeWorkflow(wf, { params: { n: "41" }, executor })).resolves.toEqual({ m: 42 });
    await expect(executeWorkflow(wf, { params: { n: "x" }, executor })).rejects.toThrow(/Invalid params for workflow "add-one":\n  - n:/);
  });

  it("refuses a name that is not kebab-case", () => {
    expect(() => workflow({ name: "Not Kebab" }, async () => {})).toThrow(/kebab-case/);
  });

  it("keeps the tags given (Playwright's: each starts with @), none by default, and refuses any other", () => {
    expect(workflow({ name: "a", tags: ["@smoke", "@checkout", "@smoke"] }, async () => {}).tags).toEqual(["@smoke", "@checkout"]);
    expect(workflow({ name: "a" }, async () => {}).tags).toEqual([]);
    expect(() => workflow({ name: "a", tags: ["smoke"] }, async () => {})).toThrow(/tag "smoke" must start with "@"/);
    expect(() => workflow({ name: "a", tags: ["@two words"] }, async () => {})).toThrow(/hold no spaces/);
    expect(() => workflow({ name: "a", tags: "@smoke" as never }, async () => {})).toThrow(/tags must be an array/);
  });
});

describe("check / check.soft", () => {
  const failed = (index: number, code: string) =>
    new StepFailedError({ index, type: "CHECK", instruction: "s", serviceCode: code, serviceMessage: `did not hold (${code})`, callSite: "flow.ts:3:9" });

  it("hands a CHECK with its retry window (default 5_000 ms) and a step timeout beyond it, from the caller's line", async () => {
    const executor = recordingExecutor([{ holds: true }, { holds: true }]);
    await runWithExecutor({ executor, signal: new AbortController().signal }, async () => {
      await check('the page shows "Saved"');
      await check.soft('the URL contains "/done"', { timeoutMs: 0 });
    });
    expect(executor.steps.map((s) => [s.type, s.index, s.instruction, s.check, s.timeoutMs])).toEqual([
      ["CHECK", 1, 'the page shows "Saved"', { timeoutMs: 5_000, soft: false }, 35_000],
      ["CHECK", 2, 'the URL contains "/done"', { timeoutMs: 0, soft: true }, 30_000],
    ]);
    expect(executor.steps[0]!.callSite).toMatch(/dsl\.test\.ts:\d+:\d+$/);
    expect(executor.steps[1]!.callSite).toMatch(/dsl\.test\.ts:\d+:\d+$/);
  });

  it("check throws at once; check.soft goes on and the run fails at its end listing every failed soft check", async () => {
    const hard = recordingExecutor([failed(1, "WF_CHECK_FAILED")]);
    await expect(runWithExecutor({ executor: hard, signal: new AbortController().signal }, () => check('the page shows "X"'))).rejects.toBeInstanceOf(StepFailedError);

    const soft = recordingExecutor([failed(1, "WF_CHECK_FAILED"), failed(2, "WF_ANSWER_UNCERTAIN"), "after"]);
    let reached = false;
    const error = await runWithExecutor({ executor: soft, signal: new AbortController().signal }, async () => {
      await check.soft('the page shows "X"');
      await check.soft("the cart looks right");
      await act('click "Next"');
      reached = true;
    }).catch((e: unknown) => e);
    expect(reached).toBe(true);
    expect(error).toBeInstanceOf(SoftChecksFailedError);
    expect((error as SoftChecksFailedError).code).toBe("WF_CHECK_FAILED");
    expect((error as Error).message).toMatch(/^2 soft checks failed/);
    expect((error as Error).message).toContain("step 2");
  });

  it("check.soft does not swallow what is not a verdict (a statement not understood, a timeout)", async () => {
    const executor = recordingExecutor([failed(1, "WF_INSTRUCTION_NOT_UNDERSTOOD")]);
    const run = runWithExecutor({ executor, signal: new AbortController().signal }, () => check.soft("the cart looks right"));
    await expect(run).rejects.toMatchObject({ serviceCode: "WF_INSTRUCTION_NOT_UNDERSTOOD" });
  });

  it("takes the run's check timeout (check: { timeoutMs } in wf.config.ts) for a check that sets none; its own wins", async () => {
    const executor = recordingExecutor([{ holds: true }, { holds: true }]);
    await executeWorkflow(
      workflow({ name: "checks" }, async () => {
        await check('the page shows "Saved"');
        await check.soft('the page shows "Saved"', { timeoutMs: 250 });
      }),
      { executor, checkTimeoutMs: 1_500 },
    );
    expect(executor.steps.map((s) => [s.check, s.timeoutMs])).toEqual([
      [{ timeoutMs: 1_500, soft: false }, 31_500],
      [{ timeoutMs: 250, soft: true }, 30_250],
    ]);
    await expect(runWithExecutor({ executor, signal: new AbortController().signal, checkTimeoutMs: 1.5 }, async () => {})).rejects.toThrow(/the run's checkTimeoutMs must be a whole number/);
  });

  it("refuses a timeout that is not a whole number of ms from 0 to 570,000, and works only in a run", async () => {
    await expect(check('the page shows "X"')).rejects.toBeInstanceOf(WorkflowContextError);
    const executor = recordingExecutor([]);
    await expect(runWithExecutor({ executor, signal: new AbortController().signal }, () => check('the page shows "X"', { timeoutMs: -1 }))).rejects.toThrow(/timeoutMs must be/);
    expect(executor.steps).toHaveLength(0);
  });
});
