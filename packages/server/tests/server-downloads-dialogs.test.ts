/**
 * Downloads and dialogs as first-class results (issue 33), through the real server and Chromium:
 * a step that downloads a file lists it (name, size, media type) and the file is served to the
 * session's owner; one past `maxDownloadBytes` fails `WF_DOWNLOAD_TOO_LARGE` with nothing kept;
 * JavaScript dialogs are answered by the session's rule (accept, dismiss, fail) and listed by the
 * step that ran into them. The site is a local HTTP server: pages from disk, attachments with
 * their Content-Disposition.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient, type ApiClient } from "./helpers/api.js";

const KEY = "test-key-downloads";
const CSV = "quarter,revenue\nQ1,1204000\nQ2,1311000\nQ3,1290500\n";
const PDF = "%PDF-1.4\n% statement\n%%EOF\n";
/** The cap of this server: the archive (3 MiB) is past it. */
const MAX_DOWNLOAD_BYTES = 1024 * 1024;
const FIXTURES = fileURLToPath(new URL("./fixtures/events/", import.meta.url));
let server: RunningServer;
let site: Server;
let siteUrl: string;
let dataDir: string;
let api: ApiClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-downloads-"));
  site = createServer((req, res) => {
    if (req.url === "/export/q3-report.csv") {
      res.writeHead(200, { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="q3-report.csv"' });
      res.end(CSV);
    } else if (req.url === "/export/slow/q3-statement.pdf") {
      // A file the server takes a while to prepare: its headers come 800 ms after the request.
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/pdf", "content-disposition": 'attachment; filename="q3-statement.pdf"' });
        res.end(PDF);
      }, 800);
    } else if (req.url === "/export/archive.bin") {
      // 3 MiB, sent as a real server streams a large file.
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="all-quarters.bin"' });
      let sent = 0;
      const timer = setInterval(() => {
        if (sent >= 3 * 1024 * 1024 || res.destroyed) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(Buffer.alloc(128 * 1024, 7));
        sent += 128 * 1024;
      }, 20);
      res.on("close", () => clearInterval(timer));
    } else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      createReadStream(join(FIXTURES, (req.url ?? "/").replace(/^\//, "").replace(/\?.*$/, ""))).on("error", () => res.end("not found")).pipe(res);
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", maxDownloadBytes: MAX_DOWNLOAD_BYTES });
  api = apiClient(server.url, KEY);
});

afterAll(async () => {
  await server?.close();
  site?.closeAllConnections();
  site?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function step(id: string, instruction: string) {
  return api.finished((await api.runOk(id, { type: "ACT", step: instruction, timeoutMs: 20_000 })).stepId);
}

describe("downloads", () => {
  it("a download under the cap is listed by its step and served to the session's owner", async () => {
    const session = await api.create();
    await step(session.workflowId, `go to "${siteUrl}/reports.html"`);
    const done = await step(session.workflowId, `click "Export CSV"`);
    expect(done.status).toBe("SUCCEEDED");
    expect(done.downloads).toEqual([{ downloadId: expect.any(String), name: "q3-report.csv", sizeBytes: Buffer.byteLength(CSV), mimeType: "text/csv", url: `${siteUrl}/export/q3-report.csv` }]);
    const path = routePath(ROUTES.sessionDownload, { id: session.workflowId, downloadId: done.downloads![0]!.downloadId });
    // The API key, or the session's token.
    const byKey = await fetch(server.url + path, { headers: { "api-key": KEY } });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get("content-type")).toContain("text/csv");
    expect(byKey.headers.get("content-disposition")).toContain("q3-report.csv");
    expect(await byKey.text()).toBe(CSV);
    const byToken = await fetch(`${server.url}${path}?token=${encodeURIComponent(session.sessionToken)}`);
    expect(byToken.status).toBe(200);
    await byToken.arrayBuffer();
    const stranger = await fetch(`${server.url}${path}?token=not-the-token`);
    expect(stranger.status).toBe(401);
    await stranger.arrayBuffer();
    const unknown = await api.call("GET", routePath(ROUTES.sessionDownload, { id: session.workflowId, downloadId: "0123abcd" }));
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe("WF_DOWNLOAD_NOT_FOUND");
    // Kept after the session closed, with its records.
    expect((await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {})).status).toBe(200);
    const after = await fetch(server.url + path, { headers: { "api-key": KEY } });
    expect(after.status).toBe(200);
    expect(await after.text()).toBe(CSV);
  });

  it("a download whose server answers after the click returned is still the step's", async () => {
    const session = await api.create();
    await step(session.workflowId, `go to "${siteUrl}/reports.html"`);
    const done = await step(session.workflowId, `click "Export PDF"`);
    expect(done.status).toBe("SUCCEEDED");
    expect(done.downloads).toEqual([expect.objectContaining({ name: "q3-statement.pdf", sizeBytes: Buffer.byteLength(PDF), mimeType: "application/pdf" })]);
    // The next step has none of it.
    const next = await step(session.workflowId, `click "Export CSV"`);
    expect(next.downloads?.map((d) => d.name)).toEqual(["q3-report.csv"]);
    expect((await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {})).status).toBe(200);
  });

  it("a secret that is also in the record's own text (\"1\", \"ed\") hides in the page's words only: timestamps, ids and kinds stay whole", async () => {
    const session = await api.create();
    await step(session.workflowId, `go to "${siteUrl}/reports.html"`);
    const { stepId } = await api.runOk(session.workflowId, { type: "ACT", step: `click "Export CSV"`, timeoutMs: 20_000, redact: ["1", "ed", "q3"] });
    const done = await api.finished(stepId);
    expect(done.status).toBe("SUCCEEDED");
    expect(Number.isFinite(done.durationMs)).toBe(true);
    expect(done.finishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const [download] = done.downloads ?? [];
    expect(download?.name).toBe("[secret]-report.csv");
    expect(download?.url).not.toContain("q3");
    // The id still names the file.
    const kept = await fetch(server.url + routePath(ROUTES.sessionDownload, { id: session.workflowId, downloadId: download!.downloadId }), { headers: { "api-key": KEY } });
    expect(kept.status).toBe(200);
    expect(await kept.text()).toBe(CSV);
    expect((await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {})).status).toBe(200);
  });

  it("a download past maxDownloadBytes fails WF_DOWNLOAD_TOO_LARGE and nothing of it is kept", async () => {
    const session = await api.create();
    await step(session.workflowId, `go to "${siteUrl}/reports.html"`);
    const done = await step(session.workflowId, `click "Download full archive"`);
    expect(done.status).toBe("FAILED");
    expect(done.error).toMatchObject({ code: "WF_DOWNLOAD_TOO_LARGE", details: { name: "all-quarters.bin", limitBytes: MAX_DOWNLOAD_BYTES } });
    expect(done.error?.message).toContain("partial file deleted");
    expect(done.downloads).toBeUndefined();
    const kept = await readdir(join(dataDir, "downloads", session.workflowId)).catch(() => [] as string[]);
    expect(kept).toEqual([]);
    // The session goes on.
    expect((await step(session.workflowId, `click "Export CSV"`)).downloads?.[0]?.name).toBe("q3-report.csv");
    expect((await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {})).status).toBe(200);
  });
});

describe("dialogs", () => {
  it("accept (the default): a confirm is answered OK and listed by the step", async () => {
    const session = await api.create();
    await step(session.workflowId, `go to "${siteUrl}/settings.html"`);
    const done = await step(session.workflowId, `click "Delete account"`);
    expect(done.status).toBe("SUCCEEDED");
    expect(done.dialogs).toEqual([{ type: "confirm", message: "Delete your account? This cannot be undone.", handled: "accepted", count: 1 }]);
    expect((await step(session.workflowId, `wait for "Account deleted"`)).status).toBe("SUCCEEDED");
    // A prompt keeps its default text.
    expect((await step(session.workflowId, `click "Rename"`)).dialogs).toEqual([{ type: "prompt", message: "New display name", handled: "accepted", count: 1 }]);
    expect((await step(session.workflowId, `wait for "Ada"`)).status).toBe("SUCCEEDED");
    await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {});
  });

  it("dismiss: a confirm is answered Cancel, a prompt gives nothing", async () => {
    const session = await api.create({ dialogs: "dismiss" });
    await step(session.workflowId, `go to "${siteUrl}/settings.html"`);
    const done = await step(session.workflowId, `click "Delete account"`);
    expect(done.dialogs).toEqual([{ type: "confirm", message: "Delete your account? This cannot be undone.", handled: "dismissed", count: 1 }]);
    expect((await step(session.workflowId, `wait for "Account kept"`)).status).toBe("SUCCEEDED");
    await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {});
  });

  it("fail: the dialog is dismissed and the step fails WF_DIALOG_OPENED, naming it", async () => {
    const session = await api.create({ dialogs: "fail" });
    await step(session.workflowId, `go to "${siteUrl}/settings.html"`);
    const done = await step(session.workflowId, `click "Delete account"`);
    expect(done.status).toBe("FAILED");
    expect(done.error).toMatchObject({ code: "WF_DIALOG_OPENED", details: { dialog: { type: "confirm", handled: "dismissed" } } });
    expect(done.error?.message).toContain("Delete your account?");
    expect(done.dialogs?.[0]).toMatchObject({ type: "confirm", handled: "dismissed" });
    expect((await step(session.workflowId, `wait for "Account kept"`)).status).toBe("SUCCEEDED");
    await api.call("POST", routePath(ROUTES.stepClose, { id: session.workflowId }), {});
  });

  it("an unknown rule is a 422 naming the rules", async () => {
    const res = await api.call("POST", ROUTES.stepCreate, { dialogs: "ignore" });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].path).toBe("/dialogs");
  });
});
