/**
 * A tiny static file server for the server's HTTP tests: serves a folder from disk on 127.0.0.1
 * (port 0), so pages load without the internet. `close()` stops it.
 */
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import type { AddressInfo } from "node:net";

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".json": "application/json" };

/** A running page server: `url` is its base (no trailing slash). */
export interface PagesServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `root` on 127.0.0.1 at a random port. Unknown paths are 404. */
export async function servePages(root: string): Promise<PagesServer> {
  const base = resolve(root);
  const server = createServer((req, res) => {
    const path = normalize(join(base, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
    if (path !== base && !path.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    readFile(path).then(
      (body) => res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body),
      () => res.writeHead(404, { "content-type": "text/plain" }).end("not found"),
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
