/**
 * `showReport()`: the programmatic `wf show-report`. Serves a report folder over HTTP on loopback
 * (sirv, a static file server) and opens it in the default browser (`open`), as
 * `npx playwright show-report` does. The page also works from disk; serving it gives a URL to
 * share on the machine and lets the trace links download.
 */
import { createServer, type Server } from "node:http";
import { stat } from "node:fs/promises";
import { join } from "node:path";
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

/** A report being served. */
export interface ShownReport {
  /** The page's URL, e.g. `http://127.0.0.1:9323/`. */
  url: string;
  /** Stops serving. */
  close(): Promise<void>;
}

/**
 * Serves the report in `dir` until `close()`.
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
  const server: Server = createServer((req, res) => files(req, res, () => void res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n")));
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
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/`;
  options.stdout.write(`Serving the HTML report of ${dir} at ${url}\nPress Ctrl+C to quit.\n`);
  if (options.open !== false) {
    const { default: open } = await import("open");
    // A machine without a browser (a server, CI) still serves the page: only say so.
    await open(url).then(
      (child) => child.once("error", () => options.stdout.write(`Could not open a browser: open ${url} yourself.\n`)),
      () => options.stdout.write(`Could not open a browser: open ${url} yourself.\n`),
    );
  }
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
