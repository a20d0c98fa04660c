/**
 * The set-up the model tests share: a double of the model provider, a static server for their
 * fixture pages, and the real server pointed at the double, with a fresh data folder. Steps run
 * through the session manager directly, one session per test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { toResponseFormat } from "@wf/core";
import type { StepStatus } from "@wf/core/protocol";
import { startServer, type RunningServer, type ServerOptions } from "../../src/index.js";
import { startModelDouble, type ModelDouble } from "./model-double.js";
import { startStaticServer, type StaticServer } from "./static-server.js";

/** A running {@link startModelServer}. */
export interface ModelServer {
  model: ModelDouble;
  pages: StaticServer;
  server: RunningServer;
  /** Stops the server, the pages and the double, and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts the double, serves `fixtures` (a folder) and starts the server with a model (`test-model`
 * at the double, key `sk-test`, steps of 20 s) and `options` on top.
 */
export async function startModelServer(fixtures: string, options: ServerOptions = {}): Promise<ModelServer> {
  const model = await startModelDouble();
  const pages = await startStaticServer(fixtures);
  const dataDir = await mkdtemp(join(tmpdir(), "wf-model-"));
  const server = await startServer({
    port: 0,
    apiKeys: ["k"],
    dataDir,
    journalSync: false,
    model: "test-model",
    modelBaseUrl: model.baseUrl,
    modelApiKey: "sk-test",
    stepTimeoutMs: 20_000,
    ...options,
  });
  return {
    model,
    pages,
    server,
    close: async () => {
      await server.close();
      await pages.close();
      await model.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Extra fields of a step request. */
export interface StepExtra {
  redact?: string[];
  timeoutMs?: number;
  currentDom?: string;
}

/** Steps of one session at a time on `server`: `open()` in `beforeEach`, `close()` in `afterEach`. */
export function sessionSteps(server: () => RunningServer) {
  let sessionId = "";
  return {
    get sessionId(): string {
      return sessionId;
    },
    async open(): Promise<void> {
      sessionId = (await server().context.sessions.createSession({ kind: "STEP" })).sessionId;
    },
    async close(): Promise<void> {
      await server().context.sessions.finishSession(sessionId, { status: "SUCCEEDED" });
    },
    act(step: string, extra: StepExtra = {}): Promise<StepStatus> {
      return server().context.sessions.runStep(sessionId, { type: "ACT", step, ...extra });
    },
    ask(step: string, schema?: z.ZodType, extra: StepExtra = {}): Promise<StepStatus> {
      const format = schema ? (toResponseFormat(schema, "answer") as unknown as Record<string, unknown>) : undefined;
      return server().context.sessions.runStep(sessionId, { type: "ASK", step, ...(format ? { schema: format } : {}), ...extra });
    },
  };
}
