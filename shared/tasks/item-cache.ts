/**
 * A per-item cache in the run's work store: what an async step computed for one item (a model's
 * verdict on a caption, an image's pixel features) is stored once, so a rerun or a retried task reads
 * it instead of computing again, and gives byte-identical outputs even when the compute does not
 * (a model on another machine, a fetch). Entries live under `cache/` of the work store: `--fresh`
 * discards them with the run, a resume after a later-phase change keeps them, the cloud keeps them
 * in the work bucket.
 *
 * An entry is `{ key, value }` JSON under a name derived from (namespace, key); the value is checked
 * against the step's zod schema and the key against the one asked for. A stored entry that fails
 * either is recomputed, overwritten and counted, never trusted.
 */
import type { z } from "zod";
import { cacheCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { stableId } from "../core/hash.ts";
import type { StageContext } from "../core/stage.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { layout } from "./layout.ts";

export interface ItemCacheOptions<T> {
  /** the work store of the run */
  store: BlobStore;
  /**
   * the step and its rule version, `<name>_v<version>` (a filter's id): bump the version when what
   * the step computes changes, so old entries are never read for the new rule
   */
  namespace: string;
  schema: z.ZodType<T>;
  /** `cache.<namespace>.hits`, `.computed`, `.invalid` go here */
  counters: Counters;
}

export class ItemCache<T> {
  private readonly inflight = new Map<string, Promise<T>>();

  constructor(private readonly opts: ItemCacheOptions<T>) {
    if (!/^[a-z][a-z0-9_]*_v[1-9][0-9]*$/.test(opts.namespace)) throw new Error(`item cache namespace must be <name>_v<version>: ${opts.namespace}`);
  }

  /** The object an item's entry is stored in. */
  objectName(key: string): string {
    return layout.itemCache(this.opts.namespace, stableId(this.opts.namespace, key));
  }

  /**
   * The stored value of `key`, or `compute()`'s, stored. Callers of the same key in this process
   * while it is being computed share one compute; across processes the first stored entry wins.
   */
  getOrCompute(key: string, compute: () => T | Promise<T>): Promise<T> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = this.load(key, compute).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async load(key: string, compute: () => T | Promise<T>): Promise<T> {
    const { store, counters, namespace } = this.opts;
    const name = this.objectName(key);
    const stored = await store.readText(name);
    if (stored !== null) {
      const value = this.parse(stored, key);
      if (value.ok) {
        counters.inc(cacheCounter(namespace, "hits"));
        return value.value;
      }
      counters.inc(cacheCounter(namespace, "invalid"));
    }
    const fresh = this.opts.schema.parse(await compute());
    counters.inc(cacheCounter(namespace, "computed"));
    const text = JSON.stringify({ key, value: fresh });
    if (stored !== null) {
      await store.writeText(name, text);
      return fresh;
    }
    if (await store.createIfAbsent(name, text)) return fresh;
    // Another process stored this item first: its value is the run's (a half-written one is replaced by ours).
    const winner = this.parse((await store.readText(name)) ?? "", key);
    if (winner.ok) return winner.value;
    await store.writeText(name, text);
    return fresh;
  }

  private parse(text: string, key: string): { ok: true; value: T } | { ok: false } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false };
    }
    if (typeof json !== "object" || json === null || (json as { key?: unknown }).key !== key) return { ok: false };
    const parsed = this.opts.schema.safeParse((json as { value?: unknown }).value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
  }
}

/**
 * The context a task gives its stage: counters, and item caches in the run's work store (one per
 * namespace for the task, so concurrent callers of one key in the task share one compute).
 */
export function taskStageContext(work: BlobStore, counters: Counters): StageContext {
  const caches = new Map<string, ItemCache<unknown>>();
  return {
    counters,
    log: () => {},
    itemCache<T>(namespace: string, schema: z.ZodType<T>): ItemCache<T> {
      let cache = caches.get(namespace);
      if (!cache) {
        cache = new ItemCache<unknown>({ store: work, namespace, schema, counters });
        caches.set(namespace, cache);
      }
      return cache as ItemCache<T>;
    },
  };
}
