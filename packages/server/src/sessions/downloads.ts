/**
 * The files a session's steps download (Playwright's `download` event on each of its pages): each
 * one is kept with the session's records in `<dataDir>/downloads/<sessionId>/<downloadId>` up to
 * `maxDownloadBytes`, and listed by the step it started in (`StepStatus.downloads`: name, size,
 * media type). A download past the cap is cancelled while it runs and its partial file deleted;
 * the step fails `WF_DOWNLOAD_TOO_LARGE`. Served by `GET /workflow/view/{id}/downloads/{downloadId}`
 * (`http/downloads.ts`) as long as the session's records are kept.
 */
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { BrowserContext, Download, Page, Request, Response } from "playwright-core";
import type { StepDownload } from "@wf/core/protocol";
import { settlesWithin, TIMED_OUT, within } from "../browser/deadline.js";
import { StepExecutionError } from "../errors.js";

/** How often a running download's partial file is measured against the cap, in ms. */
const MEASURE_EVERY_MS = 100;
/** Longest cancelling a download or copying it may take, in ms. */
const FILE_TIMEOUT_MS = 5_000;
/** Navigation responses remembered for their media type (a download's response comes just before its event). */
const REMEMBERED_RESPONSES = 32;
/**
 * Longest a step waits, after its action, for a download the browser has announced but not yet
 * begun, in ms: a navigation answered as an attachment, or aborted after its response, becomes a
 * download a moment later (Chromium's `downloadWillBegin` can reach us after the click returned).
 */
const ANNOUNCED_GRACE_MS = 3_000;

/** Media types of common file endings, for a download whose response said none. */
const TYPES: Record<string, string> = {
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".xml": "application/xml",
  ".html": "text/html",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".ics": "text/calendar",
};

/** One download of a step: its entry once kept, or why it was not. */
type Outcome = { ok: StepDownload } | { error: StepExecutionError };

/** Where a kept download's bytes and metadata live. */
export function downloadFile(dataDir: string, sessionId: string, downloadId: string): string {
  return join(dataDir, "downloads", sessionId, downloadId);
}

/** The downloads of one session's browser context. */
export class SessionDownloads {
  /** Downloads started since the last {@link SessionDownloads.take}, each settling with its outcome. */
  private started: Array<{ name: string; done: Promise<Outcome>; cancel: () => void }> = [];
  private readonly mediaTypes = new Map<string, string>();
  /** URLs whose navigation turned out to be a download that has not begun yet, with when that was seen (epoch ms). */
  private readonly announced = new Map<string, number>();
  /** Navigation requests sent and not yet answered, with when they were sent (epoch ms): each may turn out to be a download. */
  private readonly unanswered = new Map<Request, number>();
  /** Navigation requests that got their response (the ones whose abort means a download). */
  private readonly answered = new WeakSet<Request>();
  /** Wakes a {@link SessionDownloads.take} waiting for an announced download. */
  private wake: (() => void) | undefined;
  private folder: string | undefined;
  private closed = false;

  constructor(
    context: BrowserContext,
    first: Page,
    /** Most bytes one download may hold. */
    private readonly maxBytes: number,
  ) {
    const watch = (page: Page) => page.on("download", (download) => this.begin(download));
    watch(first);
    context.on("page", watch);
    context.on("response", (response) => this.remember(response));
    context.on("request", (request) => {
      if (request.isNavigationRequest() && !this.closed) this.unanswered.set(request, Date.now());
    });
    context.on("requestfailed", (request) => {
      this.settle(request);
      // A navigation aborted after its response came is what a download looks like from here.
      if (request.isNavigationRequest() && this.answered.has(request) && /ERR_ABORTED/.test(request.failure()?.errorText ?? "")) this.announce(request.url());
    });
    context.on("requestfinished", (request) => this.settle(request));
  }

  /** Where this session's downloads are kept (`<dataDir>/downloads/<sessionId>`); set once the session has its id. */
  keepIn(folder: string): void {
    this.folder = folder;
  }

  /**
   * Waits, up to `waitMs`, for the downloads started since the last take to finish (a download
   * still running then is cancelled).
   * @returns the downloads kept, and the first failure (`WF_DOWNLOAD_TOO_LARGE`, …) when there was one.
   */
  async take(waitMs: number): Promise<{ downloads: StepDownload[]; failure?: StepExecutionError }> {
    await this.awaitAnnounced(Math.min(waitMs, ANNOUNCED_GRACE_MS));
    const started = this.started;
    this.started = [];
    if (started.length === 0) return { downloads: [] };
    const settled = await within(Promise.all(started.map((s) => s.done)), Math.max(1, waitMs));
    if (settled === TIMED_OUT) {
      for (const s of started) s.cancel();
      const names = started.map((s) => JSON.stringify(s.name)).join(", ");
      return {
        downloads: [],
        failure: new StepExecutionError("WF_STEP_TIMEOUT", `The download of ${names} did not finish within the step's timeout, so it was cancelled. Raise the step's timeoutMs.`),
      };
    }
    const downloads = settled.flatMap((o) => ("ok" in o ? [o.ok] : []));
    const failed = settled.find((o): o is { error: StepExecutionError } => "error" in o);
    return { downloads, ...(failed ? { failure: failed.error } : {}) };
  }

  /** Cancels what still downloads; nothing more is kept. Never throws. */
  close(): void {
    this.closed = true;
    this.announced.clear();
    this.unanswered.clear();
    for (const s of this.started) s.cancel();
  }

  /**
   * Waits, up to `waitMs`, until no navigation is still unanswered and no announced download is
   * still to begin (a navigation unanswered, or an announcement not begun, for
   * {@link ANNOUNCED_GRACE_MS} is forgotten: a page that never answers does not hold every step).
   */
  private async awaitAnnounced(waitMs: number): Promise<void> {
    const until = Date.now() + Math.max(0, waitMs);
    for (;;) {
      for (const [url, seenAt] of this.announced) if (seenAt + ANNOUNCED_GRACE_MS <= Date.now()) this.announced.delete(url);
      for (const [request, sentAt] of this.unanswered) if (sentAt + ANNOUNCED_GRACE_MS <= Date.now()) this.unanswered.delete(request);
      const left = until - Date.now();
      if ((this.announced.size === 0 && this.unanswered.size === 0) || left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, MEASURE_EVERY_MS));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private settle(request: Request): void {
    if (this.unanswered.delete(request)) this.wake?.();
  }

  private announce(url: string): void {
    if (!this.closed) this.announced.set(url, Date.now());
  }

  private remember(response: Response): void {
    if (!response.request().isNavigationRequest()) return;
    this.answered.add(response.request());
    this.settle(response.request());
    if (/^\s*attachment/i.test(response.headers()["content-disposition"] ?? "")) this.announce(response.url());
    const type = response.headers()["content-type"];
    if (!type) return;
    this.mediaTypes.delete(response.url());
    this.mediaTypes.set(response.url(), type.split(";")[0]!.trim());
    if (this.mediaTypes.size > REMEMBERED_RESPONSES) this.mediaTypes.delete(this.mediaTypes.keys().next().value!);
  }

  private begin(download: Download): void {
    this.announced.delete(download.url());
    this.wake?.();
    const name = safeName(download.suggestedFilename());
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      void settlesWithin(download.cancel(), FILE_TIMEOUT_MS);
    };
    const done = this.keep(download, name, () => cancelled);
    this.started.push({ name, done, cancel });
    if (this.closed) cancel();
  }

  private async keep(download: Download, name: string, cancelled: () => boolean): Promise<Outcome> {
    const partial = partialPath(download);
    let tooLarge: number | undefined;
    // The partial file is measured while it grows: a download past the cap stops there, not at its end.
    const measuring = partial
      ? setInterval(() => {
          void sizeOf(`${partial}.crdownload`).then(async (size) => {
            if (size === undefined || size <= this.maxBytes || tooLarge !== undefined) return;
            tooLarge = size;
            await settlesWithin(download.cancel(), FILE_TIMEOUT_MS);
            await removeQuietly(partial);
          });
        }, MEASURE_EVERY_MS)
      : undefined;
    let path: string | null = null;
    try {
      path = await download.path().catch(() => null);
    } finally {
      clearInterval(measuring);
    }
    const size = path ? await sizeOf(path) : undefined;
    if (tooLarge !== undefined || (size !== undefined && size > this.maxBytes)) {
      if (path) await removeQuietly(path);
      if (partial) await removeQuietly(partial);
      return { error: tooLargeError(name, this.maxBytes, tooLarge ?? size!) };
    }
    if (!path || size === undefined || cancelled()) {
      const reason = (await download.failure().catch(() => null)) ?? "cancelled";
      return { error: new StepExecutionError("WF_DOWNLOAD_FAILED", `The download of ${JSON.stringify(name)} failed (${reason}). Check the link, or retry the step.`, { details: { name } }) };
    }
    const downloadId = randomBytes(12).toString("hex");
    const entry: StepDownload = { downloadId, name, sizeBytes: size, mimeType: this.mediaTypes.get(download.url()) ?? TYPES[extname(name).toLowerCase()] ?? "application/octet-stream", url: download.url() };
    if (!this.folder) return { error: new StepExecutionError("WF_DOWNLOAD_FAILED", `The download of ${JSON.stringify(name)} came before the session had its folder.`) };
    const file = join(this.folder, downloadId);
    const kept = await within(
      (async () => {
        await mkdir(this.folder!, { recursive: true });
        await copyFile(path, file);
        await writeFile(`${file}.json`, JSON.stringify(entry));
      })(),
      FILE_TIMEOUT_MS,
    ).catch((error: unknown) => error as Error);
    // The browser's own copy goes with its context; ours is what is served.
    await removeQuietly(path);
    if (kept === TIMED_OUT || kept instanceof Error) {
      await removeQuietly(file);
      return { error: new StepExecutionError("WF_DOWNLOAD_FAILED", `The download of ${JSON.stringify(name)} could not be kept (${kept === TIMED_OUT ? "the disk took too long" : kept.message}). Free disk space on the server, or retry.`) };
    }
    return { ok: entry };
  }
}

function tooLargeError(name: string, limitBytes: number, sizeBytes: number): StepExecutionError {
  return new StepExecutionError(
    "WF_DOWNLOAD_TOO_LARGE",
    `The download of ${JSON.stringify(name)} grew past the server's limit of ${limitBytes} bytes (maxDownloadBytes), so it was cancelled and its partial file deleted. ` +
      `Download a smaller file, or ask the server's operator to raise WF_MAX_DOWNLOAD_BYTES.`,
    { details: { name, limitBytes, sizeBytes } },
  );
}

/**
 * Where Playwright writes a download while it runs, without its `.crdownload` ending (Chromium
 * adds it until the file is complete). Read from Playwright's artifact; undefined in a Playwright
 * that does not expose it (the cap is then checked when the download ends).
 */
function partialPath(download: Download): string | undefined {
  const path = (download as unknown as { _artifact?: { _initializer?: { absolutePath?: unknown } } })._artifact?._initializer?.absolutePath;
  return typeof path === "string" ? path : undefined;
}

async function sizeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (info) => info.size,
    () => undefined,
  );
}

async function removeQuietly(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
  await rm(`${path}.crdownload`, { force: true }).catch(() => undefined);
}

/** A suggested file name as a safe one: no folders, no control characters, at most 200 characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
  return clean === "" || clean === "." || clean === ".." ? "download" : clean;
}
