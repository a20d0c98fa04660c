/**
 * Recovery of work a server could not finish: at start-up, this instance's sessions and steps left
 * open by its previous run; with several instances on one database (`cluster/instances.ts`), those of an
 * instance whose lease ran out, and this instance's own when its lease ran out.
 */
import type { WireError } from "@wf/core/protocol";
import type { ResolvedServerOptions } from "../config/options.js";
import type { RecoveredWork, Store } from "../store/store.js";
import type { ChangeFeed } from "./feed.js";
import type { SessionLifecycle } from "./lifecycle.js";
import type { SessionRegistry } from "./registry.js";

/** What the {@link SessionRecovery} works with. */
export interface SessionRecoveryParts {
  options: ResolvedServerOptions;
  store: Store;
  registry: SessionRegistry;
  feed: ChangeFeed;
  lifecycle: SessionLifecycle;
}

export class SessionRecovery {
  constructor(private readonly parts: SessionRecoveryParts) {}

  /**
   * At start-up: steps that were `QUEUED`/`RUNNING` and sessions that were open become `FAILED`
   * with code `WF_SERVER_RESTARTED` (one transaction; only those rows are read). Finished records
   * stay in the store and are read when asked for.
   */
  async recover(): Promise<RecoveredWork> {
    return this.parts.store.failUnfinished(
      { code: "WF_SERVER_RESTARTED", message: "The server stopped while this session was open, so its browser context is gone. Create a new session." },
      (step) => ({
        code: "WF_SERVER_RESTARTED",
        message: `The server stopped while this step was ${step.status.toLowerCase()}, so it did not finish. Run it again in a new session.`,
      }),
      new Date().toISOString(),
      { instanceId: this.parts.options.instanceId },
    );
  }

  /**
   * Ends, `FAILED` with `WF_SERVER_LOST`, the open sessions (and their unfinished steps) of other
   * instances whose lease ran out (see `cluster/instances.ts`), and wakes the requests waiting here on them.
   */
  async failLostInstances(): Promise<RecoveredWork> {
    const { store } = this.parts;
    const recovered = await store.failUnfinished(
      serverLost("session"),
      (step) => serverLost(`step (${step.status.toLowerCase()})`),
      new Date().toISOString(),
      { lostInstances: true },
    );
    for (const sessionId of recovered.sessionIds) {
      const stored = await store.getSession(sessionId).catch(() => undefined);
      if (stored) this.parts.feed.announce({ sessionId, version: stored.session.version });
    }
    return recovered;
  }

  /**
   * Ends every session open here `FAILED` with `WF_SERVER_LOST`: this instance's lease ran out,
   * so another instance may already have ended them in the database (see `cluster/instances.ts`).
   */
  async loseOwnSessions(): Promise<void> {
    const open = [...this.parts.registry.live.keys()];
    await Promise.all(
      open.map((sessionId) => this.parts.lifecycle.finishSession(sessionId, { status: "FAILED", error: serverLost("session") }).catch(() => undefined)),
    );
  }
}

/** The error of a session or step of an instance whose lease ran out. */
function serverLost(what: string): WireError {
  return {
    code: "WF_SERVER_LOST",
    message: `The server instance holding this ${what} stopped renewing its lease (it died, or lost the database), so its browser context is gone. Run it again in a new session.`,
  };
}
