/**
 * A tiny static file server for tests: serves a directory from disk over HTTP on 127.0.0.1 at a
 * free port (port 0), so browser tests need no network. No caching, no directory listings;
 * `..` cannot leave the root. Unknown paths answer 404. Like a slow or a long-polling API, a request
 * with `?delayMs=N` is answered after N ms, and one with `?hold` is never answered (until `close()`).
 *
 * @example
 * const server = await startStaticServer(fileURLToPath(new URL("../fixtures/interpreter", import.meta.url)));
 * await page.goto(`${server.url}/form.html`);
 * await server.close();
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A running {@link startStaticServer}. */
export interface StaticServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Port it listens on. */
  port: number;
  /** Stops the server and ends open connections. */
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
};

/**
 * Serves `root` (a directory) at `http://127.0.0.1:<port>/`. `GET /` serves `index.html` if present.
 *
 * @param root - directory to serve; paths resolve under it.
 * @returns the base URL and a `close()`.
 */
export async function startStaticServer(root: string): Promise<StaticServer> {
  const base = path.resolve(root);
  const server = createServer((req, res) => {
    void (async () => {
      const query = new URL(req.url ?? "/", "http://x").searchParams;
      if (query.has("hold")) return; // a long-poll that never answers
      const delayMs = Number(query.get("delayMs") ?? 0);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      let file = path.resolve(base, "." + pathname);
      if (file !== base && !file.startsWith(base + path.sep)) {
        res.writeHead(403).end("forbidden");
        return;
      }
      try {
        let info = await stat(file);
        if (info.isDirectory()) {
          file = path.join(file, "index.html");
          info = await stat(file);
        }
        res.writeHead(200, { "content-type": TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream", "content-length": info.size, "cache-control": "no-store" });
        if (req.method === "HEAD") res.end();
        else createReadStream(file).pipe(res);
      } catch {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
