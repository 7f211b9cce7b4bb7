/**
 * Named integer counters: the only way stages report what they did. Mergeable (associative and
 * commutative), so per-shard counters reduce to one stats.json in any order.
 */
import { Samples } from "./samples.ts";

export type CounterSnapshot = Record<string, number>;

export class Counters {
  private readonly values = new Map<string, number>();
  /** examples of dropped records, by `<filter counter>.<reason>` (they travel with the counters) */
  readonly samples = new Samples();

  inc(name: string, by = 1): void {
    if (by === 0) return;
    const v = (this.values.get(name) ?? 0) + by;
    // a count taken back to nothing (a later phase correcting an earlier one) is as if never counted
    if (v === 0) this.values.delete(name);
    else this.values.set(name, v);
  }

  get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  /** Adds every counter (and sample) of `other` into this one. */
  merge(other: Counters | CounterSnapshot): this {
    const entries = other instanceof Counters ? other.values.entries() : Object.entries(other);
    for (const [k, v] of entries) this.inc(k, v);
    if (other instanceof Counters) this.samples.merge(other.samples);
    return this;
  }

  /** Counters whose names start with `prefix`, with the prefix removed. */
  withPrefix(prefix: string): CounterSnapshot {
    const out: CounterSnapshot = {};
    for (const [k, v] of this.values) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
    return out;
  }

  /** Sorted snapshot, so the JSON form of equal counters is byte-identical. */
  toJSON(): CounterSnapshot {
    const out: CounterSnapshot = {};
    for (const k of [...this.values.keys()].sort()) out[k] = this.values.get(k)!;
    return out;
  }

  static from(snapshot: CounterSnapshot): Counters {
    return new Counters().merge(snapshot);
  }
}
