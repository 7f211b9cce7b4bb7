/**
 * A few examples of what each filter dropped, chosen deterministically: per name, the k texts with
 * the smallest hash (bottom-k). Bottom-k sets merge associatively, so per-task samples reduce to the
 * same examples whatever the sharding, worker count or task order, and a report can show them.
 */
import { fnv1a32 } from "./hash.ts";

export type SampleSnapshot = Record<string, string[]>;

/** Examples kept per name; a report shows at most this many. */
export const SAMPLES_PER_NAME = 5;
/** Longer examples are cut (a run-on "caption" can be a whole page). */
const MAX_EXAMPLE_CHARS = 300;

interface Entry { h: number; text: string }

export class Samples {
  private readonly byName = new Map<string, Entry[]>();

  constructor(private readonly k = SAMPLES_PER_NAME) {}

  add(name: string, example: string): void {
    const text = example.length > MAX_EXAMPLE_CHARS ? `${example.slice(0, MAX_EXAMPLE_CHARS)}…` : example;
    const entry = { h: fnv1a32(text), text };
    const list = this.byName.get(name);
    if (!list) {
      this.byName.set(name, [entry]);
      return;
    }
    if (list.length >= this.k && compare(entry, list[list.length - 1]!) >= 0) return;
    let i = list.length;
    while (i > 0 && compare(entry, list[i - 1]!) < 0) i--;
    if (i > 0 && list[i - 1]!.text === text) return;
    list.splice(i, 0, entry);
    if (list.length > this.k) list.pop();
  }

  merge(other: Samples | SampleSnapshot): this {
    const entries = other instanceof Samples ? [...other.byName].map(([n, l]) => [n, l.map((e) => e.text)] as const) : Object.entries(other);
    for (const [name, texts] of entries) for (const t of texts) this.add(name, t);
    return this;
  }

  get(name: string): string[] {
    return (this.byName.get(name) ?? []).map((e) => e.text);
  }

  /** The examples kept so far (as toJSON), forgotten here: what a worker hands on with each batch. */
  take(): SampleSnapshot {
    const out = this.toJSON();
    this.byName.clear();
    return out;
  }

  /** Sorted by name, examples in hash order: equal samples serialise byte-identically. */
  toJSON(): SampleSnapshot {
    const out: SampleSnapshot = {};
    for (const k of [...this.byName.keys()].sort()) out[k] = this.get(k);
    return out;
  }
}

function compare(a: Entry, b: Entry): number {
  return a.h - b.h || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}
