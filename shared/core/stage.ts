/**
 * A stage is a named, typed stream transform. The same object runs in the local runner and inside a
 * cloud function handler; it touches the outside world only through its context.
 */
import type { z } from "zod";
import type { Counters } from "./counters.ts";

export interface StageContext {
  readonly counters: Counters;
  /** progress / diagnostics; never required for correctness */
  log(message: string): void;
  /**
   * A per-item cache of an async step in the run's work store (tasks/item-cache.ts), `namespace` its
   * `<name>_v<version>`; absent outside a task (tests, benchmarks): the step computes every item.
   */
  itemCache?<T>(namespace: string, schema: z.ZodType<T>): ItemCacheLike<T>;
}

/** What a stage sees of a per-item cache: a stored value, or the computed one, stored. */
export interface ItemCacheLike<T> {
  getOrCompute(key: string, compute: () => T | Promise<T>): Promise<T>;
}

export interface Stage<I, O> {
  readonly name: string;
  readonly input: z.ZodType<I>;
  readonly output: z.ZodType<O>;
  run(records: AsyncIterable<I>, ctx: StageContext): AsyncIterable<O>;
}

/** Validates records entering a stage; used where data crosses a process or storage boundary. */
export async function* validated<T>(schema: z.ZodType<T>, records: AsyncIterable<unknown>, where: string): AsyncIterable<T> {
  let n = 0;
  for await (const r of records) {
    const parsed = schema.safeParse(r);
    if (!parsed.success) throw new Error(`${where}: record ${n} does not match its schema: ${parsed.error.message}`);
    n++;
    yield parsed.data;
  }
}

export function silentContext(counters: Counters): StageContext {
  return { counters, log: () => {} };
}
