/** Brute-force transport for tests: the exact optimum by enumeration, feasible only on tiny problems. */

/** Every integer flow matrix with the given margins (the optimum of a transport LP with integer margins is one). */
export function bruteForce(supply: number[], demand: number[], cost: number[]): number {
  const n = supply.length, m = demand.length;
  let best = Infinity;
  const flow = new Array<number>(n * m).fill(0);
  const left = [...demand];
  const fillRow = (i: number, j: number, rest: number): void => {
    if (i === n) {
      if (left.every((d) => d === 0)) best = Math.min(best, flow.reduce((s, f, k) => s + f * cost[k]!, 0));
      return;
    }
    if (j === m - 1) {
      if (rest > left[j]!) return;
      flow[i * m + j] = rest;
      left[j]! -= rest;
      fillRow(i + 1, 0, supply[i + 1] ?? 0);
      left[j]! += rest;
      flow[i * m + j] = 0;
      return;
    }
    for (let f = 0; f <= Math.min(rest, left[j]!); f++) {
      flow[i * m + j] = f;
      left[j]! -= f;
      fillRow(i, j + 1, rest - f);
      left[j]! += f;
    }
    flow[i * m + j] = 0;
  };
  fillRow(0, 0, supply[0]!);
  return best;
}
