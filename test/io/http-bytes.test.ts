/**
 * Resumable HTTP range reads (shared/io/http-bytes.ts) against a loopback server serving a real
 * WARC (test/sources/warc-http-server.ts): one that drops every connection mid-file, one that ignores
 * Range, and a missing file.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpReadError, resumableGet } from "../../shared/io/http-bytes.ts";
import { serveCrawl, type CrawlServer, type ServerMode } from "../sources/warc-http-server.ts";

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const IANA = `${WARC}pywb-iana.warc.gz`;

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out);
}

const servers = new Map<ServerMode, CrawlServer>();
beforeAll(async () => {
  for (const mode of ["range", "drop", "norange"] as const) servers.set(mode, await serveCrawl(WARC, mode));
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

describe("resumable HTTP reads", () => {
  it("a connection dropped mid-file is resumed with Range from the byte reached: the same bytes as the file", async () => {
    const server = servers.get("drop")!;
    let retries = 0;
    const got = await collect(resumableGet(`${server.base}pywb-iana.warc.gz`, 0, undefined, { backoffMs: 1, onRetry: () => retries++ }));
    expect(got.equals(readFileSync(IANA))).toBe(true);
    expect(retries).toBe(Math.ceil(readFileSync(IANA).length / (64 * 1024)) - 1);
    const asked = server.ranges.get("pywb-iana.warc.gz")!;
    expect(asked.slice(0, 3)).toEqual(["bytes=0-", "bytes=65536-", "bytes=131072-"]);
  });

  it("a server that ignores Range: the bytes already handed on are skipped, a bounded read stops at its end", async () => {
    const server = servers.get("norange")!;
    let ignored = 0;
    const file = readFileSync(IANA);
    const got = await collect(resumableGet(`${server.base}pywb-iana.warc.gz`, 1000, 300_000, { backoffMs: 1, onRangeIgnored: () => ignored++ }));
    expect(got.equals(file.subarray(1000, 300_000))).toBe(true);
    expect(ignored).toBe(Math.ceil(300_000 / (64 * 1024))); // cut after 64 KB, 128 KB, …: five answers to reach byte 300,000
    expect(server.ranges.get("pywb-iana.warc.gz")!.slice(0, 2)).toEqual(["bytes=1000-299999", "bytes=65536-299999"]);
  });

  it("a missing file fails at once (404 is not retried)", async () => {
    let retries = 0;
    const read = collect(resumableGet(`${servers.get("range")!.base}no-such.warc.gz`, 0, undefined, { onRetry: () => retries++ }));
    await expect(read).rejects.toThrow(HttpReadError);
    await expect(read).rejects.toThrow(/HTTP 404/);
    expect(retries).toBe(0);
  });

  it("a connection that goes silent mid-body is cut after idleMs and the read resumes where it stopped", async () => {
    const file = readFileSync(IANA);
    const asked: string[] = [];
    const server = createServer((req, res) => {
      const range = req.headers.range ?? "";
      asked.push(range);
      const from = Number(/^bytes=(\d+)-/.exec(range)?.[1] ?? 0);
      res.writeHead(206, { "content-length": file.length - from, "content-range": `bytes ${from}-${file.length - 1}/${file.length}` });
      if (asked.length === 1) res.write(file.subarray(from, from + 1000)); // then silence, the socket left open
      else res.end(file.subarray(from));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.warc.gz`;
      let retries = 0;
      const got = await collect(resumableGet(url, 0, undefined, { idleMs: 1000, backoffMs: 1, onRetry: () => retries++ }));
      expect(got.equals(file)).toBe(true);
      // the silence is cut and the read resumes at byte 1000; a starved machine may cut the second
      // answer too (its idle timer can fire before its data is read), which only adds a later range
      expect(asked.slice(0, 2)).toEqual(["bytes=0-", "bytes=1000-"]);
      expect(retries).toBe(asked.length - 1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
