/**
 * 7z, xz and zstd dumps through their programs (external-decoders.ts), alternated in rounds in the
 * same run: paracap's decoded stream (openDumpStream, as the dump reader gets it) against the program
 * alone writing to /dev/null, and `lbzip2 -dc` of the bz2 the archives were made from as the
 * baseline. The archives are made from the 151 MB history excerpt at the start (7z -mx=5 as Wikimedia
 * writes them, xz -6, zstd -19 --long): not timed.
 *
 *   npx tsx scripts/bench/external-decoders.ts [history.xml.bz2]   (BENCH_ROUNDS=n, default 3)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { findDecoder, type ExternalFormat } from "../../shared/dump/external-decoders.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";

const DATA = new URL("../../../shared/data/wikipedia-history/", import.meta.url).pathname;
const REPO_SAMPLE = new URL("../../shared/sample/enwiki-Anarchism-history-sample.xml.bz2", import.meta.url).pathname;
const big = process.argv[2] ?? (existsSync(`${DATA}enwiki-Anarchism-history-rev04000-05999.xml.bz2`) ? `${DATA}enwiki-Anarchism-history-rev04000-05999.xml.bz2` : REPO_SAMPLE);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const lbzip2 = findSystemBzip2(undefined, ["lbzip2", "bzip2"]);
if (lbzip2 === null) throw new Error("no lbzip2 or bzip2 on PATH: the baseline needs one");

const dir = mkdtempSync(join(tmpdir(), "paracap-bench-ext-"));
const xml = join(dir, "history.xml");
execFileSync("sh", ["-c", `${lbzip2} -dc "${big}" > "${xml}"`]);
const MB = statSync(xml).size / 1e6;
const archives: { format: ExternalFormat; path: string; bin: string }[] = [];
const make: Record<ExternalFormat, (bin: string, out: string) => void> = {
  "7z": (bin, out) => execFileSync(bin, ["a", "-bd", "-mx=5", out, xml], { stdio: "ignore" }),
  xz: (bin, out) => execFileSync("sh", ["-c", `${bin} -6 -T1 -c "${xml}" > "${out}"`]),
  zstd: (bin, out) => execFileSync(bin, ["-q", "-19", "--long", xml, "-o", out]),
};
for (const format of ["7z", "xz", "zstd"] as const) {
  const bin = findDecoder(format);
  if (bin === null) {
    console.log(`${format}: no program on PATH, not measured`);
    continue;
  }
  const path = join(dir, `history.xml.${format === "zstd" ? "zst" : format}`);
  make[format](bin, path);
  archives.push({ format, path, bin });
}

const args: Record<ExternalFormat, (p: string) => string[]> = { "7z": (p) => ["e", "-so", "-bd", "-y", p], xz: (p) => ["-dc", p], zstd: (p) => ["-dc", "--long=31", p] };
const alone = (bin: string, argv: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(bin, argv, { stdio: ["ignore", "ignore", "ignore"] });
  if (r.status !== 0) throw new Error(`${bin} failed`);
  return (performance.now() - t0) / 1000;
};
const ours = async (path: string) => {
  const t0 = performance.now();
  let n = 0;
  for await (const c of openDumpStream(path)) n += (c as Buffer).length;
  if (Math.abs(n / 1e6 - MB) > 1e-6) throw new Error(`decoded ${n} bytes, expected ${MB * 1e6}`);
  return (performance.now() - t0) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`${MB.toFixed(1)} MB of XML from ${big}; ${rounds} alternated rounds`);
const times = new Map<string, number[]>();
const add = (k: string, s: number) => times.set(k, [...(times.get(k) ?? []), s]);
for (let r = 0; r < rounds; r++) {
  add("lbzip2", alone(lbzip2, ["-dc", big]));
  for (const a of archives) {
    add(`${a.format} alone`, alone(a.bin, args[a.format](a.path)));
    add(`${a.format} paracap`, await ours(a.path));
  }
}
const base = median(times.get("lbzip2")!);
console.log(`baseline ${lbzip2} -dc (bz2, ${(statSync(big).size / 1e6).toFixed(1)} MB): ${base.toFixed(2)} s, ${(MB / base).toFixed(0)} MB/s of XML`);
for (const a of archives) {
  const p = median(times.get(`${a.format} alone`)!);
  const o = median(times.get(`${a.format} paracap`)!);
  console.log(`${a.format} (${(statSync(a.path).size / 1e6).toFixed(1)} MB): program alone ${p.toFixed(2)} s, through paracap ${o.toFixed(2)} s = ${(MB / o).toFixed(0)} MB/s; paracap/program ${(p / o).toFixed(2)}× its speed, ${(base / o).toFixed(2)}× lbzip2's`);
}
rmSync(dir, { recursive: true, force: true });
