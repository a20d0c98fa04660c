import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fillParams, findEntry, foldActions, foldParams, formatLock, lockParams, lockPathFor, pageKey, readLock, relativeCallSite, upsertEntry, writeLock, type LockEntry, type LockFile } from "./lock.js";

const params = lockParams({ user: "ada@example.com", password: "pw", count: 12345, lang: "en", flag: true }, ["password"]);

describe("lock params", () => {
  it("folds strings and numbers, every secret, and no short non-secret value", () => {
    expect(params.map((p) => p.name)).toEqual(["user", "count", "password"]);
    expect(foldParams("sign in as ada@example.com (pw) in en, 12345 items", params)).toBe("sign in as {{user}} ({{password}}) in en, {{count}} items");
  });

  it("fills placeholders back, and refuses a placeholder no param of the run has", () => {
    expect(fillParams('type "{{user}}" into "Email"', params)).toBe('type "ada@example.com" into "Email"');
    expect(fillParams('type "{{nope}}" into "Email"', params)).toBeUndefined();
  });

  it("maps the service's [secret] back to the secret param the instruction used, and never writes a secret value", () => {
    const folded = foldActions(
      [
        { instruction: 'type "ada@example.com" into the "Email" field', element: { role: "textbox", name: "Email" } },
        { instruction: 'type "[secret]" into the "Password" field', element: { role: "textbox", name: "Password" } },
      ],
      "sign in as {{user}} with {{password}}",
      params,
    );
    expect(folded).toEqual([
      { instruction: 'type "{{user}}" into the "Email" field', element: { role: "textbox", name: "Email" } },
      { instruction: 'type "{{password}}" into the "Password" field', element: { role: "textbox", name: "Password" } },
    ]);
  });

  it("keeps an element recorded to be found by its locator first (primary: locator) through folding and writing", () => {
    const element = { role: "checkbox", name: "", locator: "getByRole('checkbox').nth(3)", primary: "locator" as const };
    const folded = foldActions([{ instruction: 'check the checkbox in the "Pay rent" item', element }], "tick off rent", params);
    expect(folded).toEqual([{ instruction: 'check the checkbox in the "Pay rent" item', element }]);
    const text = formatLock({ version: 1, entries: [{ callSite: "f.ts:1:1", instruction: "tick off rent", actions: folded!, recordedAt: "2026-11-23T16:00:00.000Z" }] });
    expect(JSON.parse(text).entries[0].actions[0].element).toEqual(element);
  });

  it("records nothing when a [secret] cannot be told apart, or a secret value got through", () => {
    const two = lockParams({ a: "first-secret", b: "second-secret" }, ["a", "b"]);
    expect(foldActions([{ instruction: 'type "[secret]" into "X"' }, { instruction: 'type "[secret]" into "Y"' }, { instruction: 'type "[secret]" into "Z"' }], "use {{a}} and {{b}}", two)).toBeUndefined();
    expect(foldActions([{ instruction: 'type "[secret]" into "X"' }], "no secret named here", two)).toBeUndefined();
    expect(foldActions([{ instruction: 'click "X"', element: { role: "button", name: "[secret]" } }], "use {{a}}", two)).toBeUndefined();
  });
});

describe("lock file", () => {
  const entry = (callSite: string, instruction: string, extra: Partial<LockEntry> = {}): LockEntry => ({
    callSite,
    instruction,
    actions: [{ instruction: 'click the "Go" button', element: { role: "button", name: "Go", locator: "getByRole('button', { name: 'Go' })" } }],
    recordedAt: "2026-11-23T16:00:00.000Z",
    ...extra,
  });

  it("is named after the workflow file, beside it", () => {
    expect(lockPathFor("/repo/flows/sign-in.ts")).toBe("/repo/flows/sign-in.wf.lock.json");
    expect(relativeCallSite("/repo/flows/helpers/a.ts:3:9", "/repo/flows/sign-in.wf.lock.json")).toBe("helpers/a.ts:3:9");
  });

  it("sorts entries by call site (numerically), then ordinal, and writes keys in a fixed order", () => {
    const lock: LockFile = { version: 1, entries: [entry("f.ts:10:3", "b", { model: "m", page: "http://x/p" }), entry("f.ts:9:3", "a"), entry("f.ts:10:3", "b", { ordinal: 2 })] };
    const parsed = JSON.parse(formatLock(lock));
    expect(parsed.entries.map((e: LockEntry) => `${e.callSite}#${e.ordinal ?? 1}`)).toEqual(["f.ts:9:3#1", "f.ts:10:3#1", "f.ts:10:3#2"]);
    expect(Object.keys(parsed.entries[1])).toEqual(["callSite", "instruction", "page", "actions", "model", "recordedAt"]);
    expect(formatLock(lock)).toBe(formatLock({ version: 1, entries: [...lock.entries].reverse() }));
  });

  it("replaces an entry in place, never appending a second one for the same key", () => {
    const lock: LockFile = { version: 1, entries: [entry("f.ts:9:3", "a"), entry("f.ts:12:3", "c")] };
    upsertEntry(lock, entry("f.ts:9:3", "a", { model: "new" }));
    expect(lock.entries).toHaveLength(2);
    expect(lock.entries[0]!.model).toBe("new");
    upsertEntry(lock, entry("f.ts:9:3", "a", { ordinal: 2 }));
    expect(lock.entries).toHaveLength(3);
  });

  it("reads what it wrote; a missing file is empty; a broken one is a clear error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-lock-"));
    try {
      const path = join(dir, "flow.wf.lock.json");
      expect(await readLock(path)).toEqual({ version: 1, entries: [] });
      const lock: LockFile = { version: 1, entries: [entry("flow.ts:9:3", "a")] };
      await writeLock(path, lock);
      expect(await readLock(path)).toEqual(JSON.parse(formatLock(lock)));
      expect((await readFile(path, "utf8")).endsWith("}\n")).toBe(true);
      await writeFile(path, "{ nope");
      await expect(readLock(path)).rejects.toThrow(/not valid JSON.*--lock write/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps a page's origin and path, not its query", () => {
    expect(pageKey("http://127.0.0.1:8080/a/b.html?x=1#top")).toBe("http://127.0.0.1:8080/a/b.html");
    expect(pageKey("about:blank")).toBe("about:blank");
    expect(pageKey("data:text/html,<p>hi</p>")).toBe("data:");
    expect(pageKey(null)).toBeUndefined();
  });

  it("keys an entry by its test too (a lock beside a Vitest file): two tests sharing a call site keep their own entries", () => {
    const lock: LockFile = { version: 1, entries: [] };
    upsertEntry(lock, { ...entry("helpers.ts:3:9", "sign in"), test: "checkout > pays" });
    upsertEntry(lock, { ...entry("helpers.ts:3:9", "sign in"), test: "account > renames" });
    upsertEntry(lock, entry("helpers.ts:3:9", "sign in"));
    expect(lock.entries).toHaveLength(3);
    expect(findEntry(lock, { test: "account > renames", callSite: "helpers.ts:3:9", instruction: "sign in" })?.test).toBe("account > renames");
    expect(findEntry(lock, { callSite: "helpers.ts:3:9", instruction: "sign in" })?.test).toBeUndefined();
    const written = JSON.parse(formatLock(lock)) as LockFile;
    expect(written.entries.map((e) => e.test)).toEqual([undefined, "account > renames", "checkout > pays"]);
    expect(Object.keys(written.entries[1]!)[0]).toBe("test");
  });
});
