/**
 * The action lock end to end, `wf run` spawned as a user runs it, against a double of an
 * OpenAI-compatible provider that records every request: the first run calls the model and writes
 * `<name>.wf.lock.json`; the next replays it with no model call; a renamed field is found again by
 * its recorded locator (no model call) and a page change beyond that heals the entry in place
 * through one model call; on CI without a model a stale entry fails with the command that
 * refreshes it; no secret value ever reaches the lock.
 */
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageOf, refFor, startModelDouble, type ModelDouble } from "../../server/tests/helpers/model-double.js";
import { FIXTURES, runWf, scratchDir, startPages } from "./_helpers.js";

describe("wf run with the action lock (spawned)", { timeout: 200_000 }, () => {
  let pages: Awaited<ReturnType<typeof startPages>>;
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let model: ModelDouble;
  let flow: string;
  let lockPath: string;
  beforeAll(async () => {
    pages = await startPages();
    scratch = await scratchDir();
    flow = join(scratch.dir, "lock-flow.ts");
    lockPath = join(scratch.dir, "lock-flow.wf.lock.json");
    await copyFile(join(FIXTURES, "lock-flow.ts"), flow);
    // A model that signs in: the e-mail field, the password (as the placeholder it was given), the button.
    model = await startModelDouble((request) => {
      const user = /sign in as (\S+)/.exec(pageOf(request))?.[1] ?? "";
      return {
        content: {
          reason: "Fill the form and sign in.",
          actions: [
            { verb: "fill", ref: refFor(request, "mail", "textbox"), value: user },
            { verb: "fill", ref: refFor(request, "Password", "textbox"), value: "{{secret1}}" },
            { verb: "click", ref: refFor(request, "Sign in", "button"), value: null },
          ],
        },
        usage: { prompt_tokens: 500, completion_tokens: 50 },
      };
    });
  });
  afterAll(async () => {
    await pages?.close();
    await scratch?.remove();
    await model?.close();
  });

  const withModel = () => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "sk-test-lock", WF_MODEL: "test-model", CI: "" });
  const run = (page: string, user: string, password: string, env: Record<string, string>, reporter = "json") =>
    runWf(["run", flow, "--param", `url=${pages.url}/${page}`, "--param", `user=${user}`, "--param", `password=${password}`, "--reporter", reporter], {
      cwd: scratch.dir,
      env,
      timeoutMs: 150_000,
    });
  const SECRETS = ["hunter2-first", "s3cret-second", "third-pass!"];

  it("the first run calls the model and writes one entry with placeholders, no values", async () => {
    const result = await run("lock-a.html", "ada@example.com", SECRETS[0]!, withModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ interpreter: "model", usage: { calls: 1 } });
    expect(record.steps[2]).toMatchObject({ status: "succeeded" });
    expect(model.requests).toHaveLength(1);

    const text = await readFile(lockPath, "utf8");
    const lock = JSON.parse(text);
    expect(lock).toMatchObject({
      version: 1,
      entries: [
        {
          callSite: expect.stringMatching(/^lock-flow\.ts:9:\d+$/),
          instruction: "sign in as {{user}} with password {{password}}",
          page: `${pages.url}/lock-a.html`,
          actions: [
            { instruction: 'type "{{user}}" into the "Email" field', element: { role: "textbox", name: "Email" } },
            { instruction: 'type "{{password}}" into the "Password" field', element: { role: "textbox", name: "Password" } },
            { instruction: 'click the "Sign in" button', element: { role: "button", name: "Sign in" } },
          ],
          model: "test-model",
        },
      ],
    });
    expect(lock.entries).toHaveLength(1);
    // Stable formatting: what writeLock writes is 2-space JSON with a final newline.
    expect(text).toBe(JSON.stringify(lock, null, 2) + "\n");
    expect(text).not.toContain("ada@example.com");
    expect(text).not.toContain(SECRETS[0]);
  });

  it("the next run replays the entry with other values: zero model calls, the same actions, the lock unchanged", async () => {
    const before = await readFile(lockPath, "utf8");
    const calls = model.requests.length;
    const result = await run("lock-a.html", "bob@example.com", SECRETS[1]!, withModel());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    expect(model.requests.length).toBe(calls);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", interpreter: "grammar", replayed: true });
    expect(record.steps[1].resolved).toBe('type "bob@example.com" into the "Email" field; type "[secret]" into the "Password" field; click the "Sign in" button');
    expect(record.steps[1].usage).toBeUndefined();
    expect(record.usage).toBeUndefined();
    // Signing in led to the welcome page, whose link the last step clicked.
    expect(record.steps[2]).toMatchObject({ status: "succeeded" });
    expect(await readFile(lockPath, "utf8")).toBe(before);
    expect(result.stdout).not.toContain(SECRETS[1]);
  });

  it("a renamed field is healed without the model: found again by its recorded locator, the entry rewritten in place", async () => {
    const calls = model.requests.length;
    const result = await run("lock-b.html", "cy@example.com", SECRETS[2]!, { ...withModel(), NO_COLOR: "1" }, "json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(model.requests.length).toBe(calls);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "succeeded", interpreter: "grammar", replayed: true, healed: true });
    expect(record.steps[1].resolved).toContain('type "cy@example.com" into the "Work email" field');
    const text = await readFile(lockPath, "utf8");
    const lock = JSON.parse(text);
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0].actions[0]).toEqual({ instruction: 'type "{{user}}" into the "Work email" field', element: { role: "textbox", name: "Work email", locator: expect.stringContaining("Work email") } });
    // The actions that still found their elements are kept as they were, and so is the model that resolved them.
    expect(lock.entries[0].actions[2]).toMatchObject({ instruction: 'click the "Sign in" button' });
    expect(lock.entries[0]).toMatchObject({ model: "test-model", page: `${pages.url}/lock-b.html` });
    for (const value of [...SECRETS, "cy@example.com"]) expect(text).not.toContain(value);
  });

  it("a page change the recorded element cannot be found again on heals through one model call: the entry rewritten in place, the step marked healed", async () => {
    const calls = model.requests.length;
    const result = await run("lock-c.html", "cy@example.com", SECRETS[2]!, { ...withModel(), NO_COLOR: "1" }, "pretty");
    expect(result.code).toBe(0);
    expect(model.requests.length).toBe(calls + 1);
    expect(result.stdout).toMatch(/^step 2 ACT "sign in as cy@example\.com with password \[secret\]" succeeded \d+ms model=.* healed tokens=550$/m);
    const text = await readFile(lockPath, "utf8");
    const lock = JSON.parse(text);
    expect(lock.entries).toHaveLength(1);
    expect(lock.entries[0].actions[0]).toEqual({ instruction: 'type "{{user}}" into the "E-mail address" field', element: { role: "textbox", name: "E-mail address", locator: expect.any(String) } });
    expect(lock.entries[0].page).toBe(`${pages.url}/lock-c.html`);
    for (const value of [...SECRETS, "cy@example.com"]) expect(text).not.toContain(value);
  });

  it("on CI without a model, a stale entry fails the run naming the entry and the command that refreshes it", async () => {
    const calls = model.requests.length;
    const before = await readFile(lockPath, "utf8");
    // The lock now names "E-mail address"; this page says "Email".
    const result = await run("lock-a.html", "dee@example.com", SECRETS[0]!, { CI: "true" });
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.status).toBe("failed");
    expect(record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_REPLAY_MISMATCH" } });
    const message: string = record.steps[1].error.message;
    expect(message).toContain('"sign in as {{user}} with password {{password}}" at lock-flow.ts:9:');
    expect(message).toContain(`\`wf run ${flow} --lock write\``);
    expect(message).toContain('the lock recorded textbox "E-mail address"');
    expect(model.requests.length).toBe(calls);
    expect(await readFile(lockPath, "utf8")).toBe(before);
  });

  it("without a model, a free-form step no entry records fails WF_LOCK_MISSING, and no lock is written", async () => {
    const fresh = join(scratch.dir, "fresh.ts");
    await copyFile(join(FIXTURES, "lock-flow.ts"), fresh);
    const result = await runWf(["run", fresh, "--param", `url=${pages.url}/lock-a.html`, "--param", "user=eve@example.com", "--param", "password=pw-eve", "--reporter", "json"], {
      cwd: scratch.dir,
      env: { CI: "" },
      timeoutMs: 150_000,
    });
    expect(result.code).toBe(1);
    const record = JSON.parse(result.stdout);
    expect(record.steps[1]).toMatchObject({ status: "failed", error: { code: "WF_LOCK_MISSING" } });
    expect(record.steps[1].error.message).toContain(`\`wf run ${fresh} --lock write\``);
    await expect(readFile(join(scratch.dir, "fresh.wf.lock.json"), "utf8")).rejects.toThrow(/ENOENT/);
  });
});
