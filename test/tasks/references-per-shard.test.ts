/**
 * References per page and per shard are never held: revisions come to the extract task in chunks of
 * a few thousand references, the records of a page past the first few thousand wait for its end in
 * the work store, and of each use only its key and count stay in memory. So a page just under
 * extraction.maxPageBytes (8 MiB) dense with file links (291,340 references), followed by an ordinary
 * page, is extracted whole with a heap limit of 224 MB, of which ~100 MB are the caption models. (When
 * a page's references, their features and its records were all held, the same shard needed more than
 * 256 MB: "JavaScript heap out of memory".) The heap limit, not a measured RSS, is the test: it bounds
 * what is live, whatever the machine; RSS also depends on how far V8 lets the heap grow past that
 * (capped by `paracap run`, runner/heap-growth.ts; scripts/bench/peak-rss.ts measures it). Captions
 * repeat, so the NLP step stays out of the time.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const ROOT = new URL("../../", import.meta.url).pathname;
const HEAP_MB = 224;

/** One page just under 8 MiB of `[[File:F{i%1000}.jpg|thumb|c{i%997}]]`, then an ordinary page. */
function writeShard(file: string): number {
  const limit = 8 * 1024 * 1024 - 4096;
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; ; i++) {
    const s = `[[File:F${i % 1000}.jpg|thumb|c${i % 997}]]\n`;
    if (n + s.length > limit) break;
    parts.push(s);
    n += s.length;
  }
  const page = (id: number, text: string) => `<page><title>Refs ${id}</title><ns>0</ns><id>${id}</id><revision><id>${id * 10}</id><text xml:space="preserve">${text}</text></revision></page>\n`;
  const after = "[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in 2004.]]";
  writeFileSync(file, `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">\n${page(1, parts.join(""))}${page(2, after)}</mediawiki>\n`);
  return parts.length + 1;
}

describe("references per shard", () => {
  it(`a page of 291,340 references is extracted whole with a ${HEAP_MB} MB heap (its records wait in the work store)`, () => {
    const dir = tempDir("paracap-refs-shard-");
    const file = join(dir, "refs-pages-articles.xml");
    const refs = writeShard(file);
    expect(refs).toBe(291_341);
    const out = join(dir, "out");
    const run = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, "bin/paracap.js", "run", "--input", file, "--out", out, "--tiers", "gold", "--quiet", "--workers", "1"], {
      cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 24,
    });
    expect(run.status, run.stderr.slice(-600)).toBe(0);
    const stats = JSON.parse(readFileSync(join(out, "stats.json"), "utf8")) as { counters: Record<string, number> };
    expect(stats.counters["extract.current.references"]).toBe(refs);
    // 1,000 images × 997 captions: every (image, caption) of the page is distinct, so nothing collapses
    expect(stats.counters["extract.current.shuffle_records"]).toBe(refs);
  });
});
