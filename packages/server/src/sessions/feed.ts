/**
 * The change feed of the sessions open here: every change of a session or one of its steps bumps
 * the session's `version` and is announced to listeners (long-polls, the debugger's live pages,
 * the forwarding between instances). Also counts the debugger pages watching each session, which
 * turn screenshots on for every step (see `step-runner.ts`).
 */
import { EventEmitter } from "node:events";
import type { SessionRecord } from "../store/store.js";
import type { SessionChange } from "./types.js";

/** One per server, shared by the parts of the session wing. */
export class ChangeFeed {
  private readonly events = new EventEmitter();
  /** Debugger pages watching each session, by session id (only sessions with at least one). */
  private readonly viewers = new Map<string, number>();

  /** @param isStopping - whether the server stops: waits then end at once. */
  constructor(private readonly isStopping: () => boolean) {
    this.events.setMaxListeners(0);
  }

  /** Counts a change of `session`: its `version` goes up, `updatedAt` is now. */
  bump(session: SessionRecord): void {
    session.version += 1;
    session.updatedAt = new Date().toISOString();
  }

  /** Announces the session's current version (and the step that changed, when one did). */
  emit(session: SessionRecord, stepId?: string): void {
    this.announce({ sessionId: session.sessionId, version: session.version, ...(stepId ? { stepId } : {}) });
  }

  /** {@link ChangeFeed.bump} then {@link ChangeFeed.emit}. */
  touch(session: SessionRecord, stepId?: string): void {
    this.bump(session);
    this.emit(session, stepId);
  }

  /** Announces a change to every listener. */
  announce(change: SessionChange): void {
    this.events.emit("change", change);
  }

  /** Calls `listener` on every change of any session or step. @returns a function that unsubscribes. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.events.on("change", listener);
    return () => this.events.off("change", listener);
  }

  /** Ends every wait under way (the server stops). */
  stop(): void {
    this.events.emit("stopping");
  }

  /**
   * Resolves once `ready()` holds after a change of the session (checked at once too), after
   * `waitMs` (`Infinity`: no limit), when `signal` aborts, or when the server stops.
   */
  async waitUntil(sessionId: string, ready: () => boolean, waitMs: number, signal?: AbortSignal): Promise<void> {
    if (ready() || waitMs <= 0 || this.isStopping()) return;
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (timer) clearTimeout(timer);
        this.events.off("change", onChange);
        this.events.off("stopping", finish);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const onChange = (change: SessionChange) => {
        if (change.sessionId === sessionId && ready()) finish();
      };
      this.events.on("change", onChange);
      this.events.on("stopping", finish);
      signal?.addEventListener("abort", finish, { once: true });
      if (Number.isFinite(waitMs)) timer = setTimeout(finish, waitMs);
    });
  }

  /** Resolves at the next change of a session announced here, after `waitMs`, or when `signal` aborts. */
  async waitForChangeOf(sessionId: string, waitMs: number, signal?: AbortSignal): Promise<void> {
    let changed = false;
    const unsubscribe = this.onChange((change) => {
      if (change.sessionId === sessionId) changed = true;
    });
    try {
      await this.waitUntil(sessionId, () => changed, waitMs, signal);
    } finally {
      unsubscribe();
    }
  }

  /**
   * Counts a debugger page watching a session: while one does, every step of the session gets a
   * screenshot whatever its `screenshot` mode. @returns a function that ends this watch (idempotent).
   */
  watchView(sessionId: string): () => void {
    this.viewers.set(sessionId, (this.viewers.get(sessionId) ?? 0) + 1);
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      const left = (this.viewers.get(sessionId) ?? 1) - 1;
      if (left > 0) this.viewers.set(sessionId, left);
      else this.viewers.delete(sessionId);
    };
  }

  /** How many debugger pages watch a session now (event streams open on it). */
  viewCount(sessionId: string): number {
    return this.viewers.get(sessionId) ?? 0;
  }

  /** Whether at least one debugger page watches the session. */
  watched(sessionId: string): boolean {
    return this.viewers.has(sessionId);
  }
}
