/**
 * The idle timeout of step sessions: a `STEP` session with no step queued or running for
 * `idleTimeoutMs` is ended `CANCELLED` with `WF_SESSION_IDLE_TIMEOUT`, freeing its browser context.
 * Stored runs end when their workflow does.
 */
import type { WireError } from "@wf/core/protocol";
import type { SessionRecord } from "../store/store.js";
import type { LiveSession } from "./types.js";

export class IdleTimers {
  /**
   * @param idleTimeoutMs - the server's `idleTimeoutMs`.
   * @param isStopping - whether the server stops (no timer is armed then).
   * @param onIdle - ends the session with `error` (its failures are the caller's to swallow).
   */
  constructor(
    private readonly idleTimeoutMs: number,
    private readonly isStopping: () => boolean,
    private readonly onIdle: (session: SessionRecord, error: WireError) => void,
  ) {}

  /** (Re)starts the session's idle timer, for a running `STEP` session. */
  arm(session: SessionRecord, live: LiveSession): void {
    if (session.kind !== "STEP" || session.status !== "RUNNING" || this.isStopping()) return;
    this.disarm(live);
    const { idleTimeoutMs } = this;
    live.idleTimer = setTimeout(() => {
      if (session.status !== "RUNNING" || live.pending > 0) return;
      this.onIdle(session, {
        code: "WF_SESSION_IDLE_TIMEOUT",
        message: `No step came for ${idleTimeoutMs} ms, so the session was closed and its browser context freed. Create a new session.`,
      });
    }, idleTimeoutMs);
    live.idleTimer.unref();
  }

  /** Stops the session's idle timer (a step came, or it ends). */
  disarm(live: LiveSession): void {
    if (live.idleTimer) clearTimeout(live.idleTimer);
    live.idleTimer = undefined;
  }
}
