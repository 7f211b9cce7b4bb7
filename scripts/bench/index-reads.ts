/**
 * What the hash-index phase's tasks read and compute: each task over only the hashes extract wrote
 * to its partition (pixels/index-slices.ts) vs each task over every hash of the run (the baseline:
 * what the phase did before), measured in the same run on the same synthetic hashes (clusters of
 * near duplicates within 8 bits, phash's threshold).
 *
 *   npx tsx scripts/bench/index-reads.ts [hashes=200000] [partitions=16,64]
 */
import { candidateEdges, packHashes, type HashedItem } from "../../shared/pixels/hash-index.ts";
import { hashToHex } from "../../shared/pixels/hashes.ts";
import { indexLayout, tasksNeeding } from "../../shared/pixels/index-slices.ts";

const N = Number(process.argv[2] ?? 200_000);
const PARTITIONS = (process.argv[3] ?? "16,64").split(",").map(Number);
const K = 8;

function clustered(n: number, spread: number): HashedItem[] {
  let s = 12345;
  const next = () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0);
  const byHex = new Map<string, bigint>();
  while (byHex.size < n) {
    const centre = (BigInt(next()) << 32n) | BigInt(next());
    for (let c = 1 + (next() % 5); c > 0 && byHex.size < n; c--) {
      let h = centre;
      for (let f = next() % (spread + 1); f > 0; f--) h ^= 1n << BigInt(next() % 64);
      byHex.set(hashToHex(h), h);
    }
  }
  return [...byHex].map(([key, hash]) => ({ key, hash }));
}

/** Every task's slices over `inputOf(q)`: records read, edges, seconds. */
function runTasks(tasks: number, inputOf: (q: number) => HashedItem[]): { reads: number; edges: number; seconds: number } {
  const layout = indexLayout(K, tasks);
  let reads = 0;
  let edges = 0;
  const t0 = performance.now();
  for (let q = 0; q < tasks; q++) {
    const items = inputOf(q);
    reads += items.length;
    const p = packHashes(items);
    for (let s = q; s < layout.slices.length; s += tasks) {
      const { chunk, count, index } = layout.slices[s]!;
      edges += candidateEdges(p, layout.plan, chunk, { count, index }).length;
    }
  }
  return { reads, edges, seconds: (performance.now() - t0) / 1000 };
}

const items = clustered(N, K);
console.log(`hash-index tasks: ${N.toLocaleString("en")} distinct 64-bit hashes, threshold ${K}`);
for (const tasks of PARTITIONS) {
  const layout = indexLayout(K, tasks);
  const mine = Array.from({ length: tasks }, () => [] as HashedItem[]);
  for (const it of items) for (const q of tasksNeeding(it.hash, layout)) mine[q]!.push(it);
  const baseline = runTasks(tasks, () => items);
  const partitioned = runTasks(tasks, (q) => mine[q]!);
  if (partitioned.edges !== baseline.edges) throw new Error(`edges differ: ${partitioned.edges} vs ${baseline.edges}`);
  console.log(
    `  ${tasks} partitions: records read ${partitioned.reads.toLocaleString("en")} vs ${baseline.reads.toLocaleString("en")} (ratio ${(partitioned.reads / baseline.reads).toFixed(3)}); ` +
      `all tasks ${partitioned.seconds.toFixed(1)} s vs ${baseline.seconds.toFixed(1)} s (ratio ${(partitioned.seconds / baseline.seconds).toFixed(2)}); ` +
      `${(N / partitioned.seconds).toFixed(0)} hashes/s over all tasks; same ${partitioned.edges.toLocaleString("en")} edges`,
  );
}
