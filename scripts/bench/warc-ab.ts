/**
 * WARC → references of THIS checkout against another checkout of paracap (BENCH_BASE, e.g.
 * /work/main: "the code before"), loaded side by side in one process and measured round by round,
 * alternated (ABBA…), so both see the same machine load: on a busy shared machine one run of
 * warc.ts differs from the next by ±25 %, which hides a change of a few per cent. Prints, for
 * WARC → documents and WARC → references (one extractor per checkout, warm as in warc.ts), each
 * checkout's median MB/s per core of uncompressed WARC (CPU time per round) and the paired ratio's
 * median and quartiles; then the HTML caption extractor alone on the crawls' pages.
 *   BENCH_BASE=/work/main npx tsx scripts/bench/warc-ab.ts   (BENCH_ROUNDS=n pairs, default 30)
 */
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

const here = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const base = process.env.BENCH_BASE;
if (!base || !existsSync(`${base}/shared/sources/warc/warc-source.ts`)) {
  console.log("BENCH_BASE is not set to another paracap checkout: nothing to compare (e.g. BENCH_BASE=/work/main)");
  process.exit(0);
}
const DIR = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const FILES = ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"].map((f) => DIR + f);
const MB = FILES.reduce((n, f) => n + gunzipSync(readFileSync(f)).length, 0) / 1e6;
const N = Number(process.env.BENCH_ROUNDS ?? 30);

/** One checkout's reader and extractor, each module loaded from its own tree. */
async function checkout(root: string) {
  const { Counters } = await import(`${root}/shared/core/counters.ts`);
  const { ParacapConfig } = await import(`${root}/shared/core/config.ts`);
  const { warcSource } = await import(`${root}/shared/sources/warc/warc-source.ts`);
  const { documentExtractor } = await import(`${root}/shared/pipeline/extract-stage.ts`);
  const { bodyText } = await import(`${root}/shared/web/warc/http-body.ts`);
  const { extractCaptions } = await import(`${root}/shared/web/html/extract-captions.ts`);
  const config = ParacapConfig.parse({});
  const extract = documentExtractor(warcSource, config, new Counters(), await warcSource.prepare(config));
  const shard = (uri: string) => ({ id: "b", uri, source: "warc", kind: "current", start: null, end: null, fragment: false });
  // the runner's byte source of a local file, as each checkout has it (the same 1 MB reads since it exists)
  const { fileBytes } = await import(`${root}/shared/io/file-bytes.ts`);
  const bytes = (path: string) => fileBytes(path);
  const pages: { html: string; url: string }[] = [];
  for (const f of FILES) {
    for await (const d of warcSource.documents(shard(f), bytes(f), config, new Counters())) {
      const t = bodyText({ headers: new Map(Object.entries(d.headers as Record<string, string>)), body: d.body }, 8 << 20);
      if (!("drop" in t) && /<img\b/i.test(t.text)) pages.push({ html: t.text, url: d.uri });
    }
  }
  return {
    async round(refs: boolean): Promise<void> {
      for (const f of FILES) for await (const d of warcSource.documents(shard(f), bytes(f), config, new Counters())) if (refs) extract(d, "current");
    },
    async captions(): Promise<void> {
      for (const p of pages) extractCaptions(p.html, p.url);
    },
  };
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const median = (a: number[]) => sorted(a)[a.length >> 1]!;

const v = { base: await checkout(base), this: await checkout(here) };
console.log(`${FILES.length} real WARCs, ${MB.toFixed(2)} MB uncompressed; base ${base}, this ${here}; ${N} alternated pairs per measure`);
for (const [name, run] of [
  ["WARC → documents", (k: keyof typeof v) => v[k].round(false)],
  ["WARC → references", (k: keyof typeof v) => v[k].round(true)],
  ["captions alone", (k: keyof typeof v) => v[k].captions()],
] as const) {
  for (let i = 0; i < 3; i++) for (const k of ["base", "this"] as const) await run(k); // warm-up
  const t = { base: [] as number[], this: [] as number[] };
  for (let i = 0; i < N; i++) {
    for (const k of (i % 2 ? ["base", "this"] : ["this", "base"]) as ("base" | "this")[]) {
      const c0 = cpu();
      await run(k);
      t[k].push(cpu() - c0);
    }
  }
  const ratios = sorted(t.base.map((b, i) => b / t.this[i]!));
  const rate = (a: number[]) => (name === "captions alone" ? `${(median(a) * 1000).toFixed(1)} ms CPU per round` : `${(MB / median(a)).toFixed(1)} MB/s/core`);
  console.log(`${name.padEnd(18)} base ${rate(t.base)}, this ${rate(t.this)}; this/base ${ratios[N >> 1]!.toFixed(2)}× (paired median; quartiles ${ratios[N >> 2]!.toFixed(2)}–${ratios[(3 * N) >> 2]!.toFixed(2)})`);
}
