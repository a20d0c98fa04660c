import { readFile, mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerOptions } from "../config/options.js";
import { openStore, PGLITE_CHECKPOINT_EVERY, PGLITE_DIR, redactDatabaseUrl } from "./drivers.js";
import type { SessionRecord } from "./store.js";

describe("openStore", () => {
  it("refuses a database URL of another scheme, without printing its password", async () => {
    await expect(openStore({ dataDir: "/nonexistent", databaseUrl: "mysql://root:hunter2@db/wf" })).rejects.toThrow(/WF_DATABASE_URL must be a postgres:\/\/ URL, got "mysql:\/\/root:\*\*\*@db\/wf"/);
  });

  it("says which database it could not reach and what to check", async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const error = await openStore({ dataDir: "/nonexistent", databaseUrl: "postgres://wf:s3cret@127.0.0.1:1/wf" }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain("Could not connect to the database postgres://wf:***@127.0.0.1:1/wf");
    expect(error!.message).toContain("WF_DATABASE_URL");
    expect(error!.message).not.toContain("s3cret");
  });

  it("redacts only the password of a URL", () => {
    expect(redactDatabaseUrl("postgres://wf:pw@host:5432/db?sslmode=require")).toBe("postgres://wf:***@host:5432/db?sslmode=require");
    expect(redactDatabaseUrl("postgres://host/db")).toBe("postgres://host/db");
  });
});

describe("the embedded database (PGlite)", () => {
  it(`checkpoints after every ${PGLITE_CHECKPOINT_EVERY} write transactions, so its write-ahead log is recycled (PGlite has no checkpointer)`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-checkpoint-"));
    const store = await openStore({ dataDir, sync: false });
    try {
      // pg_control records the last checkpoint: it changes when one is made.
      const control = () => readFile(join(dataDir, PGLITE_DIR, "global", "pg_control"));
      const write = (i: number) => store.createSession(session(`c${i}`));
      for (let i = 0; i < 10; i++) await write(i);
      const before = await control();
      for (let i = 10; i < PGLITE_CHECKPOINT_EVERY - 1; i++) await write(i);
      expect((await control()).equals(before)).toBe(true);
      await write(PGLITE_CHECKPOINT_EVERY - 1);
      // The checkpoint is queued after the write that counted to it; a read behind it waits for it.
      await store.getSession("c0");
      expect((await control()).equals(before)).toBe(false);
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

function session(sessionId: string): SessionRecord {
  const now = new Date().toISOString();
  return { sessionId, kind: "STEP", workflowId: null, token: "t", jobTaskId: "j", status: "RUNNING", version: 1, createdAt: now, updatedAt: now, finishedAt: null, currentUrl: null, error: null, proxied: false, stepIds: [] };
}

describe("instance options", () => {
  it("names the instance after the host and the data folder unless WF_INSTANCE_ID says; reads WF_INTERNAL_URL and WF_INSTANCE_LEASE_MS", () => {
    const a = resolveServerOptions({ dataDir: "/srv/a" }, {});
    expect(a.instanceId).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[0-9a-f]{8}$`));
    expect(resolveServerOptions({ dataDir: "/srv/a" }, {}).instanceId).toBe(a.instanceId);
    expect(resolveServerOptions({ dataDir: "/srv/b" }, {}).instanceId).not.toBe(a.instanceId);
    expect(resolveServerOptions({}, { WF_INSTANCE_ID: "wf-1", WF_INTERNAL_URL: "http://10.0.0.5:8787/", WF_INSTANCE_LEASE_MS: "5000" })).toMatchObject({
      instanceId: "wf-1",
      internalUrl: "http://10.0.0.5:8787",
      instanceLeaseMs: 5000,
    });
    expect(a.instanceLeaseMs).toBe(30_000);
    expect(() => resolveServerOptions({}, { WF_INSTANCE_LEASE_MS: "500" })).toThrow(/WF_INSTANCE_LEASE_MS must be at least 1000 ms/);
  });
});

describe("storage options", () => {
  it("reads WF_DATABASE_URL and WF_RETENTION_DAYS; refuses a retention of 0 days", () => {
    const resolved = resolveServerOptions({}, { WF_DATABASE_URL: "postgres://h/db", WF_RETENTION_DAYS: "30" });
    expect(resolved).toMatchObject({ databaseUrl: "postgres://h/db", retentionDays: 30 });
    expect(resolveServerOptions({ retentionDays: 7 }, { WF_RETENTION_DAYS: "30" }).retentionDays).toBe(7);
    expect(resolveServerOptions({}, {}).retentionDays).toBeUndefined();
    expect(() => resolveServerOptions({}, { WF_RETENTION_DAYS: "0" })).toThrow(/WF_RETENTION_DAYS="0" is not a number of days above 0/);
  });
});
