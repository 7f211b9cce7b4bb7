/**
 * A loopback HTTP server for the crawl-over-HTTP tests: serves the files of one folder under
 * `/crawl/`, answering Range requests (206) like Common Crawl's server, or misbehaving as servers do:
 * `drop` cuts every response after `dropAfter` bytes (destroying the socket mid-body), `norange`
 * ignores Range and always sends the whole file (200), its n-th answer for a file cut after
 * n × `dropAfter` bytes. It records every request's Range header.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

export type ServerMode = "range" | "drop" | "norange";

export interface CrawlServer {
  /** base URL whose paths are the served files (`<base><file name>`) */
  base: string;
  /** Range headers received, by file name ("" when none) */
  ranges: Map<string, string[]>;
  close(): Promise<void>;
}

export async function serveCrawl(dir: string, mode: ServerMode, dropAfter = 64 * 1024): Promise<CrawlServer> {
  const ranges = new Map<string, string[]>();
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "").replace(/^\/crawl\//, ""));
    let body: Buffer;
    try {
      if (name.includes("/") || name.includes("..")) throw new Error("no such file");
      body = readFileSync(join(dir, name));
    } catch {
      res.writeHead(404).end("not found");
      return;
    }
    const range = req.headers.range ?? "";
    ranges.set(name, [...(ranges.get(name) ?? []), range]);
    const m = /^bytes=(\d+)-(\d*)$/.exec(range);
    if (mode === "norange" || !m) {
      res.writeHead(200, { "content-length": body.length, "content-type": "application/octet-stream" });
      // the n-th request of a file is cut after n × dropAfter bytes: the client resumes, gets the whole file again, skips
      const cut = dropAfter * ranges.get(name)!.length;
      if (mode === "norange" && body.length > cut) res.write(body.subarray(0, cut), () => res.socket?.destroy());
      else res.end(body);
      return;
    }
    const first = Number(m[1]);
    const last = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    if (first >= body.length) {
      res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(first, last + 1);
    res.writeHead(206, { "content-length": part.length, "content-range": `bytes ${first}-${last}/${body.length}`, "content-type": "application/octet-stream" });
    if (mode === "drop" && part.length > dropAfter) {
      // half the file, then the connection dies: the client must resume from where it got to
      res.write(part.subarray(0, dropAfter), () => res.socket?.destroy());
      return;
    }
    res.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/crawl/`,
    ranges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
