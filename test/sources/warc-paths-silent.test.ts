/**
 * A WARC server that accepts connections and then says nothing: a paths-list read tells what it is
 * waiting for (the URL and how long it goes on waiting) instead of minutes without a line, and gives
 * up within the run's `extraction.warcHttp.maxWaitSeconds` (retries alone would allow far longer),
 * the file counted as given up; planning's size request gives up too and the file is read whole.
 * The bounds are set small, and nothing here depends on how fast the machine is: retries are set high
 * enough that only the total wait can end the read.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { warcSkippedCounter } from "../../shared/core/counter-names.ts";
import { Counters } from "../../shared/core/counters.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { HttpReadError, resumableGet } from "../../shared/io/http-bytes.ts";
import { pathsSource } from "../../shared/sources/warc/warc-paths-source.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** Accepts every connection, reads what it is sent, answers nothing. */
let server: Server;
const sockets = new Set<Socket>();
let base = "";
beforeAll(async () => {
  server = createServer((s) => {
    sockets.add(s);
    s.on("data", () => {});
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/crawl/`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("a silent WARC server", () => {
  it("resumableGet says what it waits for, and gives up at maxWaitMs however many retries are left", async () => {
    const url = `${base}silent.warc.gz`;
    const told: string[] = [];
    let retries = 0;
    const read = (async () => {
      for await (const _ of resumableGet(url, 0, undefined, { idleMs: 100, noticeMs: 30, maxWaitMs: 500, retries: 1000, backoffMs: 1, onRetry: () => retries++, onWait: (t) => told.push(t) }));
    })();
    await expect(read).rejects.toThrow(HttpReadError);
    await expect(read).rejects.toThrow(/gave up: no data for [\d.]+ s, the most a read waits is 0\.5 s/);
    expect(retries).toBeLessThan(1000);
    expect(told[0]).toMatch(new RegExp(`^waiting for ${url.replace(/[.]/g, "\\.")} \\(byte 0\\): no data for [\\d.]+ s; a silent connection is retried after 0\\.1 s, the file given up after 0\\.5 s without data$`));
    for (const t of told) expect(t).toContain(url);
  });

  it("each retry is told too: what failed, which retry, and when", async () => {
    // a server that hangs up at once: every attempt fails without waiting on a timer
    const rude = createServer((s) => s.destroy());
    await new Promise<void>((r) => rude.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(rude.address() as AddressInfo).port}/x.warc.gz`;
      const told: string[] = [];
      const read = (async () => {
        for await (const _ of resumableGet(url, 0, undefined, { retries: 2, backoffMs: 1, onWait: (t) => told.push(t) }));
      })();
      await expect(read).rejects.toThrow(/gave up after 2 retries/);
      expect(told.map((t) => t.replace(/: .*; retry/, ": …; retry"))).toEqual([1, 2].map((k) => `${url} (byte 0): …; retry ${k} of 2 in 0 s (no data for ${/no data for ([\d.]+ s)/.exec(told[k - 1]!)![1]} of at most 300 s)`));
    } finally {
      await new Promise<void>((r) => rude.close(() => r()));
    }
  });

  it("a paths list over it: the wait is told, the file counted as given up within the configured wait; planning reads it whole", async () => {
    const dir = tempDir("paracap-silent-");
    const list = join(dir, "warc.paths");
    writeFileSync(list, "silent.warc.gz\n");
    const config = resolveConfig({ extraction: { warcBaseUrl: base, warcHttp: { idleSeconds: 0.1, retries: 100, maxWaitSeconds: 0.4 } } });
    const told: string[] = [];
    const source = pathsSource({ http: { backoffMs: 1 }, notify: (t) => told.push(t) });
    // planning: the size request gets no answer, the line stays one whole shard
    const ranges = await source.planRanges!({ name: list, size: 1 }, 1000, { exists: async () => true, withLocalCopy: (n, use) => use(n), config });
    expect(ranges).toEqual([{ start: 0, end: 1, fragment: false }]);
    expect(told.some((t) => t.startsWith(`${base}silent.warc.gz: `) && t.includes("size not known"))).toBe(true);
    told.length = 0;
    const counters = new Counters();
    const docs = source.documents({ id: "s", uri: list, source: "warc-paths", kind: "current", start: 0, end: 1, fragment: false }, fileBytes(list), config, counters);
    const read = (async () => {
      for await (const _ of docs);
    })();
    await expect(read).rejects.toThrow(DumpError);
    expect(counters.get(warcSkippedCounter("http_failed"))).toBe(1);
    expect(told[0]).toMatch(/^waiting for http:\/\/127\.0\.0\.1:\d+\/crawl\/silent\.warc\.gz \(byte 0\): no data for [\d.]+ s; a silent connection is retried after 0\.1 s, the file given up after 0\.4 s without data$/);
  });

  it("the settings are bounded and absent unless set (a run that sets none keeps its configuration)", () => {
    expect(resolveConfig({}).extraction.warcHttp).toBeUndefined();
    expect(resolveConfig({ extraction: { warcHttp: {} } }).extraction.warcHttp).toEqual({ idleSeconds: 60, retries: 5, maxWaitSeconds: 300 });
    expect(() => resolveConfig({ extraction: { warcHttp: { maxWaitSeconds: 1e9 } } })).toThrow(/warcHttp\.maxWaitSeconds/);
  });
});
