import { describe, expect, it } from "vitest";
import { resolveServerOptions } from "../options.js";
import { openStore, redactDatabaseUrl } from "./drivers.js";

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

describe("storage options", () => {
  it("reads WF_DATABASE_URL and WF_RETENTION_DAYS; refuses a retention of 0 days", () => {
    const resolved = resolveServerOptions({}, { WF_DATABASE_URL: "postgres://h/db", WF_RETENTION_DAYS: "30" });
    expect(resolved).toMatchObject({ databaseUrl: "postgres://h/db", retentionDays: 30 });
    expect(resolveServerOptions({ retentionDays: 7 }, { WF_RETENTION_DAYS: "30" }).retentionDays).toBe(7);
    expect(resolveServerOptions({}, {}).retentionDays).toBeUndefined();
    expect(() => resolveServerOptions({}, { WF_RETENTION_DAYS: "0" })).toThrow(/WF_RETENTION_DAYS must be a number of days above 0/);
  });
});
