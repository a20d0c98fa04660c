/**
 * The debugger (and stored-run preview) page of a session: its steps with status, timings, result
 * or error, the current URL and a screenshot after each step, refreshed live through server-sent
 * events. The page is fixed files of this package (`assets/debugger/`: `index.html`,
 * `debugger.js`, `debugger.css`, `favicon.svg`), the same bytes for every session: its script reads
 * the session id and token from the page's own address and everything else from the event stream, so nothing
 * of a session is ever written into HTML. The page, its event stream and its screenshots
 * authenticate with the session's token (`?token=`), since a browser can't send the API key
 * header; the script and style need none (nothing in them is a session's).
 */
import { randomBytes } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import fastifySse from "@fastify/sse";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ROUTES, SessionStatus } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { requestApiKey } from "./auth.js";
import { HttpProblem } from "../errors.js";
import type { SessionRecord } from "../sessions/index.js";
import { mediaAnswer, problemAnswers, SECURITY } from "./openapi.js";

/** Routes of the debugger page beside `ROUTES.sessionView` (OpenAPI-style paths). */
export const VIEW_ROUTES = {
  /** `GET`: server-sent events; each `status` event carries a {@link DebuggerUpdate}. */
  events: `${ROUTES.sessionView}/events`,
  /** `GET`: the PNG screenshot taken after step `{stepId}`. */
  screenshot: `${ROUTES.sessionView}/screenshots/{stepId}`,
  /** `GET`: the page's script (`debugger.js`), style (`debugger.css`) and icon (`favicon.svg`); no token. */
  asset: `${ROUTES.sessionView.slice(0, ROUTES.sessionView.lastIndexOf("/view/"))}/view-assets/{file}`,
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

/**
 * The page's policy: its script and style only from this server (no inline script or style, no
 * nonce to leak), pictures and the event stream from here too, and nothing may frame it.
 */
const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page's files, by the name the page asks for, with their media types. */
const ASSETS: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "debugger.js": "text/javascript; charset=utf-8",
  "debugger.css": "text/css; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

/**
 * Where the page's files are: `assets/debugger/` beside the built module (the build copies them to
 * `dist/assets/debugger/`, in this package's build and in `@wf/cli`'s, which bundles this file),
 * else the package's own `assets/debugger/` (running from `src/http/` through tsx).
 * @throws Error when neither holds `index.html`: the installed package lacks its files.
 */
export function debuggerAssetDir(moduleUrl: string = import.meta.url): string {
  const candidates = [new URL("./assets/debugger/", moduleUrl), new URL("../../assets/debugger/", moduleUrl)].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(`${dir}index.html`));
  if (!found) throw new Error(`The debugger page's files are missing (looked for index.html in ${candidates.join(" and ")}): reinstall @wf/server or @wf/cli.`);
  return found;
}

const TokenQuery = z.object({ token: z.string().optional() });

/** Registers the debugger page, its script and style, its event stream and its screenshots. */
export async function registerDebuggerRoutes(app: FastifyInstance, context: ServerContext): Promise<void> {
  const { sessions } = context;
  const assetDir = debuggerAssetDir();
  // Read once, when first asked for (a few kB; nothing at start-up).
  const files = new Map<string, Promise<Buffer>>();
  const file = (name: string) => {
    let read = files.get(name);
    if (!read) files.set(name, (read = readFile(`${assetDir}${name}`)));
    return read;
  };
  const fastifyPath = (route: string) => route.replace(/\{(\w+)\}/g, ":$1");

  // The token (or an API key) is checked before anything says whether the session exists, so
  // the page can't be used to probe for session ids: an unknown id without a key is a 401 too.
  // A route hook, before the handler: the event stream's answer must not have begun when it fails.
  const viewed = new WeakMap<FastifyRequest, SessionRecord>();
  const requireSession = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    const session = await sessions.getSession(id);
    if (!session) {
      if (!context.auth.isValidApiKey(requestApiKey(request))) context.auth.checkSessionToken(request, UNKNOWN_SESSION);
      throw new HttpProblem("WF_SESSION_NOT_FOUND", `No session has the id ${id}.`);
    }
    context.auth.checkSessionToken(request, session);
    viewed.set(request, session);
  };
  const sessionOf = (request: FastifyRequest) => viewed.get(request)!;
  const update = async (id: string): Promise<DebuggerUpdate> => {
    const { status, screenshotStepIds } = await sessions.sessionView(id);
    return { status, screenshots: screenshotStepIds };
  };

  // `.default`: the package is CommonJS typed as `export default`; fastify-plugin sets `default` on the plugin itself.
  await app.register(fastifySse.default, { heartbeatInterval: KEEP_ALIVE_MS });

  const IdParams = z.object({ id: z.string().describe("The session id.") });
  const pageSchema = {
    summary: "Debugger / preview page of a session (HTML)",
    description: "The same page for every session: its script reads the session from the page's address and its live updates from the event stream.",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: IdParams,
    querystring: TokenQuery,
    response: { 200: mediaAnswer("text/html", "The live page."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session" }) },
  };
  app.get(fastifyPath(ROUTES.sessionView), { attachValidation: true, schema: pageSchema, preHandler: requireSession }, async (_request, reply) =>
    reply.type(ASSETS["index.html"]!).header("cache-control", "no-store").header("content-security-policy", PAGE_CSP).send(await file("index.html")),
  );

  const assetSchema = {
    summary: "Script or style of the debugger page",
    tags: ["sessions"],
    security: SECURITY.none,
    params: z.object({ file: z.string().describe("`debugger.js`, `debugger.css` or `favicon.svg`.") }),
    response: { 200: mediaAnswer("text/javascript", "The file (text/css for the style)."), ...problemAnswers({ 404: "No such file" }) },
  };
  app.get<{ Params: { file: string } }>(fastifyPath(VIEW_ROUTES.asset), { attachValidation: true, schema: assetSchema }, async (request, reply) => {
    const name = request.params.file;
    if (name === "index.html" || !Object.hasOwn(ASSETS, name)) {
      throw new HttpProblem("WF_ROUTE_NOT_FOUND", `The debugger page has no file ${name}: it has debugger.js, debugger.css and favicon.svg.`);
    }
    return reply.type(ASSETS[name]!).header("cache-control", "no-cache").send(await file(name));
  });

  const eventsSchema = {
    summary: "Live updates of the debugger page (server-sent events)",
    description: "Each `status` event's data is `{ status: SessionStatus, screenshots: stepId[] }`, sent at once and after every change; a comment every 15 s keeps the connection open.",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: IdParams,
    querystring: TokenQuery,
    response: { 200: mediaAnswer("text/event-stream", "The event stream."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session" }) },
  };
  app.get(
    fastifyPath(VIEW_ROUTES.events),
    {
      attachValidation: true,
      schema: eventsSchema,
      sse: true,
      // The route speaks only event streams, whatever the client accepts (curl, fetch send */*):
      // the plugin streams for `Accept: text/event-stream` only, so that is what it is told.
      onRequest: async (request) => {
        if (request.method === "GET") request.headers.accept = "text/event-stream";
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      // A HEAD gets the stream's headers and ends (a stream that never ends would hold it forever).
      if (request.method === "HEAD") return reply.type("text/event-stream; charset=utf-8").header("cache-control", "no-store").send();
      await streamUpdates(request, reply, sessionOf(request));
    },
  );

  /** Sends the session's update now and after every change, until the client leaves. */
  async function streamUpdates(_request: FastifyRequest, reply: FastifyReply, session: SessionRecord): Promise<void> {
    const { sse } = reply;
    sse.keepAlive();
    reply.header("content-type", "text/event-stream; charset=utf-8").header("cache-control", "no-store");
    let lastVersion = -1;
    // One update at a time, in order: each reads the session (memory or store) when its turn comes.
    let sending = Promise.resolve();
    const send = () => {
      sending = sending.then(async () => {
        if (!sse.isConnected || session.version === lastVersion) return;
        lastVersion = session.version;
        const data = await update(session.sessionId).catch(() => undefined);
        if (data && sse.isConnected) await sse.send({ event: "status", data } satisfies { event: string; data: DebuggerUpdate }).catch(() => undefined);
      });
    };
    const unsubscribe = sessions.onChange((change) => {
      if (change.sessionId === session.sessionId) send();
    });
    // While the page watches, every step gets a screenshot (whatever the session's screenshot mode).
    const unwatch = sessions.watchView(session.sessionId);
    sse.onClose(() => {
      unsubscribe();
      unwatch();
    });
    send();
    await sending;
    // The headers go now even when the first update could not be read: the handler's answer is the stream.
    sse.sendHeaders();
  }

  const screenshotSchema = {
    summary: "Screenshot taken after a step (PNG)",
    tags: ["sessions"],
    security: SECURITY.sessionToken,
    params: z.object({ id: z.string().describe("The session id."), stepId: z.string().describe("The step id.") }),
    querystring: TokenQuery,
    response: { 200: mediaAnswer("image/png", "The screenshot."), ...problemAnswers({ 401: "Missing or wrong token", 404: "Unknown session or step, or no screenshot" }) },
  };
  app.get<{ Params: { id: string; stepId: string } }>(fastifyPath(VIEW_ROUTES.screenshot), { attachValidation: true, schema: screenshotSchema, preHandler: requireSession }, async (request, reply) => {
    const session = sessionOf(request);
    const step = await sessions.getStep(request.params.stepId);
    const path = step && step.sessionId === session.sessionId ? await sessions.screenshotPath(step.stepId) : undefined;
    if (!path) throw new HttpProblem("WF_STEP_NOT_FOUND", `Session ${session.sessionId} has no screenshot for step ${request.params.stepId}.`);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new HttpProblem("WF_STEP_NOT_FOUND", `The screenshot of step ${request.params.stepId} is gone from the data directory.`);
    return reply.type("image/png").header("cache-control", "private, max-age=3600").header("content-length", info.size).send(createReadStream(path));
  });
}
