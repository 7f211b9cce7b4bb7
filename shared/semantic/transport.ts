/**
 * Exact optimal transport between two small discrete distributions (the Earth Mover's problem behind Word Mover's
 * Distance), by successive shortest paths on the bipartite residual graph with Dijkstra and node potentials. npm has
 * no maintained exact solver for this (the `emd`/`wasserstein` packages are 1-D or approximate), and caption bags are
 * small (tens of words), so a dense O((n+m)²) Dijkstra per augmentation, stopped at the nearest sink with demand
 * left, is the fastest simple choice.
 *
 * Masses are integers (WMD scales word frequencies to a common integer total), so every augmentation empties a supply,
 * a demand or a reverse edge, and the result is an exact vertex of the transportation polytope.
 */

export interface TransportResult {
  /** Σ flow_ij · cost_ij */
  cost: number;
  /** n × m, row-major */
  flow: Float64Array;
}

/**
 * Minimum-cost transport of `supply` (n sources) to `demand` (m sinks) over `cost` (n × m, row-major, ≥ 0).
 * Supplies and demands are non-negative integers with equal sums.
 */
export function minCostTransport(supply: ArrayLike<number>, demand: ArrayLike<number>, cost: ArrayLike<number>): TransportResult {
  const n = supply.length;
  const m = demand.length;
  if (cost.length !== n * m) throw new Error(`transport: cost has ${cost.length} entries, expected ${n}×${m}`);
  let total = 0, totalDemand = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isInteger(supply[i]) || supply[i]! < 0) throw new Error(`transport: supply ${i} is not a non-negative integer`);
    total += supply[i]!;
  }
  for (let j = 0; j < m; j++) {
    if (!Number.isInteger(demand[j]) || demand[j]! < 0) throw new Error(`transport: demand ${j} is not a non-negative integer`);
    totalDemand += demand[j]!;
  }
  if (total !== totalDemand) throw new Error(`transport: supply ${total} ≠ demand ${totalDemand}`);
  for (let k = 0; k < n * m; k++) if (!(cost[k]! >= 0)) throw new Error(`transport: cost ${k} is negative or NaN`);

  const flow = new Float64Array(n * m);
  const left = Float64Array.from(supply);
  const need = Float64Array.from(demand);
  // nodes: sources 0..n-1, sinks n..n+m-1; the super source is implicit (distance 0 to sources with supply left)
  const V = n + m;
  const pot = new Float64Array(V);
  const dist = new Float64Array(V);
  const done = new Uint8Array(V);
  const parent = new Int32Array(V);
  let remaining = total;
  while (remaining > 0) {
    dist.fill(Infinity);
    done.fill(0);
    parent.fill(-1);
    for (let i = 0; i < n; i++) if (left[i]! > 0) dist[i] = -pot[i]!; // reduced cost of super source → i (its potential is 0)
    for (;;) {
      let u = -1;
      let best = Infinity;
      for (let v = 0; v < V; v++) if (!done[v] && dist[v]! < best) { best = dist[v]!; u = v; }
      if (u < 0) break;
      done[u] = 1;
      // the nearest sink with demand left ends the search: the rest is not needed for this path
      if (u >= n && need[u - n]! > 0) break;
      if (u < n) {
        const row = u * m;
        for (let j = 0; j < m; j++) {
          const v = n + j;
          if (done[v]) continue;
          const d = best + Math.max(0, cost[row + j]! + pot[u]! - pot[v]!);
          if (d < dist[v]!) { dist[v] = d; parent[v] = u; }
        }
      } else {
        const j = u - n;
        for (let i = 0; i < n; i++) {
          if (done[i] || flow[i * m + j]! <= 0) continue;
          const d = best + Math.max(0, -cost[i * m + j]! + pot[u]! - pot[i]!);
          if (d < dist[i]!) { dist[i] = d; parent[i] = u; }
        }
      }
    }
    let t = -1;
    for (let j = 0; j < m; j++) if (need[j]! > 0 && done[n + j]) t = n + j;
    if (t < 0) throw new Error("transport: no augmenting path (inconsistent input)");
    // Potentials += min(distance, distance of t) keep every residual reduced cost ≥ 0 after an early stop (settled
    // nodes by the relaxation inequality, the others because their raise is the largest), so Dijkstra stays valid.
    const cap = dist[t]!;
    for (let v = 0; v < V; v++) pot[v] = pot[v]! + Math.min(dist[v]!, cap);
    // bottleneck along the path back to a source with supply
    let amount = need[t - n]!;
    let v = t;
    while (parent[v]! >= 0) {
      const u = parent[v]!;
      if (u >= n) amount = Math.min(amount, flow[v * m + (u - n)]!); // sink u → source v undoes flow v→u
      v = u;
    }
    amount = Math.min(amount, left[v]!);
    left[v] = left[v]! - amount;
    need[t - n] = need[t - n]! - amount;
    v = t;
    while (parent[v]! >= 0) {
      const u = parent[v]!;
      if (u < n) flow[u * m + (v - n)] = flow[u * m + (v - n)]! + amount;
      else flow[v * m + (u - n)] = flow[v * m + (u - n)]! - amount;
      v = u;
    }
    remaining -= amount;
  }
  let c = 0;
  for (let k = 0; k < n * m; k++) if (flow[k]! > 0) c += flow[k]! * cost[k]!;
  return { cost: c, flow };
}
