/**
 * Uploads to a service on "another machine": a real wf server started as its own process, whose
 * upload root is an empty folder, so a file only reaches the page if the runtime sends its bytes
 * with the step. And the limits: a file past 10 MiB fails WF_UPLOAD_TOO_LARGE before anything is
 * sent, a missing named file fails WF_UPLOAD_FILE_NOT_FOUND naming the folder it was looked for in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { act, workflow } from "@wf/core";
import { createServiceClient, runWorkflow, type ServiceClient } from "../src/index.js";

const SERVER_DIR = fileURLToPath(new URL("../../server/", import.meta.url));
const KEY = "upload-test-key";

// A form whose status shows the uploaded file's name and first line.
const PAGE =
  "data:text/html," +
  encodeURIComponent(
    `<title>Claim</title><div><span>Receipt</span> <input type=file aria-label=Receipt id=f></div><p id=s>none</p>` +
      `<script>f.onchange=()=>f.files[0].text().then(t=>s.textContent='Got '+f.files[0].name+': '+t.split('\\n')[0])</script>`,
  );

let child: ChildProcess;
let client: ServiceClient;
let work: string;
let emptyRoot: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "wf-upload-client-"));
  emptyRoot = await mkdtemp(join(tmpdir(), "wf-upload-server-root-"));
  await mkdir(join(work, "docs"));
  await writeFile(join(work, "docs", "receipt.txt"), "REMOTE-BYTES-123 taxi 23.40\nsecond line\n");
  await writeFile(join(work, "huge.bin"), Buffer.alloc(10 * 1024 * 1024 + 1, 7));
  child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: SERVER_DIR,
    env: { ...process.env, WF_LOG_LEVEL: "silent", WF_API_KEYS: KEY, WF_PORT: "0", WF_DATA_DIR: join(emptyRoot, ".wf"), WF_DATABASE_URL: "memory:", WF_UPLOAD_ROOT: emptyRoot },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  });
  client = createServiceClient({ baseUrl: url, apiKey: KEY });
}, 60_000);

afterAll(async () => {
  await client?.close();
  child?.kill("SIGTERM");
  await new Promise((resolve) => (child?.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
  await rm(work, { recursive: true, force: true });
  await rm(emptyRoot, { recursive: true, force: true });
});

const upload = (file: string) =>
  workflow({ name: "upload" }, async () => {
    await act(`go to "${PAGE}"`);
    await act(`upload "${file}" to "Receipt"`);
    await act('wait for "Got receipt.txt: REMOTE-BYTES-123 taxi 23.40"');
  });

describe("uploads to a remote service", () => {
  it("sends the bytes of the file the instruction names, read relative to the workflow's folder", async () => {
    const record = await runWorkflow(upload("docs/receipt.txt"), { client, uploadDir: work });
    expect(record.error).toBeUndefined();
    expect(record.status).toBe("succeeded");
    expect(record.steps[1]).toMatchObject({ status: "succeeded", result: { action: "upload" } });
  }, 60_000);

  it("without sending (the embedded server's mode) the service looks on its own disk and refuses", async () => {
    const record = await runWorkflow(upload("docs/receipt.txt"), { client, uploadDir: work, uploads: "local" });
    expect(record.status).toBe("failed");
    expect(record.steps[1]!.error).toMatchObject({ code: "WF_UPLOAD_REFUSED" });
  }, 60_000);

  it("fails WF_UPLOAD_TOO_LARGE past 10 MiB, and WF_UPLOAD_FILE_NOT_FOUND for a missing file, before sending the step", async () => {
    const large = await runWorkflow(upload("huge.bin"), { client, uploadDir: work });
    expect(large.status).toBe("failed");
    expect(large.steps).toHaveLength(2);
    expect(large.steps[1]!.error).toMatchObject({ code: "WF_UPLOAD_TOO_LARGE", message: expect.stringContaining("huge.bin: 10485761") });
    expect(large.steps[1]!.stepId).toBeUndefined(); // never sent
    const session = await client.getSessionStatus(large.sessionId!);
    expect(session.steps).toHaveLength(1);

    const missing = await runWorkflow(upload("docs/nope.pdf"), { client, uploadDir: work });
    expect(missing.steps[1]!.error).toMatchObject({ code: "WF_UPLOAD_FILE_NOT_FOUND" });
    expect(missing.steps[1]!.error!.message).toContain(`${join(work, "docs", "nope.pdf")} (resolved against ${work}`);
  }, 60_000);
});
