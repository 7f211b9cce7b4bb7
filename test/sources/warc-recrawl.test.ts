/**
 * Re-crawls feed the history tier as revisions do: the real page of the dolma capture
 * (soldaini.net, 2024) and the same page crawled again a year later with its image's alt text
 * reworded, each in its own WARC, given as history inputs. The two captures are two revisions of one
 * page, so bronze pairs the old and the new alt text of the image; either crawl alone pairs nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { warcSource, type WarcPage } from "../../shared/sources/warc/warc-source.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const DOLMA = new URL("../../../shared/data/warc/dolma-sample-0000.warc.gz", import.meta.url).pathname;
const PAGE = "https://soldaini.net/";
const ALT_2024 = "A raccoon wearing a top hat and holding a pizza slice. Luca sometimes uses this image as their online profile picture.";
const ALT_2025 = "A raccoon in a top hat holds a slice of pizza. Luca sometimes uses this picture as an online profile image.";

/** One uncompressed WARC/1.0 response record of `body` captured at `date`. */
function warcOf(uri: string, date: string, id: string, body: Buffer): Buffer {
  const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
  const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:${id}>\r\nWARC-Date: ${date}\r\nWARC-Target-URI: ${uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), http, Buffer.from("\r\n\r\n")]);
}

describe("re-crawls of a site feed the history tier", () => {
  let dir: string;
  beforeAll(async () => {
    // the page as the 2024 crawl stored it (plain HTML, not content-encoded), and a 2025 re-crawl with the alt text reworded
    let page: WarcPage | null = null;
    const shard = { id: "d", uri: DOLMA, source: "warc", kind: "current" as const, start: null, end: null, fragment: false };
    for await (const d of warcSource.documents(shard, fileBytes(DOLMA), resolveConfig({}), new Counters())) if (d.uri === PAGE) page = d;
    expect(page).not.toBeNull();
    expect(page!.headers["content-encoding"]).toBeUndefined();
    const html = page!.body.toString("utf8");
    expect(html).toContain(`alt="${ALT_2024}"`);
    dir = tempDir("paracap-recrawl-");
    writeFileSync(join(dir, "site-2024.warc"), warcOf(PAGE, "2024-04-25T16:24:44Z", "00000000-0000-4000-8000-000000002024", page!.body));
    writeFileSync(join(dir, "site-2025.warc"), warcOf(PAGE, "2025-04-25T16:24:44Z", "00000000-0000-4000-8000-000000002025", Buffer.from(html.replace(`alt="${ALT_2024}"`, `alt="${ALT_2025}"`))));
  });

  const bronze = async (files: string[]) => {
    const out = join(dir, `out-${files.length}`);
    await runLocal({ inputs: files.map((f) => ({ path: join(dir, f), kind: "history" as const })), outDir: out, config: resolveConfig({ partitions: PARTITIONS, tiers: ["bronze"] }), workers: 1, progress: null, fresh: true });
    return readFileSync(join(out, "bronze.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { a: { text: string; revisionId: string }; b: { text: string; revisionId: string } });
  };

  it("two crawls of one page over time: bronze pairs the old and the new alt text of its image", async () => {
    const pairs = await bronze(["site-2024.warc", "site-2025.warc"]);
    const texts = pairs.map((p) => [p.a.text, p.b.text].sort());
    expect(texts).toContainEqual([ALT_2024, ALT_2025].sort());
    // the two sides are the two captures (revision = capture date + record id)
    const pair = pairs.find((p) => [p.a.text, p.b.text].includes(ALT_2025))!;
    expect([pair.a.revisionId, pair.b.revisionId].map((r) => r.slice(0, 4)).sort()).toEqual(["2024", "2025"]);
  });

  it("one crawl alone has a single capture of the page: no pair", async () => {
    expect(await bronze(["site-2024.warc"])).toEqual([]);
  });
});
