/**
 * `wf lock diff`: a lock committed in a throw-away git repository, then healed in the work tree (a
 * renamed field, a new entry, a removed one, and an entry rewritten with nothing changed but
 * `recordedAt`): the diff names each entry with its old and new instruction, role, name, locator
 * and page, against git HEAD; outside a git work tree it says there is nothing to compare with.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatLock, type LockEntry } from "@wf/runtime";
import { runCli } from "../src/index.js";
import { collector } from "./_helpers.js";

const git = promisify(execFile);

const entry = (callSite: string, instruction: string, name: string, page = "https://shop.test/login"): LockEntry => ({
  callSite,
  instruction,
  page,
  actions: [{ instruction: `type "{{user}}" into the "${name}" field`, element: { role: "textbox", name, locator: `getByRole('textbox', { name: '${name}' })` } }],
  model: "test-model",
  recordedAt: "2026-01-01T00:00:00.000Z",
});

describe("wf lock diff", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "wf-lock-diff-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const wf = async (args: string[]) => {
    const stdout = collector();
    const stderr = collector();
    const code = await runCli(args, { cwd: dir, env: {}, stdout, stderr });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it("shows per entry the old (git HEAD) and new (working file) instruction, role, name, locator and page", async () => {
    const g = (...args: string[]) => git("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
    await g("init", "-q");
    const lockPath = join(dir, "sign-in.wf.lock.json");
    await writeFile(
      lockPath,
      formatLock({ version: 1, entries: [entry("sign-in.ts:4:9", "sign in as {{user}}", "Email"), entry("sign-in.ts:5:9", "fill the shipping form", "Street"), entry("sign-in.ts:6:9", "accept the cookies", "Cookies")] }),
    );
    await g("add", ".");
    await g("commit", "-q", "-m", "lock");
    // A heal: Email became Work email on another page; a new entry; one gone; one rewritten alike at another time.
    await writeFile(
      lockPath,
      formatLock({
        version: 1,
        entries: [
          entry("sign-in.ts:4:9", "sign in as {{user}}", "Work email", "https://shop.test/signin"),
          { ...entry("sign-in.ts:5:9", "fill the shipping form", "Street"), recordedAt: "2026-02-02T00:00:00.000Z" },
          entry("sign-in.ts:7:9", "pick the express option", "Express"),
        ],
      }),
    );

    const all = await wf(["lock", "diff"]);
    expect(all.stderr).toBe("");
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("sign-in.wf.lock.json (git HEAD → working file): 1 changed, 1 added, 1 removed");
    expect(all.stdout).toContain('  ~ "sign in as {{user}}" at sign-in.ts:4:9');
    expect(all.stdout).toMatch(/page\s+https:\/\/shop\.test\/login → https:\/\/shop\.test\/signin/);
    expect(all.stdout).toMatch(/action 1 instruction\s+type "\{\{user\}\}" into the "Email" field → type "\{\{user\}\}" into the "Work email" field/);
    expect(all.stdout).toMatch(/action 1 name\s+Email → Work email/);
    expect(all.stdout).toMatch(/action 1 locator\s+getByRole\('textbox', \{ name: 'Email' \}\) → getByRole\('textbox', \{ name: 'Work email' \}\)/);
    const changed = all.stdout.slice(all.stdout.indexOf("  ~ "), all.stdout.indexOf("  - "));
    expect(changed).not.toMatch(/action 1 role/);
    expect(all.stdout).toContain('  + "pick the express option" at sign-in.ts:7:9');
    expect(all.stdout).toMatch(/action 1 role\s+\(none\) → textbox/);
    expect(all.stdout).toContain('  - "accept the cookies" at sign-in.ts:6:9');
    // Rewritten with the same recording: not a change.
    expect(all.stdout).not.toContain("fill the shipping form");

    const one = await wf(["lock", "diff", "sign-in.wf.lock.json", "--json"]);
    expect(one.code).toBe(0);
    const [diff] = JSON.parse(one.stdout);
    expect(diff).toMatchObject({ lockPath, base: "HEAD" });
    expect(diff.changes.map((c: { kind: string }) => c.kind)).toEqual(["changed", "removed", "added"]);
    expect(diff.changes[0].old.actions[0].element.name).toBe("Email");
    expect(diff.changes[0].new.actions[0].element.name).toBe("Work email");
  });

  it("shows a heal's rewritten read: the old recipe and the new one, or why the new entry has none (issue 35)", async () => {
    const g = (...args: string[]) => git("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
    await g("init", "-q");
    const lockPath = join(dir, "orders.wf.lock.json");
    await writeFile(lockPath, formatLock({ version: 1, entries: [readEntry("orders.ts:5:9", "the balance due", { recipe: { parts: [{ path: "/value", label: "Balance due", as: "number" }] } })] }));
    await g("add", ".");
    await g("commit", "-q", "-m", "lock");
    await writeFile(lockPath, formatLock({ version: 1, entries: [readEntry("orders.ts:5:9", "the balance due", { noRecipe: "the answer needs judgement: /value is a sum of page numbers" })] }));
    const result = await wf(["lock", "diff", "orders.ts"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  ~ "the balance due" at orders.ts:5:9');
    expect(result.stdout).toMatch(/read recipe\s+\{"parts":\[\{"path":"\/value","label":"Balance due","as":"number"\}\]\} → \(none\)/);
    expect(result.stdout).toMatch(/read without recipe\s+\(none\) → the answer needs judgement: \/value is a sum of page numbers/);
  });

  it("outside a git work tree, says there is no committed lock to compare with (exit 2)", async () => {
    await writeFile(join(dir, "x.wf.lock.json"), formatLock({ version: 1, entries: [entry("x.ts:1:1", "go", "Email")] }));
    const result = await wf(["lock", "diff", "x.wf.lock.json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not in a git work tree, so there is no committed lock to compare with/);
  });
});

const readEntry = (callSite: string, instruction: string, read: Omit<NonNullable<LockEntry["read"]>, "schemaHash">): LockEntry => ({
  callSite,
  instruction,
  page: "https://shop.test/orders",
  actions: [],
  read: { schemaHash: "sha256:0123456789abcdef", ...read },
  model: "test-model",
  recordedAt: "2026-01-01T00:00:00.000Z",
});

describe("wf lock <file>", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "wf-lock-list-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const wf = async (args: string[]) => {
    const stdout = collector();
    const stderr = collector();
    const code = await runCli(args, { cwd: dir, env: {}, stdout, stderr });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it("lists each entry: an act's actions, what a read's recipe reads, and why a read has no recipe (it goes to the model on every run) (issue 35)", async () => {
    await writeFile(
      join(dir, "orders.wf.lock.json"),
      formatLock({
        version: 1,
        entries: [
          entry("orders.ts:4:9", "sign in as {{user}}", "Email"),
          readEntry("orders.ts:5:9", "the pending orders", {
            recipe: { parts: [{ path: "/value", table: { headers: ["Order", "Status"] }, where: [{ header: "Status", equals: "Pending" }], columns: { order: { header: "Order", as: "text" } } }] },
          }),
          readEntry("orders.ts:6:9", "how many orders are pending", { noRecipe: "the answer needs judgement: /value is a count of page items, not text the page writes in one place" }),
        ],
      }),
    );
    const result = await wf(["lock", "orders.ts"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("orders.wf.lock.json: 3 entries (1 act, 1 read replayed by a recipe, 1 read with no recipe)");
    expect(result.stdout).toContain('  act   "sign in as {{user}}" at orders.ts:4:9: 1 action');
    expect(result.stdout).toContain('  read  "the pending orders" at orders.ts:5:9: /value from the table with "Order", "Status" (rows selected)');
    expect(result.stdout).toContain(
      '  model "how many orders are pending" at orders.ts:6:9: no recipe, goes to the model on every run (fails WF_LOCK_MISSING under --lock frozen): the answer needs judgement: /value is a count of page items',
    );
    const json = await wf(["lock", "orders.wf.lock.json", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ exists: true, entries: [{ kind: "act" }, { kind: "read" }, { kind: "model", detail: expect.stringMatching(/^the answer needs judgement/) }] });
  });

  it("lists a text read by the element or section it comes from (issue 35)", async () => {
    await writeFile(
      join(dir, "shell.wf.lock.json"),
      formatLock({
        version: 1,
        entries: [
          readEntry("shell.ts:3:9", "the main heading", { recipe: { parts: [{ path: "", element: { role: "heading", level: 1 }, as: "text" }] } }),
          readEntry("shell.ts:4:9", "the alert's message", { recipe: { parts: [{ path: "", element: { role: "alert" }, as: "text" }] } }),
          readEntry("shell.ts:5:9", "the billing terms", { recipe: { parts: [{ path: "/value", section: "Billing", as: "text" }] } }),
        ],
      }),
    );
    const result = await wf(["lock", "shell.ts"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  read  "the main heading" at shell.ts:3:9: (the answer) from the page\'s one heading of level 1');
    expect(result.stdout).toContain('  read  "the alert\'s message" at shell.ts:4:9: (the answer) from the page\'s one alert');
    expect(result.stdout).toContain('  read  "the billing terms" at shell.ts:5:9: /value from the section under "Billing"');
  });

  it("says when the workflow has no lock file yet, and that a broken one is not a lock (exit 2)", async () => {
    const none = await wf(["lock", "flow.ts"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^flow\.wf\.lock\.json: no lock file \(record one with `wf run flow\.ts --lock write`/);
    await writeFile(join(dir, "flow.wf.lock.json"), "{ not json");
    const broken = await wf(["lock", "flow.ts"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/flow\.wf\.lock\.json/);
  });
});
