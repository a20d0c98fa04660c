import { describe, expect, it } from "vitest";
import type { GroupRecord, RunEvent, RunRecord, StepRecord } from "@wf/runtime";
import { createReporter } from "../src/index.js";
import { junitXml } from "../src/suite-reporters.js";
import type { SuiteResult, WorkflowEntry } from "../src/suite-result.js";
import { collector } from "./_helpers.js";

const SECRET = "hunter2-s3cret";
const redact = (text: string) => text.split(SECRET).join("[secret]");

const ask: StepRecord = {
  index: 2,
  type: "ASK",
  instruction: "the title of the page",
  status: "succeeded",
  attempts: 1,
  startedAt: "2026-01-01T00:00:01.000Z",
  finishedAt: "2026-01-01T00:00:01.250Z",
  durationMs: 250,
  result: { value: "Fixture shop" },
  answer: "Fixture shop",
};
const act: StepRecord = { ...ask, index: 1, type: "ACT", instruction: `type "${SECRET}" into "Password"`, durationMs: 1200, result: { action: "fill" }, answer: undefined };
const record: RunRecord = {
  version: 1,
  workflow: "hello",
  status: "succeeded",
  params: { password: "[secret]" },
  output: { title: "Fixture shop" },
  sessionId: "s1",
  debuggerUrl: "http://127.0.0.1:1/view/s1",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:02.000Z",
  durationMs: 2000,
  steps: [act, ask],
};
const events: RunEvent[] = [
  { type: "run-started", workflow: "hello", sessionId: "s1", debuggerUrl: record.debuggerUrl!, params: record.params },
  { type: "step-started", index: 1, stepType: "ACT", instruction: act.instruction, attempt: 1 },
  { type: "step-finished", step: act },
  { type: "log", message: `logged ${SECRET}` },
  { type: "step-started", index: 2, stepType: "ASK", instruction: ask.instruction, attempt: 1 },
  { type: "step-finished", step: ask },
  { type: "run-finished", record },
];

function feed(name: "pretty" | "json" | "ndjson", options: { isTTY?: boolean; env?: Record<string, string> } = {}) {
  const stdout = collector({ isTTY: options.isTTY ?? false, columns: 100 });
  const stderr = collector();
  const reporter = createReporter(name, { stdout, stderr, redact, env: options.env ?? {} });
  for (const event of events) reporter.onEvent(event);
  reporter.end();
  return { out: stdout.text(), err: stderr.text() };
}

describe("reporters", () => {
  it("show a step's model calls when it took more than one request, and mark estimated tokens ~ (issue 31)", () => {
    const modelAsk: StepRecord = { ...ask, interpreter: "model", usage: { model: "m", promptTokens: 300, completionTokens: 30, totalTokens: 330, calls: 3, durationMs: 40, estimated: true } };
    const run: RunRecord = { ...record, steps: [act, modelAsk], usage: { models: ["m"], promptTokens: 300, completionTokens: 30, totalTokens: 330, calls: 3, durationMs: 40, steps: 1, estimated: true } };
    const lines = (isTTY: boolean) => {
      const stdout = collector({ isTTY, columns: 120 });
      const reporter = createReporter("pretty", { stdout, stderr: collector(), redact, env: { NO_COLOR: "1" } });
      for (const event of [events[0]!, { type: "step-finished", step: modelAsk } as RunEvent, { type: "run-finished", record: run } as RunEvent]) reporter.onEvent(event);
      reporter.end();
      return stdout.text();
    };
    const plain = lines(false);
    expect(plain).toMatch(/^step 2 ASK "the title of the page" succeeded 250ms answer="Fixture shop" model tokens=~330 calls=3$/m);
    expect(plain).toMatch(/run succeeded \(2 steps in 2\.0s, ~330 tokens in 3 model calls\)/);
    expect(lines(true)).toContain("250ms · ~330 tokens in 3 calls");
  });

  it("count the model calls the action lock saved (replayed ACTs and reads) in the run's summary (issue 35)", () => {
    const replayedAct: StepRecord = { ...act, interpreter: "grammar", replayed: true, resolved: 'click the "Sign in" button' };
    const replayedAsk: StepRecord = { ...ask, interpreter: "grammar", replayed: true };
    const third: StepRecord = { ...ask, index: 3, interpreter: "grammar", replayed: true };
    const summaryOf = (steps: StepRecord[], extra: Partial<RunRecord> = {}) => {
      const stdout = collector({ isTTY: false, columns: 120 });
      const reporter = createReporter("pretty", { stdout, stderr: collector(), redact, env: { NO_COLOR: "1" } });
      reporter.onEvent({ type: "run-finished", record: { ...record, steps, ...extra } } as RunEvent);
      reporter.end();
      return stdout.text();
    };
    expect(summaryOf([replayedAct, replayedAsk, third])).toMatch(/run succeeded \(3 steps in 2\.0s, 3 model calls saved \(replayed from the lock\)\)/);
    expect(summaryOf([act, replayedAsk], { maxModelCalls: 0 })).toMatch(/run succeeded \(2 steps in 2\.0s, 0 tokens in 0 of 0 model calls \(--max-model-calls\), 1 model call saved \(replayed from the lock\)\)/);
    expect(summaryOf([act, ask])).toMatch(/run succeeded \(2 steps in 2\.0s\)$/m);
  });

  it("pretty off a terminal: plain lines, debugger URL first, each step started then finished, the output", () => {
    const { out } = feed("pretty");
    expect(out).not.toMatch(/\x1b/);
    expect(out.split("\n")).toEqual([
      "wf hello  debugger: http://127.0.0.1:1/view/s1",
      'step 1 ACT "type \\"[secret]\\" into \\"Password\\"" started',
      'step 1 ACT "type \\"[secret]\\" into \\"Password\\"" succeeded 1200ms',
      "log logged [secret]",
      'step 2 ASK "the title of the page" started',
      'step 2 ASK "the title of the page" succeeded 250ms answer="Fixture shop"',
      "run succeeded (2 steps in 2.0s)",
      "{",
      '  "title": "Fixture shop"',
      "}",
      "",
    ]);
  });

  it("pretty on a terminal: live lines with colours, and none with NO_COLOR", () => {
    const coloured = feed("pretty", { isTTY: true });
    expect(coloured.out).toMatch(/\x1b\[3\dm/);
    expect(coloured.out).toContain("\r\x1b[2K");
    expect(coloured.out).toContain("Fixture shop");
    expect(coloured.out).toContain("1.2s");

    const plain = feed("pretty", { isTTY: true, env: { NO_COLOR: "1" } });
    expect(plain.out).not.toMatch(/\x1b\[\d+m/);
    expect(plain.out).toContain("✔");
  });

  it("json prints the run record once, at the end", () => {
    const { out } = feed("json");
    expect(JSON.parse(out)).toEqual(JSON.parse(redact(JSON.stringify(record))));
  });

  it("ndjson prints one event per line", () => {
    const lines = feed("ndjson").out.trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(events.map((e) => e.type));
  });

  it("never lets a secret value through, whatever the reporter", () => {
    for (const name of ["pretty", "json", "ndjson"] as const) {
      for (const isTTY of [false, true]) {
        const { out, err } = feed(name, { isTTY });
        expect(out + err).not.toContain(SECRET);
      }
    }
  });

  it("pretty shows a failed step's message once, under the step, and ends with where the run stopped", () => {
    for (const isTTY of [false, true]) {
      const stdout = collector({ isTTY, columns: 100 });
      const stderr = collector();
      const reporter = createReporter("pretty", { stdout, stderr, env: { NO_COLOR: "1" }, cwd: "/proj" });
      const failed: StepRecord = { ...act, index: 3, instruction: 'click "Buy"', status: "failed", answer: undefined, error: { code: "WF_ELEMENT_NOT_FOUND", message: 'No button "Buy" on the page.' } };
      const message = `Step 3 ACT failed: No button "Buy" on the page.`;
      reporter.onEvent({ type: "step-started", index: 3, stepType: "ACT", instruction: failed.instruction, callSite: "/proj/flows/buy.ts:12:5", attempt: 1 });
      reporter.onEvent({ type: "step-finished", step: failed });
      reporter.onEvent({
        type: "run-finished",
        record: { ...record, status: "failed", output: undefined, steps: [act, failed], error: { code: "WF_STEP_FAILED", message, stepIndex: 3, callSite: "/proj/flows/buy.ts:12:5" } },
      });
      reporter.end();
      const all = stdout.text() + stderr.text();
      expect(all.split('No button "Buy" on the page.').length - 1).toBe(1);
      expect(stdout.text()).toContain('No button "Buy" on the page.');
      expect(stderr.text()).toBe(isTTY ? "✖ run failed at step 3 (flows/buy.ts:12:5)\n" : "run failed at step 3 (flows/buy.ts:12:5)\n");
    }
  });

  it("pretty sends a failed run's error to stderr when no step showed it", () => {
    const stdout = collector();
    const stderr = collector();
    const reporter = createReporter("pretty", { stdout, stderr, env: {} });
    reporter.onEvent({
      type: "run-finished",
      record: { ...record, status: "failed", output: undefined, error: { code: "WF_STEP_FAILED", message: "Step 1 failed", callSite: "/w.ts:3:9" } },
    });
    expect(stdout.text()).toContain("run failed");
    expect(stderr.text()).toBe("Step 1 failed [WF_STEP_FAILED]\n    at /w.ts:3:9\n");
  });
});

describe("step() groups in the reporters", () => {
  const group = (id: number, title: string, status: GroupRecord["status"], parentId?: number): GroupRecord => ({
    id,
    title,
    ...(parentId !== undefined ? { parentId } : {}),
    status,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: status === "running" ? "" : "2026-01-01T00:00:01.000Z",
    durationMs: status === "running" ? 0 : 1000,
  });
  const pay: StepRecord = { ...act, index: 3, instruction: 'click "Pay"', status: "failed", answer: undefined, groupId: 2, error: { code: "WF_ELEMENT_NOT_FOUND", message: 'No button "Pay".' } };
  const typed: StepRecord = { ...ask, index: 2, groupId: 1 };
  const groups = [group(1, "checkout", "failed"), group(2, "pay", "failed", 1)];
  const failedRecord: RunRecord = {
    ...record,
    status: "failed",
    output: undefined,
    steps: [{ ...act, answer: undefined }, typed, pay],
    groups,
    logs: [{ at: "2026-01-01T00:00:01.000Z", message: "paying now", afterSteps: 2, groupId: 2 }],
    error: { code: "WF_STEP_FAILED", message: "Step 3 failed", stepIndex: 3 },
  };
  const groupEvents: RunEvent[] = [
    { type: "run-started", workflow: "hello", sessionId: "s1", debuggerUrl: record.debuggerUrl!, params: {} },
    { type: "step-finished", step: { ...act, answer: undefined } },
    { type: "group-started", group: group(1, "checkout", "running") },
    { type: "step-started", index: 2, stepType: "ASK", instruction: typed.instruction, attempt: 1, groupId: 1 },
    { type: "step-finished", step: typed },
    { type: "group-started", group: group(2, "pay", "running", 1) },
    { type: "log", message: "paying now", groupId: 2 },
    { type: "step-finished", step: pay },
    { type: "group-finished", group: groups[1]! },
    { type: "group-finished", group: groups[0]! },
  ];

  it("pretty on a terminal indents a group's steps and logs under its title, and marks a failed group", () => {
    const stdout = collector({ isTTY: true, columns: 120 });
    const reporter = createReporter("pretty", { stdout, stderr: collector(), env: { NO_COLOR: "1" } });
    for (const event of groupEvents) reporter.onEvent(event);
    // What the terminal shows: a line in progress is overwritten by its result.
    const lines = stdout.text().split("\n").map((l) => l.split("\r\x1b[2K").at(-1)!);
    expect(lines).toContain("▸ checkout");
    expect(lines.some((l) => /^ {2}✔ 2\. ASK the title of the page/.test(l))).toBe(true);
    expect(lines).toContain("  ▸ pay");
    expect(lines).toContain("      log paying now");
    expect(lines.some((l) => /^ {4}✖ 3\. ACT click "Pay"/.test(l))).toBe(true);
    expect(lines).toContain("  ✖ pay failed (1.0s)");
  });

  it("pretty off a terminal writes a line as each group starts and ends", () => {
    const stdout = collector();
    const reporter = createReporter("pretty", { stdout, stderr: collector(), env: {} });
    for (const event of groupEvents) reporter.onEvent(event);
    expect(stdout.text()).toContain('group 1 "checkout" started\n');
    expect(stdout.text()).toContain('group 2 "pay" started in group 1\n');
    expect(stdout.text()).toContain('group 2 "pay" failed 1000ms\n');
  });

  it("JUnit's system-out nests steps and logs under their groups, and the failure names the group path", async () => {
    const result: SuiteResult = {
      status: "failed",
      results: [{ entry: { file: "/p/flows/buy.ts", relFile: "flows/buy.ts", name: "buy", title: "buy", repeatEachIndex: 0, workflow: {} as WorkflowEntry["workflow"] }, outcome: "failed", attempts: [failedRecord], durationMs: 2000 }],
      startedAt: record.startedAt,
      durationMs: 2000,
      stats: { passed: 0, flaky: 0, failed: 1, interrupted: 0, skipped: 0 },
    };
    const xml = await junitXml(result, "/p");
    expect(xml).toContain('step 3 ACT &quot;click \\&quot;Pay\\&quot;&quot; failed in step &quot;checkout › pay&quot;');
    const out = /<system-out>([\s\S]*?)<\/system-out>/.exec(xml)![1]!.split("\n");
    expect(out).toEqual([
      expect.stringMatching(/^step 1 ACT/),
      "▸ checkout",
      expect.stringMatching(/^ {2}step 2 ASK/),
      "  ▸ pay",
      "    log paying now",
      expect.stringMatching(/^ {4}step 3 ACT &quot;click \\&quot;Pay\\&quot;&quot; failed/),
      "  ✖ pay failed",
      "✖ checkout failed",
    ]);
  });
});
