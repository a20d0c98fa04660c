/**
 * A session's `context` (Playwright's `use` options): the browser context it is made with
 * (viewport, user agent, locale, time zone, colour scheme, touch, pixel ratio), and the base URL a
 * relative `go to /login` resolves against, as `page.goto("/login")` does with Playwright's
 * `baseURL`. Real Chromium, pages from disk; the page reports what the browser says of itself.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES, routePath } from "@wf/core/protocol";
import { startServer, type RunningServer } from "../src/index.js";
import { apiClient } from "./helpers/api.js";
import { startStaticServer, type StaticServer } from "./helpers/static-server.js";

const KEY = "test-key-session-context";
let server: RunningServer;
let pages: StaticServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wf-session-context-"));
  pages = await startStaticServer(fileURLToPath(new URL("./fixtures/server/", import.meta.url)));
  // A context opened ahead, as `wf serve` keeps one: a session with context options must not take it.
  server = await startServer({ port: 0, apiKeys: [KEY], dataDir, databaseUrl: "memory:", warmSessions: true });
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = () => apiClient(server.url, KEY);

/** Runs one step to its end. @returns its final status */
async function step(sessionId: string, body: Record<string, unknown>) {
  const { stepId } = await api().runOk(sessionId, body);
  return api().finished(stepId);
}

const shows = (sessionId: string, text: string) => step(sessionId, { type: "ASK", step: `the page shows "${text}"`, check: { timeoutMs: 2_000 } });

async function close(sessionId: string): Promise<void> {
  expect((await api().call("POST", routePath(ROUTES.stepClose, { id: sessionId }), {})).status).toBe(200);
}

describe("a session's browser context (context on create)", () => {
  it("is made with the viewport, user agent, locale, time zone, colour scheme, touch and pixel ratio asked for", async () => {
    const { workflowId } = await api().create({
      context: {
        viewport: { width: 412, height: 839 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
        userAgent: "wf-probe/1.0 (Linux; Android 14; Pixel 7)",
        locale: "de-DE",
        timezoneId: "Asia/Tokyo",
        colorScheme: "dark",
      },
    });
    expect((await step(workflowId, { type: "ACT", step: `go to ${pages.url}/device.html` })).status).toBe("SUCCEEDED");
    for (const text of ["width 412", "agent wf-probe/1.0 (Linux; Android 14; Pixel 7)", "language de-DE", "zone Asia/Tokyo", "scheme dark", "touch yes", "ratio 3"]) {
      expect((await shows(workflowId, text)).status, text).toBe("SUCCEEDED");
    }
    await close(workflowId);
  });

  it("without options, is the plain one: a desktop page in light mode", async () => {
    const { workflowId } = await api().create({});
    await step(workflowId, { type: "ACT", step: `go to ${pages.url}/device.html` });
    expect((await shows(workflowId, "touch no")).status).toBe("SUCCEEDED");
    expect((await shows(workflowId, "scheme light")).status).toBe("SUCCEEDED");
    await close(workflowId);
  });

  it("resolves a relative go to against its base URL, as page.goto does with Playwright's baseURL", async () => {
    const { workflowId } = await api().create({ context: { baseURL: `${pages.url}/app/` } });
    // Relative to the base, even from about:blank, where a page-relative address has nothing to resolve against.
    const first = await step(workflowId, { type: "ACT", step: "go to ./login.html" });
    expect(first.status).toBe("SUCCEEDED");
    expect(first.pageUrl).toBe(`${pages.url}/app/login.html`);
    // An absolute path leaves the base's folder; the base still wins over the current page.
    const second = await step(workflowId, { type: "ACT", step: "go to /form.html?from=base" });
    expect(second.pageUrl).toBe(`${pages.url}/form.html?from=base`);
    const third = await step(workflowId, { type: "ACT", step: "go to ./login.html" });
    expect(third.pageUrl).toBe(`${pages.url}/app/login.html`);
    // A full URL is left as it is.
    const full = await step(workflowId, { type: "ACT", step: `go to ${pages.url}/index.html` });
    expect(full.pageUrl).toBe(`${pages.url}/index.html`);
    await close(workflowId);
  });

  it("without a base URL, a relative go to on a blank page fails, saying how to set one", async () => {
    const { workflowId } = await api().create({});
    const failed = await step(workflowId, { type: "ACT", step: "go to /login" });
    expect(failed.status).toBe("FAILED");
    expect(failed.error?.code).toBe("WF_NAVIGATION_FAILED");
    expect(failed.error?.message).toContain("use: { baseURL }");
    await close(workflowId);
  });

  it("refuses options a context cannot take with a 422 naming the field", async () => {
    for (const [context, pointer] of [
      [{ locale: "not a locale!" }, "/context/locale"],
      [{ timezoneId: "Mars/Olympus" }, "/context/timezoneId"],
      [{ viewport: { width: 0, height: 600 } }, "/context/viewport/width"],
      [{ baseURL: "ftp://example.com/" }, "/context/baseURL"],
      [{ headless: false }, "/context"],
    ] as const) {
      const res = await api().call("POST", ROUTES.stepCreate, { context });
      expect(res.status, JSON.stringify(context)).toBe(422);
      expect(JSON.stringify(res.json), JSON.stringify(context)).toContain(pointer);
    }
  });
});
