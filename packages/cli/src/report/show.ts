/**
 * `showReport()` and `showTrace()`: the programmatic `wf show-report` and `wf show-trace`. A report
 * folder (or one trace file) is served over HTTP on loopback (sirv, a static file server) together
 * with Playwright's trace viewer, which ships in `playwright-core` (`lib/vite/traceViewer/`), under
 * `/trace/`; the page opens in the default browser (`open`), as `npx playwright show-report` does.
 * The report's trace links open `trace/index.html?trace=<the zip's URL>` there, as Playwright's
 * HTML report does. The page also works from disk, where a trace link downloads the zip.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { CliUsageError } from "../errors.js";
import type { OutputStream } from "../reporters.js";

/** Options of {@link showReport}. */
export interface ShowReportOptions {
  /** The report folder, absolute. */
  dir: string;
  /** @default "127.0.0.1" */
  host?: string;
  /** Port to listen on; 0 picks a free one. @default 9323 (Playwright's) */
  port?: number;
  /** Open the page in the default browser. @default true */
  open?: boolean;
  /** Where the URL is printed. */
  stdout: OutputStream;
}

/** A report (or trace) being served. */
export interface ShownReport {
  /** The page's URL, e.g. `http://127.0.0.1:9323/`. */
  url: string;
  /** Stops serving. */
  close(): Promise<void>;
}

/** Where the served trace viewer lives, under the report's URL. */
export const TRACE_VIEWER_PATH = "/trace/";

/**
 * The folder of Playwright's trace viewer in the installed `playwright-core`, or undefined when
 * this version has none where we look (the report's trace links then download the zip).
 */
export function traceViewerDir(): string | undefined {
  try {
    const root = dirname(createRequire(import.meta.url).resolve("playwright-core/package.json"));
    const dir = join(root, "lib", "vite", "traceViewer");
    return existsSync(join(dir, "index.html")) ? dir : undefined;
  } catch {
    return undefined;
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * Serves the report in `dir` until `close()`, with the trace viewer under `/trace/`.
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when `dir` holds no `index.html` (run
 *   `wf run` first, or name the folder); `WF_CLI_USAGE` when the port is taken.
 */
export async function showReport(options: ShowReportOptions): Promise<ShownReport> {
  const { dir } = options;
  if (!(await stat(join(dir, "index.html")).catch(() => undefined))?.isFile()) {
    throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `No report in ${dir} (it has no index.html). Run \`wf run\` first, or name the report folder: wf show-report path/to/wf-report.`, { path: dir });
  }
  const { default: sirv } = await import("sirv");
  // dev: files are read on each request, so a report rewritten by another run shows at once.
  const files = sirv(dir, { dev: true, dotfiles: false, etag: true });
  const served = await serve({ ...options, files, viewer: await viewerHandler() });
  options.stdout.write(`Serving the HTML report of ${dir} at ${served.url}\nPress Ctrl+C to quit.\n`);
  await openPage(served.url, options);
  return served;
}

/** Options of {@link showTrace}. */
export interface ShowTraceOptions extends Omit<ShowReportOptions, "dir"> {
  /** The trace zip, absolute. */
  file: string;
}

/**
 * Serves one trace file with Playwright's trace viewer until `close()` (`wf show-trace`), and
 * opens the viewer on it; `url` is the viewer's URL.
 *
 * @throws {@link CliUsageError} `WF_CLI_FILE_NOT_FOUND` when `file` is not a file;
 *   `WF_CLI_USAGE` when this `playwright-core` ships no trace viewer (use `npx playwright-core
 *   show-trace`), or the port is taken.
 */
export async function showTrace(options: ShowTraceOptions): Promise<ShownReport> {
  const file = resolve(options.file);
  if (!(await stat(file).catch(() => undefined))?.isFile()) {
    throw new CliUsageError("WF_CLI_FILE_NOT_FOUND", `No trace at ${file}. Name a trace.zip, e.g. wf show-trace wf-report/<workflow>/trace.zip.`, { path: file });
  }
  const viewer = await viewerHandler();
  if (!viewer) throw new CliUsageError("WF_CLI_USAGE", `The installed playwright-core has no trace viewer to serve. Open the trace with: npx playwright-core show-trace ${file}`);
  const { default: sirv } = await import("sirv");
  // Only the one file is served, under its own name.
  const name = basename(file);
  const one = sirv(dirname(file), { dev: true, dotfiles: false, etag: true });
  const files: Handler = (req, res, next) => (new URL(req.url ?? "/", "http://x").pathname === `/${encodeURIComponent(name)}` ? one(req, res, next) : next());
  const served = await serve({ ...options, files, viewer });
  const url = traceViewerUrl(served.url, new URL(encodeURIComponent(name), served.url).href);
  options.stdout.write(`Serving the trace ${file} in Playwright's trace viewer at ${url}\nPress Ctrl+C to quit.\n`);
  await openPage(url, options);
  return { url, close: served.close };
}

/** The trace viewer's URL (served at `origin`) showing the trace at `traceUrl`. */
export function traceViewerUrl(origin: string, traceUrl: string): string {
  return `${new URL(TRACE_VIEWER_PATH, origin).href}index.html?trace=${encodeURIComponent(traceUrl)}`;
}

async function viewerHandler(): Promise<Handler | undefined> {
  const dir = traceViewerDir();
  if (!dir) return undefined;
  const { default: sirv } = await import("sirv");
  const files = sirv(dir, { dev: false, dotfiles: false, etag: true });
  return (req, res, next) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (!url.pathname.startsWith(TRACE_VIEWER_PATH)) return next();
    // sirv serves from its folder's root: the prefix is taken off.
    req.url = url.pathname.slice(TRACE_VIEWER_PATH.length - 1) + url.search;
    files(req, res, next);
  };
}

async function serve(options: { host?: string; port?: number; files: Handler; viewer: Handler | undefined }): Promise<ShownReport> {
  const notFound = (res: ServerResponse) => void res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
  const server: Server = createServer((req, res) => {
    const viewer = options.viewer;
    if (viewer) viewer(req, res, () => options.files(req, res, () => notFound(res)));
    else options.files(req, res, () => notFound(res));
  });
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 9323;
  await new Promise<void>((done, fail) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EADDRINUSE"
          ? new CliUsageError("WF_CLI_USAGE", `Port ${port} on ${host} is taken (another wf show-report?). Pass another one with --port, or --port 0 for any free port.`)
          : error,
      ),
    );
    server.listen(port, host, done);
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

async function openPage(url: string, options: { open?: boolean; stdout: OutputStream }): Promise<void> {
  if (options.open === false) return;
  const { default: open } = await import("open");
  // A machine without a browser (a server, CI) still serves the page: only say so.
  await open(url).then(
    (child) => child.once("error", () => options.stdout.write(`Could not open a browser: open ${url} yourself.\n`)),
    () => options.stdout.write(`Could not open a browser: open ${url} yourself.\n`),
  );
}
