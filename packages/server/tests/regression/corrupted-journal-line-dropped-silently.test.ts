/**
 * Regression (issue 11): a corrupted line in the middle of the journal was dropped for good and
 * silently: its step was 404 after a restart, the compacted journal no longer held it, and
 * nothing was logged. Now replay reports it (line number and the ids it still shows) and keeps
 * the line in `journal.corrupt-<time>.ndjson` beside the journal.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { JOURNAL_FILE, startServer } from "../../src/index.js";
import { apiClient } from "../helpers/api.js";
import { startStaticServer, type StaticServer } from "../helpers/static-server.js";

const KEY = "test-key-corrupt";
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-corrupt-"));
  pages = await startStaticServer(fileURLToPath(new URL("../fixtures/server/", import.meta.url)));
});

afterAll(async () => {
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("a corrupted middle line is reported with its line number and ids, and kept beside the journal", async () => {
  const first = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false });
  let stepId: string;
  let sessionId: string;
  try {
    const api = apiClient(first.url, KEY);
    sessionId = (await api.create()).workflowId;
    stepId = (await api.runOk(sessionId, { step: `go to "${pages.url}/index.html"`, type: "ACT" })).stepId;
    await api.finished(stepId);
    await api.runOk(sessionId, { step: "reload", type: "ACT" }).then((s) => api.finished(s.stepId));
  } finally {
    await first.close();
  }
  // Damage the last record line of the first step (a bad sector, a bad edit): not the file's last line.
  const path = join(dataDir, JOURNAL_FILE);
  const lines = (await readFile(path, "utf8")).split("\n");
  const index = lines.findLastIndex((l) => l.includes(`"stepId":"${stepId}"`) && l.includes('"type":"step"'));
  expect(index).toBeGreaterThanOrEqual(0);
  expect(index).toBeLessThan(lines.length - 2);
  const damaged = lines[index]!.replace('"status":', '"status"\u0000');
  lines[index] = damaged;
  await writeFile(path, lines.join("\n"));

  const logs: string[] = [];
  const second = await startServer({ port: 0, apiKeys: [KEY], dataDir, journalSync: false, logger: { level: "warn", stream: { write: (line: string) => void logs.push(line) } } });
  try {
    const warnings = logs.map((l) => JSON.parse(l) as { level: number; msg: string; line?: number; ids?: string[] }).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ line: index + 1, ids: expect.arrayContaining([`stepId=${stepId}`, `sessionId=${sessionId}`]) });
    expect(warnings[0]!.msg).toContain(`line ${index + 1} is a corrupted line`);
    expect(warnings[0]!.msg).toContain(stepId);

    const kept = (await readdir(dataDir)).filter((f) => /^journal\.corrupt-.+\.ndjson$/.test(f));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dataDir, kept[0]!), "utf8")).toBe(damaged + "\n");
    expect(warnings[0]!.msg).toContain(kept[0]);
    expect((await stat(join(dataDir, kept[0]!))).mode & 0o777).toBe(0o600);
  } finally {
    await second.close();
  }
});
