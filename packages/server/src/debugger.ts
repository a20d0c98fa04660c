/**
 * The debugger (and stored-run preview) page of a session: its steps with status, timings,
 * result or error, the current URL and a screenshot after each step, refreshed live through
 * server-sent events. The page, its script (inline, from this server: no CDN), its event stream
 * and its screenshots authenticate with the session's token (`?token=`), since a browser can't
 * send the API key header.
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { ROUTES, SessionStatus } from "@wf/core/protocol";
import type { ServerContext } from "./context.js";
import { requestApiKey } from "./auth.js";
import { HttpProblem } from "./errors.js";
import { mediaAnswer, problemAnswers, SECURITY } from "./http/openapi.js";
import type { SessionRecord } from "./sessions.js";

/** Routes of the debugger page beside `ROUTES.sessionView` (OpenAPI-style paths). */
export const VIEW_ROUTES = {
  /** `GET`: server-sent events; each `status` event carries a {@link DebuggerUpdate}. */
  events: `${ROUTES.sessionView}/events`,
  /** `GET`: the PNG screenshot taken after step `{stepId}`. */
  screenshot: `${ROUTES.sessionView}/screenshots/{stepId}`,
} as const;

/** What each server-sent event of the debugger carries: the session status and which steps have a screenshot. */
export interface DebuggerUpdate {
  status: SessionStatus;
  screenshots: string[];
}

/** Stands for a session that doesn't exist when checking a token: no token matches its random one. */
const UNKNOWN_SESSION = { token: randomBytes(24).toString("base64url") } as SessionRecord;

/** Interval of the keep-alive comments of the event stream, in ms. */
const KEEP_ALIVE_MS = 15_000;

const TokenQuery = z.object({ token: z.string().optional() });

/** Registers the debugger page, its event stream and its screenshots. */
export async function registerDebuggerRoutes(app: FastifyInstance, context: ServerContext): Promise<void> {
  const { sessions } = context;
  const fastifyPath = (route: string) => route.replace(/\{(\w+)\}/g, ":$1");
  // The token (or an API key) is checked before anything says whether the session exists, so
  // the page can't be used to probe for session ids: an unknown id without a key is a 401 too.
  const requireSession = async (request: FastifyRequest, id: string) => {
    const session = await sessions.getSession(id);
    if (!session) {
      if (!context.auth.isValidApiKey(requestApiKey(request))) context.auth.checkSessionToken(request, UNKNOWN_SESSION);
      throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${id}.`);
    }
    context.auth.checkSessionToken(request, session);
    return session;
  };
  const update = async (id: string): Promise<DebuggerUpdate> => {
    const { status, screenshotStepIds } = await sessions.sessionView(id);
    return { status, screenshots: screenshotStepIds };
  };

  const pageSchema = {
    summary: "Debugger / preview page of a session (HTML)",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: z.object({ id: z.string().describe("The session id.") }),
    querystring: TokenQuery,
    response: { 200: mediaAnswer("text/html", "The live page."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session" }) },
  };
  app.get<{ Params: { id: string } }>(fastifyPath(ROUTES.sessionView), { attachValidation: true, schema: pageSchema }, async (request, reply) => {
    const session = await requireSession(request, request.params.id);
    const token = z.string().parse((request.query as { token?: string }).token ?? "");
    // The page's one script runs by a nonce new for each answer: no 'unsafe-inline' script, so a
    // script injected into the page (through a step's text, a URL) does not run.
    const nonce = randomBytes(18).toString("base64");
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-security-policy", `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`)
      .send(renderPage(session.sessionId, token, nonce));
  });

  const eventsSchema = {
    summary: "Live updates of the debugger page (server-sent events)",
    description: "Each `status` event's data is `{ status: SessionStatus, screenshots: stepId[] }`, sent at once and after every change.",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: z.object({ id: z.string().describe("The session id.") }),
    querystring: TokenQuery,
    response: { 200: mediaAnswer("text/event-stream", "The event stream."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session" }) },
  };
  app.get<{ Params: { id: string } }>(fastifyPath(VIEW_ROUTES.events), { attachValidation: true, schema: eventsSchema }, async (request, reply) => {
    const session = await requireSession(request, request.params.id);
    // A HEAD gets the stream's headers and ends (a stream that never ends would hold it forever).
    if (request.method === "HEAD") return reply.type("text/event-stream; charset=utf-8").header("cache-control", "no-store").send();
    reply.hijack();
    const res = reply.raw;
    // Hijacked: the headers set so far (helmet's) are written here by hand.
    res.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
    let lastVersion = -1;
    // One update at a time, in order: each reads the session (memory or store) when its turn comes.
    let sending = Promise.resolve();
    const send = () => {
      sending = sending.then(async () => {
        if (res.writableEnded || session.version === lastVersion) return;
        lastVersion = session.version;
        const data = await update(session.sessionId).catch(() => undefined);
        if (data && !res.writableEnded) res.write(`event: status\ndata: ${JSON.stringify(data)}\n\n`);
      });
    };
    send();
    const unsubscribe = sessions.onChange((change) => {
      if (change.sessionId === session.sessionId) send();
    });
    // While the page watches, every step gets a screenshot (whatever the session's screenshot mode).
    const unwatch = sessions.watchView(session.sessionId);
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    res.on("close", () => {
      clearInterval(keepAlive);
      unsubscribe();
      unwatch();
    });
  });

  const screenshotSchema = {
    summary: "Screenshot taken after a step (PNG)",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: z.object({ id: z.string().describe("The session id."), stepId: z.string().describe("The step id.") }),
    querystring: TokenQuery,
    response: { 200: mediaAnswer("image/png", "The screenshot."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session or step, or no screenshot" }) },
  };
  app.get<{ Params: { id: string; stepId: string } }>(fastifyPath(VIEW_ROUTES.screenshot), { attachValidation: true, schema: screenshotSchema }, async (request, reply) => {
    const session = await requireSession(request, request.params.id);
    const step = await sessions.getStep(request.params.stepId);
    const path = step && step.sessionId === session.sessionId ? await sessions.screenshotPath(step.stepId) : undefined;
    if (!path) throw new HttpProblem("WF_STEP_NOT_FOUND", `Session ${session.sessionId} has no screenshot for step ${request.params.stepId}.`);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new HttpProblem("WF_STEP_NOT_FOUND", `The screenshot of step ${request.params.stepId} is gone from the data directory.`);
    return reply.type("image/png").header("cache-control", "private, max-age=3600").header("content-length", info.size).send(createReadStream(path));
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The page: static markup plus an inline script that renders each `status` event. */
function renderPage(sessionId: string, token: string, nonce: string): string {
  const base = ROUTES.sessionView.replace("{id}", encodeURIComponent(sessionId));
  const config = JSON.stringify({ base, token }).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wf session ${escapeHtml(sessionId)}</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f7; }
  header { padding: 12px 20px; background: #fff; border-bottom: 1px solid #ddd; }
  h1 { font-size: 16px; margin: 0 0 4px; }
  main { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(320px, 1fr); gap: 16px; padding: 16px 20px; }
  .meta { color: #555; word-break: break-all; }
  .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #e5e5ea; }
  .SUCCEEDED { background: #d1f2dc; color: #11632d; } .FAILED { background: #fbd5d5; color: #8a1010; }
  .RUNNING { background: #dbe8ff; color: #0b3d91; } .QUEUED { background: #eee; color: #555; } .CANCELLED { background: #fde9c8; color: #7a4b00; }
  ol { list-style: none; padding: 0; margin: 0; }
  li.step { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; cursor: pointer; }
  li.step.selected { outline: 2px solid #0b3d91; }
  .instr { font-family: ui-monospace, monospace; }
  .detail { color: #444; font-size: 12px; white-space: pre-wrap; word-break: break-word; margin-top: 4px; max-height: 160px; overflow: auto; }
  .shot img { max-width: 100%; border: 1px solid #ccc; background: #fff; }
  .empty { color: #777; }
</style>
</head>
<body>
<header>
  <h1>Session <span id="session-id">${escapeHtml(sessionId)}</span> <span id="session-status" class="badge">…</span></h1>
  <div class="meta" id="workflow"></div>
  <div class="meta">Current URL: <span id="current-url">—</span></div>
  <div class="meta" id="session-error"></div>
  <div class="meta" id="connection"></div>
</header>
<main>
  <section><h2>Steps</h2><ol id="steps"><li class="empty">No steps yet.</li></ol></section>
  <section class="shot"><h2>Screenshot <span id="shot-caption" class="meta"></span></h2><div id="shot" class="empty">No screenshot yet.</div></section>
</main>
<script nonce="${nonce}">
(() => {
  const config = ${config};
  const q = "?token=" + encodeURIComponent(config.token);
  let selected = null;
  let last = null;
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const fmtMs = (ms) => ms == null ? "" : ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(2) + " s";
  function showShot(update) {
    const box = document.getElementById("shot");
    const withShot = update.status.steps.filter((s) => update.screenshots.includes(s.stepId));
    const step = (selected && withShot.find((s) => s.stepId === selected)) || withShot[withShot.length - 1];
    if (!step) return;
    const src = config.base + "/screenshots/" + encodeURIComponent(step.stepId) + q;
    document.getElementById("shot-caption").textContent = "after step " + (step.index + 1);
    const img = box.querySelector("img");
    if (img && img.getAttribute("src") === src) return;
    box.className = "";
    box.replaceChildren(Object.assign(el("img"), { src, alt: "Screenshot after step " + (step.index + 1) }));
  }
  function render(update) {
    last = update;
    const s = update.status;
    const badge = document.getElementById("session-status");
    badge.textContent = s.status; badge.className = "badge " + s.status;
    document.getElementById("current-url").textContent = s.currentUrl || "—";
    document.getElementById("workflow").textContent = s.kind === "STORED" ? "Stored workflow: " + s.workflowId : "Step session";
    document.getElementById("session-error").textContent = s.error ? s.error.code + ": " + s.error.message : (s.output !== undefined ? "Output: " + JSON.stringify(s.output) : "");
    const list = document.getElementById("steps");
    if (s.steps.length === 0) { list.replaceChildren(el("li", "empty", "No steps yet.")); return; }
    list.replaceChildren(...s.steps.map((step) => {
      const li = el("li", "step" + (step.stepId === selected ? " selected" : ""));
      li.dataset.stepId = step.stepId; li.dataset.status = step.status;
      const head = el("div");
      head.append(el("span", "badge " + step.status, step.status), " ", el("strong", "", "#" + (step.index + 1) + " " + step.type), " ", el("span", "instr", step.step), " ", el("span", "meta", fmtMs(step.durationMs)));
      li.append(head);
      if (step.error) li.append(el("div", "detail", step.error.code + ": " + step.error.message));
      else if (step.result !== undefined) li.append(el("div", "detail", typeof step.result === "string" ? step.result : JSON.stringify(step.result, null, 2)));
      if (step.pageUrl) li.append(el("div", "meta", step.pageUrl));
      li.addEventListener("click", () => { selected = step.stepId; render(last); });
      return li;
    }));
    showShot(update);
  }
  const source = new EventSource(config.base + "/events" + q);
  source.addEventListener("status", (event) => { document.getElementById("connection").textContent = ""; render(JSON.parse(event.data)); });
  source.onerror = () => { document.getElementById("connection").textContent = "Disconnected; retrying…"; };
})();
</script>
</body>
</html>
`;
}
