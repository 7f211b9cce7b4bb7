/**
 * Reads a tier's dataset back from an output folder, streamed: `<tier>.jsonl` (local runner) or
 * `<tier>.jsonl.gz` (cloud runner). Pairs keep fields later scorers add (a `paraphrase` decision),
 * so the report and the Parquet export follow whatever the pairs carry.
 */
import { z } from "zod";
import { ScoredPair } from "../core/records.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { readJsonl } from "../io/jsonl.ts";

export const PublishedPair = ScoredPair.extend({
  /** the paraphrase decision of a semantic scorer, when one ran */
  paraphrase: z.boolean().optional(),
}).loose(); // fields a later scorer adds (the score a decision used, …) are kept and exported too

/** the fields every pair has or paracap knows; any other top-level field is an extra column */
export const KNOWN_FIELDS = new Set(["id", "tier", "image", "type", "a", "b", "metrics", "setSize", "paraphrase"]);
export type PublishedPair = z.infer<typeof PublishedPair>;

export const tierJsonl = (tier: string) => `${tier}.jsonl`;

/** The object holding a tier's pairs, or null when the folder has none. */
export async function tierObject(store: BlobStore, tier: string): Promise<string | null> {
  for (const name of [tierJsonl(tier), `${tierJsonl(tier)}.gz`]) if (await store.exists(name)) return name;
  return null;
}

/**
 * The tier's pairs in file order; a line that is not a pair is an error naming the file and line.
 * `trusted`: the file was validated by an earlier pass (schema checks are half the cost of a pass).
 */
export function readTier(store: BlobStore, name: string, opts: { trusted?: boolean } = {}): AsyncGenerator<PublishedPair> {
  return readJsonl(store, name, opts.trusted ? undefined : PublishedPair, { required: true, what: "a pair" });
}
