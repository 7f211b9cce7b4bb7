/**
 * WARC → references throughput, in MB/s per core of UNCOMPRESSED WARC, on the real crawls of
 * shared/data/warc (dolma, pywb iana, Common Crawl), against two baselines measured in the same run:
 *   gzip -dc        the same files decompressed by the gzip binary (its CPU time, child process)
 *   warcio          warcio's own record iteration (WARCParser over the .warc.gz, every record
 *                   read to its end): what reading WARCs costs at all in JS
 *   ours/read       the WARC source's documents (framing, bounds, HTML records with their bodies),
 *                   gzip members parsed by the sync member parser (member-records.ts)
 *   ours/read wacz  the same three WARCs stored in one WACZ (a zip, as Browsertrix writes it): the zip's
 *                   directory read by ranged reads, each WARC read in place; its ratio to ours/read
 *   … w             the same with every record parsed by warcio (`parser: "warcio"`, the reader
 *                   before the sync parser; its reference and fallback)
 *   ours/refs       documents → references: body decoding, HTML captions, web filters, caption
 *                   features (the full extract work of one shard), one extractor for every round
 *                   (as a worker keeps one over a run's shards: its caches of caption features and
 *                   language verdicts stay warm across the rounds, which repeat the same pages)
 *   ours/refs cold  the same with a new extractor each round: nothing cached carries over
 * Per-core figures divide by CPU time (process.cpuUsage), so a busy machine slows them less. Files are
 * read as the runner reads them (io/file-bytes.ts: 1 MB reads; the readers given a stream get the same).
 *   npx tsx scripts/bench/warc.ts     (BENCH_ROUNDS=n to change the repetitions, default 20)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createReadStream, readFileSync } from "node:fs";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import { WARCParser } from "warcio";
import { Counters } from "../../shared/core/counters.ts";
import { ParacapConfig } from "../../shared/core/config.ts";
import { warcDocuments, warcSource, type WarcPage } from "../../shared/sources/warc/warc-source.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { documentExtractor } from "../../shared/pipeline/extract-stage.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeZip } from "../../test/web/warc/zip-writer.ts";

const DIR = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const FILES = ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"].map((f) => DIR + f);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const uncompressed = FILES.reduce((n, f) => n + gunzipSync(readFileSync(f)).length, 0);
const config = ParacapConfig.parse({});

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function measure(name: string, body: () => Promise<void>): Promise<number> {
  await body(); // warm-up
  const t0 = cpuSeconds();
  const w0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) await body();
  const cpu = cpuSeconds() - t0;
  const wall = (performance.now() - w0) / 1000;
  const mbps = (uncompressed * ROUNDS) / 1e6 / cpu;
  console.log(`${name.padEnd(17)} ${mbps.toFixed(1).padStart(7)} MB/s/core  (cpu ${cpu.toFixed(2)} s, wall ${wall.toFixed(2)} s)`);
  return mbps;
}

function gzipBaseline(): number {
  // the binary's own CPU time, from bash's `times` after the loop
  const script = `for i in $(seq ${ROUNDS}); do for f in ${FILES.map((f) => `'${f}'`).join(" ")}; do gzip -dc "$f" > /dev/null; done; done; times`;
  const out = execFileSync("bash", ["-c", script], { encoding: "utf8" }).trim().split("\n").pop()!;
  const secs = out.split(/\s+/).map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t)!;
    return Number(m[1]) * 60 + Number(m[2]);
  });
  const cpu = secs[0]! + secs[1]!;
  const mbps = (uncompressed * ROUNDS) / 1e6 / cpu;
  console.log(`${"gzip -dc".padEnd(17)} ${mbps.toFixed(1).padStart(7)} MB/s/core  (cpu ${cpu.toFixed(2)} s)`);
  return mbps;
}

const shard = (uri: string): ShardSpec => ({ id: "b", uri, source: "warc", kind: "current", start: null, end: null, fragment: false });
/** the runner's own byte source of a local file (1 MB reads), as `paracap run` reads it */
const bytes = (path: string) => fileBytes(path);
/** the same reads for the readers that take a stream (warcio, the warcio-parsed variant) */
const stream = (path: string, start = 0) => createReadStream(path, { start, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;

/** The WARC source's documents, read by the sync member parser (the default) or by warcio alone (the reader before it). */
async function ourDocs(onDoc: (d: WarcPage) => void, parser: "sync" | "warcio" = "sync"): Promise<void> {
  for (const f of FILES) {
    const docs = parser === "sync" ? warcSource.documents(shard(f), bytes(f), config, new Counters()) : warcDocuments({ file: basename(f), label: f, open: (start) => stream(f, start), start: 0, end: null, parser }, config, new Counters());
    for await (const d of docs) onDoc(d);
  }
}

console.log(`${FILES.length} real WARCs, ${(uncompressed / 1e6).toFixed(2)} MB uncompressed, ${ROUNDS} rounds`);
if (spawnSync("gzip", ["--version"]).status !== 0) throw new Error("gzip binary not found");
const gz = gzipBaseline();
const warcio = await measure("warcio", async () => {
  for (const f of FILES) {
    for await (const record of WARCParser.iterRecords(stream(f))) await record.readFully();
  }
});
const readOld = await measure("ours/read w", () => ourDocs(() => {}, "warcio"));
const read = await measure("ours/read", () => ourDocs(() => {}));
const waczDir = mkdtempSync(join(tmpdir(), "paracap-bench-wacz-"));
const wacz = join(waczDir, "crawl.wacz");
writeFileSync(wacz, writeZip(FILES.map((f) => ({ name: `archive/${basename(f)}`, data: readFileSync(f) }))));
const waczRead = await measure("ours/read wacz", async () => {
  for await (const _ of warcSource.documents(shard(wacz), bytes(wacz), config, new Counters()));
});
rmSync(waczDir, { recursive: true, force: true });
// one extractor per reader, each warmed by its own first round
const extractOld = documentExtractor(warcSource, config, new Counters(), await warcSource.prepare!(config));
const extract = documentExtractor(warcSource, config, new Counters(), await warcSource.prepare!(config));
let refs = 0;
const fullOld = await measure("ours/refs w", () => ourDocs((d) => void extractOld(d, "current"), "warcio"));
const full = await measure("ours/refs", () => ourDocs((d) => void (refs += extract(d, "current").refs.length)));
console.log(`references per round: ${refs / (ROUNDS + 1)}`);
const prepared = await warcSource.prepare!(config);
const coldRun = (parser: "sync" | "warcio") => () => {
  const fresh = documentExtractor(warcSource, config, new Counters(), prepared);
  return ourDocs((d) => void fresh(d, "current"), parser);
};
const coldOld = await measure("ours/refs cold w", coldRun("warcio"));
const cold = await measure("ours/refs cold", coldRun("sync"));
console.log(`ratios: ours/refs = ${(full / gz).toFixed(3)} × gzip -dc, ${(full / warcio).toFixed(2)} × warcio iteration (cold: ${(cold / gz).toFixed(3)} ×, ${(cold / warcio).toFixed(2)} ×); ours/read = ${(read / warcio).toFixed(2)} × warcio`);
console.log(`a WACZ of the same WARCs: read ${(waczRead / read).toFixed(2)} × the WARCs on their own`);
console.log(`sync member parser against warcio's records in our reader (w): read ${(read / readOld).toFixed(2)} ×, refs ${(full / fullOld).toFixed(2)} ×, refs cold ${(cold / coldOld).toFixed(2)} ×`);
console.log(`target ≥ 50 MB/s/core end to end: ${full >= 50 ? "met" : "NOT met"}`);
