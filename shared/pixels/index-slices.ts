/**
 * How the near-duplicate index (hash-index.ts) is cut into the hash-index phase's tasks, and which
 * tasks need a given hash, so the shard phase can write each hash only to the tasks that read it.
 *
 * The index plan is fixed for a threshold (the plan for INDEX_DESIGN_SIZE hashes: 3 chunks of 21–22
 * bits for every threshold) rather than sized from the run's count, because the shard phase writes
 * the hashes before anyone knows the count. The edge set does not depend on the plan (every pair
 * within the threshold is found exactly once whatever the chunks), so neither do the groups.
 *
 * A slice is (chunk c, top `log2(count)` bits of the chunk value); task q does the slices s ≡ q
 * (mod tasks). A slice stores the hashes whose chunk value has its top bits and probes from every
 * hash whose top bits are within the probe radius r of them, so a hash goes to the slices within r
 * of its own top bits in each chunk: with t top bits, ball(t, r) of 2^t slices per chunk. With few
 * tasks (t ≤ r) that is every slice; the share falls as tasks grow (r = 2: 16 of 32 at 64 tasks,
 * 29 of 128 at 256). Probing is what needs the copies: pigeonhole recall is exact only if every hash
 * within r bits of a slice's values is probed from.
 */
import { popcount32 } from "./hashes.ts";
import { distanceAt, planIndex, type Chunk, type Edge, type IndexPlan, type PackedHashes } from "./hash-index.ts";

/** The input size the index plan is fixed for (the design target: a million images per run). */
export const INDEX_DESIGN_SIZE = 1_000_000;

export interface IndexSlice {
  readonly chunk: number;
  /** slices of this chunk (a power of two) */
  readonly count: number;
  readonly index: number;
}

export interface IndexLayout {
  readonly plan: IndexPlan;
  readonly slices: readonly IndexSlice[];
  readonly tasks: number;
}

/** The index's slices (chunk, partition of its top bits), as many as there are tasks where the chunks allow. */
export function slicesOf(chunks: readonly { width: number }[], tasks: number): IndexSlice[] {
  const per = Math.ceil(tasks / chunks.length);
  const minWidth = Math.min(...chunks.map((c) => c.width));
  const count = Math.min(2 ** Math.ceil(Math.log2(Math.max(1, per))), 2 ** minWidth);
  return chunks.flatMap((_, chunk) => Array.from({ length: count }, (_, index) => ({ chunk, count, index })));
}

/** The plan and slices of a run's index at `threshold` over `tasks` hash-index tasks. */
export function indexLayout(threshold: number, tasks: number): IndexLayout {
  const plan = planIndex(threshold, INDEX_DESIGN_SIZE);
  return { plan, slices: slicesOf(plan.chunks, tasks), tasks };
}

function chunkValue(hash: bigint, chunk: Chunk): number {
  return Number((hash >> BigInt(chunk.offset)) & ((1n << BigInt(chunk.width)) - 1n));
}

/** The tasks whose slices store `hash` or probe from it (candidateEdges' rule), ascending. */
export function tasksNeeding(hash: bigint, layout: IndexLayout): number[] {
  const tasks = new Set<number>();
  layout.slices.forEach((slice, s) => {
    const chunk = layout.plan.chunks[slice.chunk]!;
    const topBits = Math.log2(slice.count);
    const top = topBits === 0 ? 0 : chunkValue(hash, chunk) >>> (chunk.width - topBits);
    if (popcount32((top ^ slice.index) >>> 0) <= layout.plan.radius) tasks.add(s % layout.tasks);
  });
  return [...tasks].sort((a, b) => a - b);
}

/** Inputs up to this many distinct hashes are indexed by comparing every pair (the plan's 2^22-bucket tables would cost more). */
export const PAIRWISE_MAX = 4096;

/**
 * The edges of slices `mine` (ascending) among `p`'s hashes, each slice's sorted by (a, b), as
 * candidateEdges finds them: a pair within the threshold belongs to the first chunk where it is within
 * the radius and to the slice of the larger of its two values there. Compares every pair, so meant for
 * small inputs (PAIRWISE_MAX); the result equals candidateEdges' slice by slice.
 */
export function pairwiseSliceEdges(p: PackedHashes, layout: IndexLayout, mine: readonly number[]): Map<number, Edge[]> {
  const { plan, slices } = layout;
  const count = slices.length / plan.chunks.length;
  const topBits = Math.log2(count);
  const wanted = new Set(mine);
  const out = new Map<number, Edge[]>(mine.map((s) => [s, []]));
  const n = p.keys.length;
  const hashes = Array.from({ length: n }, (_, i) => (BigInt(p.hi[i]!) << 32n) | BigInt(p.lo[i]!));
  const values = plan.chunks.map((chunk) => hashes.map((h) => chunkValue(h, chunk)));
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const distance = distanceAt(p, a, b);
      if (distance > plan.threshold) continue;
      const c = values.findIndex((v) => popcount32((v[a]! ^ v[b]!) >>> 0) <= plan.radius);
      const larger = Math.max(values[c]![a]!, values[c]![b]!);
      const s = c * count + (topBits === 0 ? 0 : larger >>> (plan.chunks[c]!.width - topBits));
      if (wanted.has(s)) out.get(s)!.push({ a, b, distance });
    }
  }
  return out;
}
