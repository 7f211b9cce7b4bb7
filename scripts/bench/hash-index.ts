/**
 * Near-duplicate grouping of 1,000,000 synthetic 64-bit hashes (clusters of near duplicates in noise)
 * with the multi-index hash index at the default threshold; recall against brute force on a
 * 20,000-hash subset (every pair compared), and the brute-force time projected to the full input as
 * the baseline. Prints peak RSS.
 *
 *   npx tsx scripts/bench/hash-index.ts [hashes=1000000]
 */
import { availableParallelism, loadavg } from "node:os";
import { collapseIdentical, distanceAt, groupEdges, nearDuplicateEdges, packHashes, planIndex, type HashedItem } from "../../shared/pixels/hash-index.ts";
import { DEFAULT_MODE, DEFAULT_THRESHOLDS } from "../../shared/pixels/hashes.ts";

const N = Number(process.argv[2] ?? 1_000_000);
const SUBSET = 20_000;
const K = DEFAULT_THRESHOLDS[DEFAULT_MODE];

/** splitmix64: a deterministic stream of 64-bit values. */
function* splitmix(seed: bigint): Generator<bigint> {
  let s = seed;
  for (;;) {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    yield z ^ (z >> 31n);
  }
}

/** 40% of the hashes in clusters of 2…6 near duplicates (each ≤ K/2 bits from its cluster's centre), 60% noise; shuffled. */
function synthetic(n: number): HashedItem[] {
  const rnd = splitmix(20261125n);
  const next = () => rnd.next().value as bigint;
  const small = (m: number) => Number(next() % BigInt(m));
  const hashes: bigint[] = [];
  while (hashes.length < n * 0.4) {
    const centre = next();
    const size = 2 + small(5);
    for (let c = 0; c < size && hashes.length < n * 0.4; c++) {
      let h = centre;
      const flips = small(K / 2 + 1);
      for (let f = 0; f < flips; f++) h ^= 1n << BigInt(small(64));
      hashes.push(h);
    }
  }
  while (hashes.length < n) hashes.push(next());
  for (let i = hashes.length - 1; i > 0; i--) {
    const j = small(i + 1);
    [hashes[i], hashes[j]] = [hashes[j]!, hashes[i]!];
  }
  return hashes.map((hash, i) => ({ key: `img${String(i).padStart(7, "0")}`, hash }));
}

const items = synthetic(N);
console.log(`${N.toLocaleString("en")} synthetic hashes, threshold ${K} (${DEFAULT_MODE})`);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { unique, copies } = collapseIdentical(packHashes(items));
const plan = planIndex(K, unique.keys.length);
const t1 = performance.now();
const edges = nearDuplicateEdges(unique, plan);
const t2 = performance.now();
const { stats } = groupEdges(unique, edges, { threshold: K }, copies);
const t3 = performance.now();
const seconds = (t3 - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(`plan: ${plan.chunks.length} chunks of ${plan.chunks.map((c) => c.width).join("/")} bits, probe radius ${plan.radius}`);
console.log(`pack+collapse ${((t1 - t0) / 1000).toFixed(1)} s, index ${((t2 - t1) / 1000).toFixed(1)} s, group ${((t3 - t2) / 1000).toFixed(1)} s: total ${seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU (${Math.round(N / seconds).toLocaleString("en")} hashes/s; the machine is shared: load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
console.log(`edges ${stats.edges.toLocaleString("en")}, components ${stats.components.toLocaleString("en")}, split ${stats.splitComponents} (${stats.splitSingletons} left alone), groups ${stats.groups.toLocaleString("en")} holding ${stats.groupedItems.toLocaleString("en")} hashes`);

// recall on a subset: every pair within K among the first SUBSET keys, by brute force
const subset = packHashes(items.slice(0, SUBSET));
const uniqueOf = new Map<string, number>();
copies.forEach((keys, u) => keys.forEach((k) => uniqueOf.set(k, u)));
const found = new Set(edges.map((e) => e.a * unique.keys.length + e.b));
const groupOf = new Map<string, number>();
groupEdges(unique, edges, { threshold: K }, copies).groups.forEach((g, gi) => g.members.forEach((m) => groupOf.set(m.key, gi)));
const b0 = performance.now(); // the baseline: every pair compared
let pairs = 0;
let edgeHits = 0;
let groupHits = 0;
for (let x = 0; x < SUBSET; x++) {
  for (let y = x + 1; y < SUBSET; y++) {
    if (distanceAt(subset, x, y) > K) continue;
    pairs++;
    const [kx, ky] = [subset.keys[x]!, subset.keys[y]!];
    const [ux, uy] = [uniqueOf.get(kx)!, uniqueOf.get(ky)!];
    if (ux === uy || found.has(Math.min(ux, uy) * unique.keys.length + Math.max(ux, uy))) edgeHits++;
    const gx = groupOf.get(kx);
    if (gx !== undefined && gx === groupOf.get(ky)) groupHits++;
  }
}
const bruteSeconds = (performance.now() - b0) / 1000;
const projected = bruteSeconds * (N / SUBSET) ** 2;
console.log(`subset of ${SUBSET.toLocaleString("en")}: ${pairs} pairs within ${K} by brute force (${bruteSeconds.toFixed(1)} s); index recall ${(edgeHits / pairs).toFixed(4)}, same-group recall ${(groupHits / pairs).toFixed(4)}`);
console.log(`baseline: brute force over all ${N.toLocaleString("en")} projected ${Math.round(projected).toLocaleString("en")} s → index ${Math.round(projected / seconds).toLocaleString("en")}× faster`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
