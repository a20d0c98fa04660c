/**
 * Several server instances on one database: this instance's registration and lease, the sweep
 * that ends the sessions of instances whose lease ran out (`WF_SERVER_LOST`), and the forwarding
 * of every request about a session to the instance that holds its browser context.
 *
 * Why forwarding rather than each instance answering from the database: the instance holding a
 * session has its authoritative state (the step queue, versions that change without a write, the
 * screenshots and trace on its disk), so a status, a long-poll, a step run, the debugger page and
 * its live updates answered by that instance behave exactly as with one server, and waiting
 * requests are woken by the same in-process events. A request that lands elsewhere costs one
 * internal HTTP hop; a load balancer that routes by the session id in the path saves it.
 */
import { hostname } from "node:os";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { MAX_LONG_POLL_MS } from "@wf/core/protocol";
import type { ServerContext } from "../context.js";
import { HttpProblem } from "../errors.js";
import type { SessionOwner } from "../store/store.js";

/** Header of a forwarded request: the id of the instance that forwarded it. A forwarded request is never forwarded again. */
export const FORWARDED_BY_HEADER = "x-wf-forwarded-by";

/** The body of each JSON request as it was sent (set by the app's JSON parser): a forwarded request carries the same bytes. */
export const rawBodies = new WeakMap<FastifyRequest, string>();

/** How long a client is asked to wait after `WF_INSTANCE_UNREACHABLE`, in ms. */
const UNREACHABLE_RETRY_AFTER_MS = 2_000;

/** The running lease of this instance; {@link InstanceLease.stop} ends it. */
export interface InstanceLease {
  /**
   * Stops renewing. The registration stays until its lease runs out: a restart within the lease
   * ends this instance's open sessions itself (`WF_SERVER_RESTARTED`); otherwise another instance
   * ends them (`WF_SERVER_LOST`).
   */
  stop(): Promise<void>;
}

/**
 * Registers this instance under `options.instanceId` at `url`, renews the lease every third of
 * `instanceLeaseMs`, and on every renewal ends the sessions of instances whose lease ran out (on
 * whichever instance gets there first; `SessionManager.failLostInstances`). When this instance
 * finds its own lease had run out (paused or cut off from the database for longer than the lease),
 * its own sessions may already have been ended by another instance: it ends them here too.
 *
 * @param onError - told about a renewal that failed (the database unreachable); the next one retries.
 */
export async function startInstanceLease(context: ServerContext, url: string, onError: (error: unknown) => void): Promise<InstanceLease> {
  const { store, sessions, options } = context;
  const { instanceId, instanceLeaseMs } = options;
  await store.renewInstance(instanceId, url, instanceLeaseMs);
  await sessions.failLostInstances();
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const kept = await store.renewInstance(instanceId, url, instanceLeaseMs);
    if (!kept && !stopped) await sessions.loseOwnSessions();
    await sessions.failLostInstances();
  };
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : tick().catch(onError)));
  }, Math.max(200, Math.floor(instanceLeaseMs / 3)));
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** The URL at which other instances reach this one: `options.internalUrl`, else where it listens (the machine's host name when it listens on every address). */
export function internalUrlOf(configured: string | undefined, host: string, port: number): string {
  if (configured) return configured;
  const reachable = host === "0.0.0.0" || host === "::" ? hostname() : host.includes(":") ? `[${host}]` : host;
  return `http://${reachable}:${port}`;
}

/**
 * Forwards every request whose route names a session (`:id`) or a step (`:stepId`) to the instance
 * holding that session, when that is another instance with a running lease (a finished session's
 * too: its screenshots and trace are on that instance's disk). The answer, status and headers
 * included, is the owner's. A request about a session held here, an unknown one, or one held by an
 * instance whose lease ran out is answered here (from memory or the database).
 *
 * Registered only for PostgreSQL (`store.driver === "postgres"`): the embedded database and the
 * in-memory store are opened by one process.
 * An owner that does not answer gives the 503 problem `WF_INSTANCE_UNREACHABLE` (with
 * `Retry-After`); once its lease runs out, the retry is answered here.
 */
export async function registerForwarding(app: FastifyInstance, context: ServerContext): Promise<void> {
  // Loaded here, not with the module: only a server on PostgreSQL forwards (~20 MB and its load
  // time spared by every other server, `wf run`'s embedded one included; issue 26).
  const { default: replyFrom } = await import("@fastify/reply-from");
  await app.register(replyFrom, {
    // A long-poll answers only after up to MAX_LONG_POLL_MS; the debugger's event stream stays open
    // (a keep-alive comment every few seconds).
    undici: { headersTimeout: MAX_LONG_POLL_MS + 15_000, bodyTimeout: 0, connections: 16 },
    disableRequestLogging: true,
  });
  const { instanceId } = context.options;
  app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers[FORWARDED_BY_HEADER] !== undefined) return;
    const params = request.params as { id?: unknown; stepId?: unknown } | undefined;
    const target =
      typeof params?.id === "string" ? { sessionId: params.id } : typeof params?.stepId === "string" ? { stepId: params.stepId } : undefined;
    if (!target || context.sessions.holds(target)) return;
    const owner = await context.store.sessionOwner(target).catch(() => undefined);
    if (!isElsewhere(owner, instanceId)) return;
    // The path and query as sent (re-encoding either could change what the holder reads).
    const queryAt = request.url.indexOf("?");
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    const query = queryAt === -1 ? "" : request.url.slice(queryAt + 1);
    const body = rawBodies.get(request);
    // The hook resolves only once the holder's answer was passed on: Fastify runs the route's own
    // handler after a hook unless the response has ended by then.
    const passedOn = new Promise<void>((resolve) => {
      reply.raw.once("finish", resolve);
      reply.raw.once("close", resolve);
    });
    try {
      void reply.from(`${owner.url}${path}`, {
        queryString: () => query,
        // The body as sent, with its content type (without `contentType`, reply-from would JSON-encode the text again).
        ...(body !== undefined && request.method !== "GET" && request.method !== "HEAD" ? { body, contentType: request.headers["content-type"] ?? "application/json" } : {}),
        rewriteRequestHeaders: (_request, headers) => ({ ...headers, [FORWARDED_BY_HEADER]: instanceId }),
        // The client retries (it knows its idempotency key); retrying here would double the wait.
        retryDelay: () => null,
        onError: (failed, { error }) => {
          void failed.send(
            new HttpProblem(
              "WF_INSTANCE_UNREACHABLE",
              `Session ${owner.sessionId} is held by server instance ${owner.instanceId}, which did not answer (${error.message}). Retry: if that instance is gone, its sessions end FAILED with WF_SERVER_LOST once its lease runs out.`,
              { retryAfterMs: UNREACHABLE_RETRY_AFTER_MS, cause: error },
            ),
          );
        },
      });
    } catch (error) {
      // reply-from checks the path it builds (a percent-sequence that does not decode): the client's URL.
      throw new HttpProblem(
        "WF_BAD_REQUEST",
        `The request's path could not be passed on to the instance holding session ${owner.sessionId} (${(error as Error).message}). Percent-encode the path.`,
      );
    }
    await passedOn;
    // A client that left mid-answer (an event stream closed) leaves the response unended: marked
    // hijacked, the route's handler does not run on it.
    if (!reply.sent) reply.hijack();
    return reply;
  });
}

function isElsewhere(owner: SessionOwner | undefined, instanceId: string): owner is SessionOwner & { url: string; instanceId: string } {
  return owner !== undefined && owner.alive && owner.url !== undefined && owner.instanceId !== undefined && owner.instanceId !== instanceId;
}
