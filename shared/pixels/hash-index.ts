/**
 * Near-duplicate grouping of 64-bit perceptual hashes without comparing every pair.
 *
 * Candidates come from multi-index hashing (Norouzi et al., 2012): the 64 bits are cut into m chunks;
 * if two hashes differ in ≤ k bits, some chunk differs in ≤ ⌊k/m⌋ bits (pigeonhole), so looking up
 * each hash's chunk values and their neighbours within r = ⌊k/m⌋ bits in one table per chunk finds
 * every pair within k: recall is exact, not probabilistic. m is chosen for the input size so a bucket
 * holds few unrelated hashes (1,000,000 hashes at k = 8: 3 chunks of 21–22 bits, r = 2, 232 probes).
 * A pair is reported by the first chunk (in chunk order) where it is within r, so each edge comes
 * out once.
 *
 * Partitioning (independent cloud tasks): a task is one (chunk c, partition p), where p is the top
 * `log2(partitions)` bits of the chunk value. The task stores the hashes whose chunk-c value lies in
 * p and probes from every hash whose chunk-c value is within r bits of p in those top bits (so its
 * probes can land in p), keeping only probes that do. A pair is found by exactly one task: the first
 * chunk where it is within r, the partition of the larger of its two chunk values (probed from the
 * smaller; equal values from the smaller index). Tasks share nothing but the input; the union of
 * their edges is the edge set of the unpartitioned index (test/pixels/hash-index.test.ts), and a
 * second step connects the edges into groups (`groupEdges`). In the cloud, a task reads the hashes
 * of its chunk partition plus the probing ones (a shuffle by chunk value with the few neighbour
 * partitions replicated), and writes its edges; one partition-free task unions them.
 *
 * Groups: edges are connected into components; a component whose diameter (largest distance between
 * two members) is over `maxDiameter` (default 2k) would chain unlike images through a path of small
 * steps, so it is split deterministically into groups around centres (the member with most edges
 * first, then everything within k of it): any two members of such a group are within 2k by the
 * triangle inequality; under a `maxDiameter` below 2k a member joins only within it of every member
 * already taken. Splits are counted.
 *
 * Everything is a pure function of the input set: items are ordered by key first, so the output does
 * not depend on input order or on how tasks were cut.
 */
import { popcount32 } from "./hashes.ts";

export interface HashedItem {
  readonly key: string;
  readonly hash: bigint;
}

/** Hashes in key order, as two 32-bit halves (cheap XOR and popcount). */
export interface PackedHashes {
  readonly keys: readonly string[];
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
}

export interface Chunk {
  /** lowest bit of the chunk (0 = least significant bit of the hash) */
  readonly offset: number;
  readonly width: number;
}

export interface IndexPlan {
  readonly threshold: number;
  readonly chunks: readonly Chunk[];
  /** bits a chunk may differ in for a pair within the threshold to be found there */
  readonly radius: number;
}

export interface Edge {
  /** indices into PackedHashes, a < b */
  readonly a: number;
  readonly b: number;
  readonly distance: number;
}

/** Largest chunk table: 2^24 buckets (64 MiB of offsets). */
const MAX_CHUNK_BITS = 24;

export function packHashes(items: readonly HashedItem[]): PackedHashes {
  const byKey = (x: HashedItem, y: HashedItem) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
  let sorted = items;
  for (let i = 1; i < items.length; i++) {
    if (byKey(items[i - 1]!, items[i]!) >= 0) {
      sorted = [...items].sort(byKey);
      break;
    }
  }
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.key === sorted[i - 1]!.key) throw new Error(`duplicate key in hash index input: ${sorted[i]!.key}`);
  const hi = new Uint32Array(sorted.length);
  const lo = new Uint32Array(sorted.length);
  const both = new BigUint64Array(1);
  const halves = new Uint32Array(both.buffer);
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  sorted.forEach((it, i) => {
    both[0] = it.hash;
    hi[i] = halves[littleEndian ? 1 : 0]!;
    lo[i] = halves[littleEndian ? 0 : 1]!;
  });
  return { keys: sorted.map((it) => it.key), hi, lo };
}

export function distanceAt(p: PackedHashes, i: number, j: number): number {
  return popcount32(p.hi[i]! ^ p.hi[j]!) + popcount32(p.lo[i]! ^ p.lo[j]!);
}

/** The chunking with the fewest expected probes plus bucket entries per hash for `n` hashes. */
export function planIndex(threshold: number, n: number): IndexPlan {
  if (!Number.isInteger(threshold) || threshold < 0 || threshold > 32) throw new Error(`threshold must be an integer in 0…32: ${threshold}`);
  let best: { cost: number; m: number } | null = null;
  for (let m = Math.ceil(64 / MAX_CHUNK_BITS); m <= 16; m++) {
    const width = Math.floor(64 / m);
    const r = Math.floor(threshold / m);
    const probes = ballSize(width, r);
    const cost = m * probes * (1 + n / 2 ** width);
    if (best === null || cost < best.cost) best = { cost, m };
  }
  return { threshold, chunks: cutChunks(best!.m), radius: Math.floor(threshold / best!.m) };
}

function cutChunks(m: number): Chunk[] {
  const chunks: Chunk[] = [];
  let offset = 0;
  for (let c = 0; c < m; c++) {
    const width = Math.floor(64 / m) + (c < 64 % m ? 1 : 0);
    chunks.push({ offset, width });
    offset += width;
  }
  return chunks;
}

function ballSize(width: number, r: number): number {
  let total = 0;
  let binom = 1;
  for (let i = 0; i <= r; i++) {
    total += binom;
    binom = (binom * (width - i)) / (i + 1);
  }
  return total;
}

/** The chunk's value for every hash. */
function chunkValues(p: PackedHashes, chunk: Chunk): Uint32Array {
  const { offset: o, width: w } = chunk;
  const mask = w === 32 ? 0xffffffff : (1 << w) - 1;
  const out = new Uint32Array(p.hi.length);
  for (let i = 0; i < out.length; i++) {
    const lo = p.lo[i]!;
    const hi = p.hi[i]!;
    const v = o >= 32 ? hi >>> (o - 32) : o + w <= 32 ? lo >>> o : (lo >>> o) | (hi << (32 - o));
    out[i] = (v & mask) >>> 0;
  }
  return out;
}

/** Every XOR mask of `width` bits with ≤ r bits set, 0 first. */
function flipMasks(width: number, r: number): Uint32Array {
  const masks: number[] = [];
  const rec = (start: number, left: number, mask: number) => {
    masks.push(mask >>> 0);
    if (left === 0) return;
    for (let b = start; b < width; b++) rec(b + 1, left - 1, mask | (1 << b));
  };
  rec(0, r, 0);
  return Uint32Array.from(masks);
}

export interface PartitionSpec {
  /** a power of two ≤ 2^(chunk width) */
  readonly count: number;
  readonly index: number;
}

/**
 * The edges one task finds: pairs within the threshold first found in chunk `c`, whose larger index
 * has its chunk-c value in `partition` (all of them without one). Sorted by (a, b).
 */
export function candidateEdges(p: PackedHashes, plan: IndexPlan, c: number, partition: PartitionSpec = { count: 1, index: 0 }): Edge[] {
  const chunk = plan.chunks[c];
  if (!chunk) throw new Error(`no chunk ${c} in a plan of ${plan.chunks.length}`);
  const topBits = Math.log2(partition.count);
  if (!Number.isInteger(topBits) || topBits > chunk.width || partition.index < 0 || partition.index >= partition.count) throw new Error(`bad partition ${partition.index}/${partition.count} of a ${chunk.width}-bit chunk`);
  const n = p.hi.length;
  const shift = chunk.width - topBits;
  const values = chunkValues(p, chunk);
  const earlier = plan.chunks.slice(0, c).map((ch) => chunkValues(p, ch));
  const inPartition = (v: number) => topBits === 0 || v >>> shift === partition.index;

  // the task's table: stored hashes by chunk value (counting sort into CSR), each entry carrying its
  // hash halves so a candidate is checked without a random read elsewhere
  const buckets = 2 ** chunk.width;
  const start = new Int32Array(buckets + 1);
  for (let i = 0; i < n; i++) if (inPartition(values[i]!)) start[values[i]! + 1]!++;
  for (let v = 0; v < buckets; v++) start[v + 1]! += start[v]!;
  const stored = start[buckets]!;
  const idx = new Int32Array(stored);
  const his = new Uint32Array(stored);
  const los = new Uint32Array(stored);
  const fill = start.slice(0, buckets);
  // one bit per bucket (512 KiB for 22 bits, cache-resident): most probes end here, not in `start`
  const occupied = new Uint32Array(Math.ceil(buckets / 32));
  for (let i = 0; i < n; i++) {
    if (!inPartition(values[i]!)) continue;
    occupied[values[i]! >>> 5]! |= 1 << (values[i]! & 31);
    const at = fill[values[i]!]!++;
    idx[at] = i;
    his[at] = p.hi[i]!;
    los[at] = p.lo[i]!;
  }
  // the hashes that probe into this task, in chunk-value order: for one mask, v ^ mask then walks the
  // table nearly in order (a random walk over a table of 2^22 buckets would miss the cache per probe)
  let queries: Int32Array;
  if (topBits === 0) queries = idx;
  else {
    const all = new Int32Array(buckets + 1);
    for (let i = 0; i < n; i++) all[values[i]! + 1]!++;
    for (let v = 0; v < buckets; v++) all[v + 1]! += all[v]!;
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[all[values[i]!]!++] = i;
    queries = order.filter((i) => popcount32((values[i]! >>> shift) ^ partition.index) <= plan.radius);
  }
  const qIdx = Int32Array.from(queries);
  const qVal = Uint32Array.from(queries, (i) => values[i]!);
  const qHi = Uint32Array.from(queries, (i) => p.hi[i]!);
  const qLo = Uint32Array.from(queries, (i) => p.lo[i]!);

  const table: Table = { start, occupied, idx, his, los };
  const query: Queries = { idx: qIdx, val: qVal, hi: qHi, lo: qLo };
  const masks = flipMasks(chunk.width, plan.radius);
  const found: number[] = [];
  for (let k = 0; k < masks.length; k++) probeAll(table, query, masks[k]!, topBits > 0 ? shift : -1, partition.index, plan.threshold, found);
  const edges: Edge[] = [];
  for (let f = 0; f < found.length; f += 3) {
    const i = found[f]!;
    const j = found[f + 1]!;
    // found in an earlier chunk already
    if (earlier.some((ev) => popcount32(ev[i]! ^ ev[j]!) <= plan.radius)) continue;
    edges.push({ a: i, b: j, distance: found[f + 2]! });
  }
  return edges.sort((x, y) => x.a - y.a || x.b - y.b);
}

interface Table {
  start: Int32Array;
  occupied: Uint32Array;
  idx: Int32Array;
  his: Uint32Array;
  los: Uint32Array;
}

interface Queries {
  idx: Int32Array;
  val: Uint32Array;
  hi: Uint32Array;
  lo: Uint32Array;
}

/**
 * The hot loop, on its own so V8 optimises it alone: every query's value XOR one mask looked up;
 * pairs (i < j) within the threshold appended to `found` as i, j, distance. `shift` < 0: no partition.
 */
function probeAll(t: Table, q: Queries, mask: number, shift: number, partition: number, threshold: number, found: number[]): void {
  const { start, occupied, idx, his, los } = t;
  const n = q.idx.length;
  // each pair of different chunk values is probed from its smaller value only (the mask's top bit
  // clear in it): half the probes
  const top = mask === 0 ? 0 : 1 << (31 - Math.clz32(mask));
  for (let x = 0; x < n; x++) {
    if ((q.val[x]! & top) !== 0) continue;
    const probe = (q.val[x]! ^ mask) >>> 0;
    if ((occupied[probe >>> 5]! & (1 << (probe & 31))) === 0) continue;
    if (shift >= 0 && probe >>> shift !== partition) continue;
    const end = start[probe + 1]!;
    const hi = q.hi[x]!;
    const lo = q.lo[x]!;
    for (let s = start[probe]!; s < end; s++) {
      const d = popcount32(hi ^ his[s]!) + popcount32(lo ^ los[s]!);
      if (d > threshold) continue;
      const i = q.idx[x]!;
      const j = idx[s]!;
      if (mask !== 0) found.push(Math.min(i, j), Math.max(i, j), d);
      else if (j > i) found.push(i, j, d);
    }
  }
}

/** Every pair within the threshold (all chunks, one partition each), sorted by (a, b). */
export function nearDuplicateEdges(p: PackedHashes, plan: IndexPlan): Edge[] {
  const all: Edge[] = [];
  for (let c = 0; c < plan.chunks.length; c++) for (const e of candidateEdges(p, plan, c)) all.push(e);
  return all.sort((x, y) => x.a - y.a || x.b - y.b);
}

export interface GroupMember {
  readonly key: string;
  /** Hamming distance to the group's centre */
  readonly distance: number;
}

export interface HashGroup {
  /** the member with most near duplicates (then most identical copies, then first key); distances are to it */
  readonly centre: string;
  /** in key order, the centre included */
  readonly members: readonly GroupMember[];
  /** largest distance between two members */
  readonly diameter: number;
}

export interface GroupingStats {
  items: number;
  edges: number;
  /** connected components of ≥ 2 hashes */
  components: number;
  /** components split because their diameter exceeded maxDiameter */
  splitComponents: number;
  /** hashes left alone by a split (nothing within the threshold of any centre they could join) */
  splitSingletons: number;
  groups: number;
  groupedItems: number;
}

export interface GroupingOptions {
  threshold: number;
  /** largest distance allowed inside a group (default 2 × threshold) */
  maxDiameter?: number;
}

/**
 * Hashes with the same value collapsed to one (keyed by its first key): blank or cropped-to-nothing
 * images often share a hash by the thousand, and pairs among them would be quadratic.
 */
export function collapseIdentical(p: PackedHashes): { unique: PackedHashes; copies: string[][] } {
  const n = p.keys.length;
  // sort the values natively to find those that occur twice; only their keys go through a Map
  const values = new BigUint64Array(n);
  for (let i = 0; i < n; i++) values[i] = (BigInt(p.hi[i]!) << 32n) | BigInt(p.lo[i]!);
  const sorted = values.slice().sort();
  const repeated = new Set<bigint>();
  for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) repeated.add(sorted[i]!);
  const first = new Map<bigint, number>();
  const copies: string[][] = [];
  const keep: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const u = repeated.has(v) ? first.get(v) : undefined;
    if (u !== undefined) {
      copies[u]!.push(p.keys[i]!);
      continue;
    }
    if (repeated.has(v)) first.set(v, keep.length);
    keep.push(i);
    copies.push([p.keys[i]!]);
  }
  const unique: PackedHashes = { keys: keep.map((i) => p.keys[i]!), hi: Uint32Array.from(keep, (i) => p.hi[i]!), lo: Uint32Array.from(keep, (i) => p.lo[i]!) };
  return { unique, copies };
}

/** Groups of near-duplicate hashes (≥ 2 members), in key order of their first member. */
export function groupNearDuplicates(items: readonly HashedItem[], opts: GroupingOptions): { groups: HashGroup[]; stats: GroupingStats } {
  const { unique, copies } = collapseIdentical(packHashes(items));
  const plan = planIndex(opts.threshold, unique.keys.length);
  return groupEdges(unique, nearDuplicateEdges(unique, plan), opts, copies);
}

/**
 * The second step: connects edges (from any number of tasks, any order, no duplicates) into groups.
 * `copies[i]`: the keys that share hash i (collapseIdentical); default: its own key.
 */
export function groupEdges(p: PackedHashes, edges: readonly Edge[], opts: GroupingOptions, copies?: readonly (readonly string[])[]): { groups: HashGroup[]; stats: GroupingStats } {
  const n = p.keys.length;
  const maxDiameter = opts.maxDiameter ?? 2 * opts.threshold;
  const copiesOf = (i: number): readonly string[] => copies?.[i] ?? [p.keys[i]!];
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  // near neighbours of each hash, counting identical copies
  const degree = Int32Array.from({ length: n }, (_, i) => copiesOf(i).length - 1);
  for (const e of edges) {
    degree[e.a]! += copiesOf(e.b).length;
    degree[e.b]! += copiesOf(e.a).length;
    const ra = find(e.a);
    const rb = find(e.b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const components = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (degree[i] === 0) continue;
    const r = find(i);
    let list = components.get(r);
    if (!list) components.set(r, (list = []));
    list.push(i);
  }
  const stats: GroupingStats = { items: copies ? copies.reduce((s, c) => s + c.length, 0) : n, edges: edges.length, components: components.size, splitComponents: 0, splitSingletons: 0, groups: 0, groupedItems: 0 };
  const groups: HashGroup[] = [];
  // most near neighbours, then most identical copies, then first key
  const byCentrality = (a: number, b: number) => degree[b]! - degree[a]! || copiesOf(b).length - copiesOf(a).length || a - b;
  const group = (members: readonly number[], centre: number) => groups.push(makeGroup(p, members, centre, copiesOf));
  for (const members of components.values()) {
    if (diameterWithin(p, members, maxDiameter)) {
      group(members, [...members].sort(byCentrality)[0]!);
      continue;
    }
    stats.splitComponents++;
    let left = [...members].sort(byCentrality);
    while (left.length > 0) {
      const centre = left[0]!;
      // within k of the centre (so within 2k of each other), and, under a bound below 2k, within it
      // of every member taken so far, most central first
      const near: number[] = [];
      const rest: number[] = [];
      for (const i of left) {
        if (distanceAt(p, centre, i) <= opts.threshold && (maxDiameter >= 2 * opts.threshold || near.every((j) => distanceAt(p, i, j) <= maxDiameter))) near.push(i);
        else rest.push(i);
      }
      left = rest;
      if (near.length < 2 && copiesOf(centre).length < 2) stats.splitSingletons++;
      else group(near, centre);
    }
  }
  groups.sort((x, y) => (x.members[0]!.key < y.members[0]!.key ? -1 : 1));
  stats.groups = groups.length;
  stats.groupedItems = groups.reduce((s, g) => s + g.members.length, 0);
  return { groups, stats };
}

/** Whether no two members are farther apart than `bound` (stops at the first pair that is). */
function diameterWithin(p: PackedHashes, members: readonly number[], bound: number): boolean {
  for (let x = 0; x < members.length; x++) for (let y = x + 1; y < members.length; y++) if (distanceAt(p, members[x]!, members[y]!) > bound) return false;
  return true;
}

function makeGroup(p: PackedHashes, members: readonly number[], centre: number, copiesOf: (i: number) => readonly string[]): HashGroup {
  let diameter = 0;
  for (let x = 0; x < members.length; x++) for (let y = x + 1; y < members.length; y++) diameter = Math.max(diameter, distanceAt(p, members[x]!, members[y]!));
  const keyed = members.flatMap((i) => copiesOf(i).map((key) => ({ key, distance: distanceAt(p, centre, i) })));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { centre: p.keys[centre]!, members: keyed, diameter };
}
