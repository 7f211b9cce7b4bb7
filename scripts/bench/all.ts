/**
 * Runs every benchmark in sequence, each in its own process (so one's JIT state and heap do not
 * colour the next), and ends with a one-line status per benchmark. Benchmarks print throughput
 * and ratios to baselines measured in the same run; none of them is a test.
 *
 *   npm run bench                 (all)
 *   npm run bench -- run metrics  (only those whose file name contains one of the words)
 *
 * Rounds can be lowered for a quick pass: BENCH_ROUNDS=1 (run.ts, cloud-shard.ts).
 */
import { spawnSync } from "node:child_process";

const BENCHES = [
  ["dump-reader.ts", "dump reader vs plain bz2 decoding (and the saxes reader it replaced)"],
  ["bz2-decoders.ts", "bz2: the binary with and without the unverified-bytes hold-back; JS block decoder vs unbzip2-stream"],
  ["bz2-parallel.ts", "bz2 on every core with a single-threaded decoder: JS blocks on worker threads, bzip2 children on repacked blocks, vs one thread/process and lbzip2"],
  ["extract.ts", "wikitext image extraction vs wtf_wikipedia"],
  ["caption-lists.ts", "caption-list source per layout (CC12M TSV, headed TSV, CSV, JSONL, parquet), records/s vs the CC3M TSV"],
  ["caption-features.ts", "caption features vs plain wink-nlp"],
  ["sentence-classifier.ts", "sentence classifier quality and tagging speed"],
  ["metrics.ts", "syntactic metrics vs naive Levenshtein"],
  ["filter-path.ts", "group/dedup filter path: sync vs async filters (and a per-item cache), same records"],
  ["semantic.ts", "word-vector cosine and exact WMD vs the syntactic scorer; vector load time and memory"],
  ["transformer.ts", "embedding/BERTScore scorers (tiny and MiniLM-shaped models) vs the syntactic scorer"],
  ["warc.ts", "WARC → references, MB/s per core of uncompressed WARC, vs gzip -dc and warcio's record iteration"],
  ["warc-ab.ts", "WARC → documents / references / captions of this checkout vs BENCH_BASE's, rounds alternated in one process (skipped without BENCH_BASE)"],
  ["revision-reuse.ts", "history revisions replayed or reused without scanning; byte path + reuse vs the string path"],
  ["fixed-costs.ts", "ms of start-up, module loading, word vectors and chart rendering"],
  ["run.ts", "end-to-end run vs plain bz2 decoding (lbzip2 and bzip2), own CPU per MB vs the decoder's, peak RSS, load average"],
  ["consumer-ceiling.ts", "a stand-in reader of the decoder's output at fixed CPU costs per MB vs lbzip2 -dc > /dev/null: the ceiling of run.ts's ratio here"],
  ["tier-up.ts", "run (embedded sample, 1 and 4 history copies) with V8's default interrupt budget vs paracap's raised one: own CPU, wall"],
  ["heap-flags.ts", "run --history under candidate V8 heap flags (the relaunch's): CPU, peak RSS, full GCs, vs no flag"],
  ["cloud-shard.ts", "cloud extract shard time/memory and full-dump projection"],
  ["peak-rss.ts", "peak memory on hostile inputs (2 M references in a shard, one image on 5,000 pages, 1 GiB <title>, attribute and <text> in a .gz) and the 151 MB history"],
  ["publish.ts", "report.html, Parquet and dataset card vs one read pass over the dataset"],
  ["annotate.ts", "annotation sample, labels file read/append, agreement vs one read pass / a plain parse"],
  ["image-hash-variants.ts", "hash modes' Hamming distances from the photo to its variants (writes docs/image-hash-variants.md)"],
  ["image-hash.ts", "decode + all image hashes per core vs sharp-phash, the decode alone and the code before; ms per image by format"],
  ["hash-index.ts", "near-duplicate grouping of 1,000,000 64-bit hashes vs brute force (recall on 20,000), peak RSS"],
  ["index-reads.ts", "hash-index tasks over their own partition of hashes vs over every hash: records read and time, same edges"],
  ["minhash.ts", "Chung & Knight min-hash (paper's rule and verified) vs exact Jaccard on the Verne translations: P/R/F, scatter, runtime to 10^5 paragraphs"],
  ["deja.ts", "Déjà canonical forms and grouping vs plain wink-nlp readDoc"],
] as const;

const only = process.argv.slice(2);
const selected = BENCHES.filter(([file]) => only.length === 0 || only.some((w) => file.includes(w)));
const results: Array<{ file: string; ok: boolean; seconds: number }> = [];
for (const [file, what] of selected) {
  console.log(`\n=== ${file}: ${what}`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--import", "tsx", new URL(`./${file}`, import.meta.url).pathname], { stdio: "inherit" });
  results.push({ file, ok: r.status === 0, seconds: (performance.now() - t0) / 1000 });
}
console.log("\n=== summary");
for (const r of results) console.log(`${r.ok ? "ok    " : "FAILED"} ${r.file.padEnd(24)} ${r.seconds.toFixed(0).padStart(5)} s`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
