/**
 * How `wf trigger --wait` shows a stored ASK's answer: the step `result` on the wire is the answer
 * as the strict schema has it, so a non-object answer arrives wrapped as `{ value: … }`
 * (`WRAPPER_KEY` of `@wf/core`) and is shown unwrapped. The last test runs a stored workflow on a
 * real server (one Chromium for the file).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WRAPPER_KEY, decodeAnswer } from "@wf/core";
import { startServer } from "@wf/server";
import { runCli } from "../src/cli.js";
import { decodeStepAnswer } from "../src/trigger.js";
import { startPageServer } from "../../server/tests/fixtures/stored/servers.js";
import { FIXTURES, collector } from "./_helpers.js";

describe("decodeStepAnswer", () => {
  it("unwraps what the strict schema wrapped, as @wf/core decodes it", () => {
    for (const [schema, answer] of [
      [z.string(), "Fixture shop"],
      [z.number(), 42],
      [z.array(z.string()), ["a", "b"]],
      [z.enum(["yes", "no"]), "no"],
      [z.string().nullable(), null],
    ] as const) {
      const wire = { [WRAPPER_KEY]: answer };
      expect(decodeStepAnswer(wire)).toEqual(decodeAnswer(schema, wire));
    }
  });

  it("leaves object answers, and anything else, as they are", () => {
    expect(decodeStepAnswer({ title: "Page 2" })).toEqual({ title: "Page 2" });
    expect(decodeStepAnswer({ value: 1, unit: "ms" })).toEqual({ value: 1, unit: "ms" });
    expect(decodeStepAnswer("text")).toBe("text");
    expect(decodeStepAnswer(null)).toBeNull();
    expect(decodeStepAnswer([{ value: 1 }])).toEqual([{ value: 1 }]);
  });
});

describe("wf trigger --wait", () => {
  it("shows a stored ASK's non-object answer without the wrapper; --reporter json keeps the wire result beside the answer", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-cli-answer-"));
    const pages = await startPageServer();
    const server = await startServer({ port: 0, apiKeys: ["k"], dataDir, workflowsDir: join(FIXTURES, "stored"), journalSync: false, logger: false });
    try {
      const wf = async (...args: string[]) => {
        const stdout = collector();
        const stderr = collector();
        const env = { WF_SERVICE_URL: server.url, WF_API_KEY: "k", NO_COLOR: "1" };
        const code = await runCli(["trigger", "read-title-text", "--var", `url=${pages.url}page-1.html`, "--wait", ...args], { cwd: dataDir, env, stdout, stderr });
        return { code, stdout: stdout.text(), stderr: stderr.text() };
      };
      const pretty = await wf();
      expect(pretty.code).toBe(0);
      expect(pretty.stdout).toMatch(/^step 2 ASK "the page's title" succeeded \d+ms answer="Page 1"$/m);
      const json = await wf("--reporter", "json");
      const loggedOut = collector();
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).steps[1]).toMatchObject({ result: { [WRAPPER_KEY]: "Page 1" }, answer: "Page 1" });
      // log() lines reach the trigger's output, each between the steps it was logged between.
      const logged = await runCli(["trigger", "logged-title", "--var", `url=${pages.url}page-1.html`, "--wait"], {
        cwd: dataDir,
        env: { WF_SERVICE_URL: server.url, WF_API_KEY: "k", NO_COLOR: "1" },
        stdout: loggedOut,
        stderr: loggedOut,
      });
      expect(logged).toBe(0);
      const lines = loggedOut.text().split("\n").filter((l) => /^(log|step \d .* succeeded)/.test(l));
      expect(lines.map((l) => l.replace(/ \d+ms.*$/, ""))).toEqual([
        "log opening the page",
        `step 1 ACT "go to ${pages.url}page-1.html" succeeded`,
        `log page open {"url":"${pages.url}page-1.html"}`,
        `step 2 ASK "the page's title" succeeded`,
      ]);
    } finally {
      await server.close();
      await pages.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("runs a stored workflow as `wf run` runs the same file: a failed soft check lets it go on, checks print as checks", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-cli-soft-"));
    const pages = await startPageServer();
    const server = await startServer({ port: 0, apiKeys: ["k"], dataDir, workflowsDir: join(FIXTURES, "stored"), journalSync: false, logger: false });
    try {
      const url = `${pages.url}page-1.html`;
      const triggered = collector();
      const triggerCode = await runCli(["trigger", "soft-checks", "--var", `url=${url}`, "--wait"], { cwd: dataDir, env: { WF_BASE_URL: server.url, WF_API_KEY: "k", NO_COLOR: "1" }, stdout: triggered, stderr: triggered });
      const ran = collector();
      const runCode = await runCli(["run", join(FIXTURES, "stored", "soft-checks.ts"), "--param", `url=${url}`, "--reporter", "pretty", "--report-dir", join(dataDir, "report")], { cwd: dataDir, env: { NO_COLOR: "1", WF_MODEL: "" }, stdout: ran, stderr: ran });
      // What both print of the steps, durations aside.
      const stepLines = (text: string) =>
        text
          .split("\n")
          .filter((l) => /^(step \d+ \w+ .* (succeeded|failed)|group \d+ )/.test(l))
          .map((l) => l.replace(/ \d+ms/, ""));
      expect(stepLines(ran.text())).toEqual([
        `step 1 ACT "go to ${url}" succeeded`,
        'group 1 "look around" started',
        expect.stringMatching(/^step 2 CHECK "the page shows \\"Nothing like this\\"" failed check=✗ soft error=WF_CHECK_FAILED: /),
        'step 3 CHECK "the page shows \\"Page 1\\"" succeeded check=✓',
        'group 1 "look around" failed',
        'step 4 ACT "click \\"Next\\"" succeeded',
      ]);
      expect(runCode).toBe(1);
      // The stored run's session status knows no step() groups: the steps print alike.
      const steps = (text: string) => stepLines(text).filter((l) => !l.startsWith("group "));
      expect(steps(triggered.text())).toEqual(steps(ran.text()));
      expect(triggerCode).toBe(1);
      expect(triggered.text()).toContain("WF_CHECK_FAILED");
      expect(triggered.text()).not.toContain("answer=");
    } finally {
      await server.close();
      await pages.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
