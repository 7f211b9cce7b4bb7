/**
 * References per shard are never held: the extract task streams them to the work store through the
 * partitioned writer (bounded buffers), so what a run keeps live is bounded by one page
 * (extraction.maxPageBytes), not by the references of the shard. A generated shard of 2.07 million
 * references (9 pages just under 8 MiB of `[[File:F{p}_{i%1000}.jpg|thumb|cap {i%997}]]`: the bench peak-rss.ts runs the
 * same shard with every caption distinct; here captions repeat so the NLP step stays out of the suite's time) runs to its end
 * with a 512 MB heap and under 1 GiB of RSS. (Without a heap limit node lets the heap grow to several
 * times what is live before collecting: the same run then peaks at ~1.5 GiB of RSS.)
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const ROOT = new URL("../../", import.meta.url).pathname;
const PRELOAD = join(ROOT, "scripts/bench/lib/rusage-preload.mjs");

async function writeShard(file: string, pages: number): Promise<number> {
  const out = createWriteStream(file);
  const write = (s: string) => new Promise<void>((resolve, reject) => (out.write(s) ? resolve() : out.once("drain", resolve).once("error", reject)));
  await write('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">\n');
  const limit = 8 * 1024 * 1024 - 4096;
  let refs = 0;
  for (let p = 0; p < pages; p++) {
    const parts: string[] = [];
    let n = 0;
    for (let i = 0; ; i++) {
      const s = `[[File:F${p}_${i % 1000}.jpg|thumb|cap ${i % 997}]]\n`;
      if (n + s.length > limit) break;
      parts.push(s);
      n += s.length;
    }
    refs += parts.length;
    await write(`<page><title>Refs ${p}</title><ns>0</ns><id>${p + 1}</id><revision><id>${p + 100}</id><text xml:space="preserve">${parts.join("")}</text></revision></page>\n`);
  }
  await write("</mediawiki>\n");
  await new Promise((r) => out.end(r));
  return refs;
}

describe("references per shard", () => {
  it("a shard of 2 million references runs with a 512 MB heap, under 1 GiB of RSS", async () => {
    const dir = tempDir("paracap-refs-shard-");
    const file = join(dir, "refs-pages-articles.xml");
    const refs = await writeShard(file, 9);
    expect(refs).toBeGreaterThanOrEqual(2_000_000);
    const usage = join(dir, "usage.json");
    const out = join(dir, "out");
    const run = spawnSync(process.execPath, ["--max-old-space-size=512", "--import", PRELOAD, "bin/paracap.js", "run", "--input", file, "--out", out, "--tiers", "gold", "--quiet", "--workers", "1"], {
      cwd: ROOT, encoding: "utf8", env: { ...process.env, PARACAP_BENCH_RUSAGE: usage }, maxBuffer: 1 << 24,
    });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const stats = JSON.parse(readFileSync(join(out, "stats.json"), "utf8")) as { counters: Record<string, number> };
    expect(stats.counters["extract.current.references"]).toBe(refs);
    const { maxRssKiB } = JSON.parse(readFileSync(usage, "utf8")) as { maxRssKiB: number };
    expect(maxRssKiB / 1024).toBeLessThan(1024);
  });
});
