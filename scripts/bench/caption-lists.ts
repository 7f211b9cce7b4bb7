/**
 * Benchmark: the caption-list source reading one list in each layout it takes, through its own plan
 * and shard reader (single thread, no extract stage): records/s and MB/s per layout, and the ratio to
 * Conceptual Captions 3M's `caption<TAB>url` TSV (the baseline, read before the other layouts were).
 * The list: the 7,900 real lines of shared/data's CC excerpt (else the repo's 500-line fixture),
 * repeated to about 10 MB of TSV, written in each layout (also as a Flickr token file, a COCO captions
 * JSON, a Karpathy split JSON, a Hub parquet with a list column and JSON lines with a list: five captions an image).
 * Then the planner's scan of a big CSV (the record starts it cuts at: csv-records.ts csvCuts) against
 * reading the same file's bytes in the same ranges and nothing else: a CSV of about BENCH_CSV_MB (500)
 * MB written from the same real lines, every tenth caption quoted with a line break in it.
 * Run: npx tsx scripts/bench/caption-lists.ts [repeats] [rounds]   (BENCH_CSV_MB=0: no scan measured)
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { ParacapConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { csvScanBytes } from "../../shared/sources/caption-tsv/csv-records.ts";
import { firstExisting, sharedData, tempDir } from "./lib/common.ts";

const SOURCE = sharedData("conceptual-captions/gcc-validation-part1-lines00001-07900.tsv") ?? firstExisting("test/fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const lines = readFileSync(SOURCE, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t") as [string, string]);
const repeats = Number(process.argv[2] ?? Math.ceil(10e6 / statSync(SOURCE).size));
const rounds = Number(process.argv[3] ?? process.env.BENCH_ROUNDS ?? 3);
// each repeat its own URLs, as a real list of that size has
const rows = Array.from({ length: repeats }, (_, r) => lines.map(([caption, url]) => ({ caption, url: r === 0 ? url : `${url}?r=${r}` }))).flat();
const q = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const layouts: Array<[string, string | Uint8Array]> = [
  ["cc3m.tsv", rows.map((r) => `${r.caption}\t${r.url}\n`).join("")],
  ["cc12m.tsv", rows.map((r) => `${r.url}\t${r.caption}\n`).join("")],
  ["laion-header.tsv", "SAMPLE_ID\tURL\tTEXT\tWIDTH\n" + rows.map((r, i) => `${i}\t${r.url}\t${r.caption}\t640\n`).join("")],
  ["hub.csv", "image_url,caption\n" + rows.map((r) => `${q(r.url)},${q(r.caption)}\n`).join("")],
  ["redcaps.jsonl", rows.map((r) => JSON.stringify({ url: r.url, caption: r.caption }) + "\n").join("")],
  ["laion.parquet", new Uint8Array(parquetWriteBuffer({ columnData: [{ name: "URL", data: rows.map((r) => r.url), type: "STRING" }, { name: "TEXT", data: rows.map((r) => r.caption), type: "STRING" }], rowGroupSize: 50_000 }))],
  // images named by file name, five captions each (Flickr30k's token file), and COCO's JSON (streamed, one shard)
  ["flickr.token", rows.map((r, i) => `${1000092795 + Math.floor(i / 5)}.jpg#${i % 5}\t${r.caption}\n`).join("")],
  [
    "captions_coco.json",
    JSON.stringify({
      info: { description: "bench" },
      images: Array.from({ length: Math.ceil(rows.length / 5) }, (_, id) => ({ id, file_name: `COCO_${id}.jpg`, coco_url: `http://images.cocodataset.org/train2014/COCO_${id}.jpg` })),
      annotations: rows.map((r, i) => ({ image_id: Math.floor(i / 5), id: i, caption: r.caption })),
    }),
  ],
  // several captions an image together: Karpathy's split JSON (streamed, one shard), the Hub's parquet with a
  // list column (nlphuji/flickr30k's layout, each image's bytes a 2 KB stand-in, not read), JSON lines with a list
  ["dataset_flickr30k.json", JSON.stringify({ images: groupsOf5().map((g, i) => ({ filename: `${1000092795 + i}.jpg`, imgid: i, split: "train", sentences: g.map((r, j) => ({ tokens: r.caption.split(" "), raw: r.caption, imgid: i, sentid: i * 5 + j })) })), dataset: "flickr30k" })],
  ["flickr30k-hub.parquet", hubParquet()],
  ["captions-list.jsonl", groupsOf5().map((g, i) => JSON.stringify({ image: `${1000092795 + i}.jpg`, captions: g.map((r) => r.caption) }) + "\n").join("")],
];

/** The rows five at a time: one image's captions. */
function groupsOf5(): (typeof rows)[] {
  return Array.from({ length: Math.ceil(rows.length / 5) }, (_, i) => rows.slice(i * 5, i * 5 + 5));
}

/** nlphuji/flickr30k's schema: `image` struct{bytes, path}, `caption` list<string>, `filename`. */
function hubParquet(): Uint8Array {
  const groups = groupsOf5();
  const schema = [
    { name: "root", num_children: 3 },
    { name: "image", repetition_type: "OPTIONAL", num_children: 2 },
    { name: "bytes", type: "BYTE_ARRAY", repetition_type: "OPTIONAL" },
    { name: "path", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "caption", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { name: "element", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "filename", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
  ];
  const image = new Uint8Array(2048).map((_, i) => (i * 31) & 0xff);
  return new Uint8Array(
    parquetWriteBuffer({
      schema: schema as never,
      columnData: [
        { name: "image", data: groups.map((_, i) => ({ bytes: image, path: `${1000092795 + i}.jpg` })) as never },
        { name: "caption", data: groups.map((g) => g.map((r) => r.caption)) as never },
        { name: "filename", data: groups.map((_, i) => `${1000092795 + i}.jpg`) },
      ],
      rowGroupSize: 10_000,
    }),
  );
}

const dir = tempDir("pcbench-lists-");
const config = ParacapConfig.parse({});

/** Seconds to read every record of the file (best of `rounds`), and how many were read. */
async function measure(path: string, times = rounds): Promise<{ seconds: number; records: number }> {
  let best = Infinity;
  let records = 0;
  for (let r = 0; r < times; r++) {
    const t0 = process.hrtime.bigint();
    const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 32 << 20, LOCAL_VIEW);
    if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
    records = 0;
    const counters = new Counters();
    for (const shard of shardsOf(path, captionTsvSource.name, "current", ranges, 0)) for await (const _ of captionTsvSource.documents(shard, fileBytes(path), config, counters)) records++;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return { seconds: best, records };
}

console.log(`${rows.length.toLocaleString("en-US")} records (${lines.length} real CC lines × ${repeats}), best of ${rounds} rounds after a warm-up pass, one thread`);
const paths = layouts.map(([name, data]) => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
});
// one unmeasured pass over every layout: the first measured would otherwise pay the JIT's warm-up
for (const path of paths) await measure(path, 1);
let baseline: number | null = null;
for (const [i, [name]] of layouts.entries()) {
  const path = paths[i]!;
  const mb = statSync(path).size / 1e6;
  const { seconds, records } = await measure(path);
  if (records !== rows.length) throw new Error(`${name}: ${records} records read of ${rows.length}`);
  const perSecond = records / seconds;
  baseline ??= perSecond;
  console.log(`${name.padEnd(22)} ${mb.toFixed(1).padStart(6)} MB  ${(perSecond / 1e3).toFixed(0).padStart(6)} k records/s  ${(mb / seconds).toFixed(1).padStart(6)} MB/s  ${(perSecond / baseline).toFixed(2)}× the CC3M TSV`);
}

// the planner's scan of a big CSV, against reading its bytes in the same ranges
const csvMb = Number(process.env.BENCH_CSV_MB ?? 500);
if (csvMb > 0) {
  const path = join(dir, "big.csv");
  const fd = openSync(path, "w");
  writeSync(fd, "image_url,caption\n");
  let size = 0;
  for (let r = 0; size < csvMb * 1e6; r++) {
    const text = lines.map(([caption, url], i) => `${q(`${url}?r=${r}`)},${q(i % 10 === 3 ? `${caption}\n"http://x/y.jpg","a caption"` : caption)}\n`).join("");
    writeSync(fd, text);
    size += Buffer.byteLength(text);
  }
  closeSync(fd);
  const bytes = statSync(path).size;
  const shardBytes = 32 << 20;
  const time = async (f: () => Promise<unknown>) => {
    let best = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      await f();
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    return best;
  };
  const step = csvScanBytes(shardBytes);
  const readOnly = await time(async () => {
    for (let at = 0; at < bytes; at += step) await LOCAL_VIEW.readRange!(path, at, Math.min(bytes, at + step));
  });
  let shards = 0;
  const scan = await time(async () => {
    const ranges = await captionTsvSource.planRanges!({ name: path, size: bytes }, shardBytes, LOCAL_VIEW);
    shards = ranges === null || "wait" in ranges ? 1 : ranges.length;
  });
  console.log(`\nCSV planning scan, ${(bytes / 1e6).toFixed(0)} MB (${shards} shards of ~${shardBytes >> 20} MiB), ranges of ${step >> 20} MiB, best of ${rounds}:`);
  console.log(`read only          ${(bytes / 1e6 / readOnly).toFixed(0).padStart(6)} MB/s  ${readOnly.toFixed(2)} s`);
  console.log(`read + scan (plan) ${(bytes / 1e6 / scan).toFixed(0).padStart(6)} MB/s  ${scan.toFixed(2)} s  ${(scan / readOnly).toFixed(2)}× the read`);
  rmSync(path);
}
