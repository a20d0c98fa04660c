/** What the long-polled routes (step status, session status) share. */
import type { FastifyReply } from "fastify";
import { MAX_LONG_POLL_MS, type LongPollQuery } from "@wf/core/protocol";

/** The parsed long-poll query with `waitMs` capped at {@link MAX_LONG_POLL_MS} (0 when absent). */
export function longPoll(query: LongPollQuery): { waitMs: number; since?: number } {
  return { waitMs: Math.min(query.waitMs ?? 0, MAX_LONG_POLL_MS), ...(query.since !== undefined ? { since: query.since } : {}) };
}

/** An AbortSignal that aborts when the client goes away (ends a long-poll early). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => controller.abort());
  return controller.signal;
}
