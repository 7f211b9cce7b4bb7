/**
 * The group and dedup stages' filter path, with synchronous filters (the hot path) against the same
 * filters made async (every verdict a resolved promise), on the same records in the same run.
 * Filters may await (core/filter.ts); the stages await only verdicts that are promises, so the sync
 * column must not lose to the code before async filters (time it with BENCH_BEFORE=<checkout of
 * main>, in alternating rounds on the same records).
 *
 * Records: group reads the shuffle references a 1-worker `runLocal` of the sample dumps leaves in
 * its work store (untimed), repeated BENCH_COPIES times under other image names; dedup reads the MSRP
 * train pairs (BENCH_MSRP, shared/data, else the repo's first 300) as candidate pairs, and scores with the
 * syntactic scorer only (no model). The first round warms up and is not counted. The cached
 * variants judge the last pair filter through a per-item cache in a local work store (cold: a new
 * store each round, every verdict computed and written; warm: every verdict read back).
 *
 *   npx tsx scripts/bench/filter-path.ts                  (BENCH_ROUNDS=5)
 *   BENCH_BEFORE=/tmp/main npx tsx scripts/bench/filter-path.ts
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { z } from "zod";
import { join } from "node:path";
import { Counters } from "../../shared/core/counters.ts";
import { resolveConfig, type ParacapConfig } from "../../shared/core/config.ts";
import type { Filter, Verdict } from "../../shared/core/filter.ts";
import type { CandidatePair, ShuffleRef } from "../../shared/core/records.ts";
import { silentContext, type Stage, type StageContext } from "../../shared/core/stage.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { dedupStage, uniqueKey } from "../../shared/pipeline/dedup-stage.ts";
import { taskStageContext } from "../../shared/tasks/item-cache.ts";
import { pairFilters, tierFilters, type TierFilters } from "../../shared/pipeline/filters.ts";
import { groupStage } from "../../shared/pipeline/group-stage.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { stableId } from "../../shared/core/hash.ts";
import { firstExisting, median, REPO, SHARED_DATA, tempDir } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const before = process.env.BENCH_BEFORE ?? null;

const config = resolveConfig({ scoring: { scorers: ["syntactic"] } });
const out = tempDir("pcbench-filters-");
await runLocal({
  inputs: [
    { path: join(REPO, "shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2"), kind: "current" },
    { path: join(REPO, "shared/sample/enwiki-Anarchism-history-sample.xml.bz2"), kind: "history" },
  ],
  outDir: out,
  config,
  workers: 1,
  progress: null,
});

function readAll<T>(dir: string): T[] {
  const found: T[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl")) for (const line of readFileSync(join(d, e.name), "utf8").split("\n")) if (line) found.push(JSON.parse(line) as T);
    }
  };
  walk(dir);
  return found;
}
const copies = Number(process.env.BENCH_COPIES ?? 20);
const sampleRefs = readAll<ShuffleRef>(join(out, ".work/extract"));
const refs = Array.from({ length: copies }, (_, k) => sampleRefs.map((r) => ({ ...r, image: `${r.image}#${k}` }))).flat();

const msrp = firstExisting(process.env.BENCH_MSRP ?? join(SHARED_DATA, "paraphrase/msr_paraphrase_train.txt"), join(SHARED_DATA, "paraphrase/msr_paraphrase_train.txt"), "test/fixtures/metrics/msrp-train-first300.txt");
const pairs: CandidatePair[] = readFileSync(msrp, "utf8").split(/\r?\n/).slice(1).map((l) => l.split("\t")).filter((c) => c.length === 5).map((c, i) => {
  const side = (text: string, page: string) => ({ text, page, pageId: i, revisionId: 1, ordinal: 0, uses: 1 });
  return { id: stableId(String(i), c[3]!, c[4]!), tier: "silver", image: `File:msrp-${i}.jpg`, type: "caption", a: side(c[3]!, "A"), b: side(c[4]!, "B") };
});

/** The same filter, its verdict handed back as a resolved promise. */
function promised<T>(f: Filter<T>): Filter<T> {
  return { ...f, keep: (r: T) => Promise.resolve(f.keep(r)) };
}
const asyncTier = (t: TierFilters): TierFilters => ({
  ...t,
  image: t.image.map(promised),
  reference: t.reference.map(promised),
  caption: t.caption.map(promised),
  captioned: promised(t.captioned),
  pair: t.pair.map(promised),
});

/** The pair filters, the last one judged through a per-item cache (what an async model filter would do). */
function cachedPairFilters(ctx: StageContext): Filter<CandidatePair>[] {
  const [last, ...rest] = pairFilters(config).reverse();
  const cache = ctx.itemCache!(`${last!.id}`, Judged);
  const cached: Filter<CandidatePair> = { ...last!, keep: async (p) => (await cache.getOrCompute(uniqueKey(p), () => ({ verdict: last!.keep(p) as Verdict }))).verdict };
  return [...rest.reverse(), cached];
}
const Judged = z.object({ verdict: z.union([z.literal(true), z.object({ drop: z.string() })]) });
const made: string[] = [out];
const scratch = (prefix: string): string => {
  made.push(tempDir(prefix));
  return made[made.length - 1]!;
};
const warmStore = new LocalStore(scratch("pcbench-cache-warm-"));

type AnyStage = Stage<never, unknown>;
interface Variant { name: string; stage: () => AnyStage; records: readonly unknown[]; ctx?: (counters: Counters) => StageContext }

async function time(v: Variant): Promise<{ seconds: number; out: number; counters: string }> {
  const counters = new Counters();
  async function* input() {
    for (const r of v.records) yield r as never;
  }
  const start = process.hrtime.bigint();
  let n = 0;
  for await (const _ of v.stage().run(input(), (v.ctx ?? silentContext)(counters))) n++;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, out: n, counters: JSON.stringify(counters) };
}

const variants: Variant[] = [
  { name: "group, sync filters", stage: () => groupStage(config) as AnyStage, records: refs },
  { name: "group, async filters", stage: () => groupStage(config, { tierFilters: (t) => asyncTier(tierFilters(config, t)) }) as AnyStage, records: refs },
  { name: "dedup, sync filters", stage: () => dedupStage(config) as AnyStage, records: pairs },
  { name: "dedup, async filters", stage: () => dedupStage(config, { pairFilters: () => pairFilters(config).map(promised) }) as AnyStage, records: pairs },
  // a new work store every round: every verdict computed and written
  { name: "dedup, cached filter (cold)", stage: () => dedupStage(config, { pairFilters: cachedPairFilters }) as AnyStage, records: pairs, ctx: (c) => taskStageContext(new LocalStore(scratch("pcbench-cache-cold-")), c) },
  // the same work store every round: every verdict read
  { name: "dedup, cached filter (warm)", stage: () => dedupStage(config, { pairFilters: cachedPairFilters }) as AnyStage, records: pairs, ctx: (c) => taskStageContext(warmStore, c) },
];
if (before) {
  // the stages before async filters, from another checkout, on the same records
  const g = (await import(join(before, "shared/pipeline/group-stage.ts"))) as { groupStage: (c: ParacapConfig) => AnyStage };
  const d = (await import(join(before, "shared/pipeline/dedup-stage.ts"))) as { dedupStage: (c: ParacapConfig) => AnyStage };
  const c = ((await import(join(before, "shared/core/config.ts"))) as { resolveConfig: (o: object) => ParacapConfig }).resolveConfig({ scoring: { scorers: ["syntactic"] } });
  variants.splice(0, 0, { name: "group, before (main)", stage: () => g.groupStage(c), records: refs });
  variants.splice(3, 0, { name: "dedup, before (main)", stage: () => d.dedupStage(c), records: pairs });
}

const seconds = new Map<string, number[]>(variants.map((v) => [v.name, []]));
const outputs = new Map<string, { out: number; counters: string }>();
for (let r = 0; r <= rounds; r++) {
  for (const v of variants) {
    const t = await time(v);
    if (r > 0) seconds.get(v.name)!.push(t.seconds);
    outputs.set(v.name, t);
  }
}

console.log(`records: ${refs.length} shuffle references, ${pairs.length} candidate pairs; ${rounds} rounds, best and median`);
console.log("| variant | records/s (best) | median s | out | ratio to sync (median) | same counters as sync |");
console.log("|---|---:|---:|---:|---:|---|");
for (const v of variants) {
  const xs = seconds.get(v.name)!;
  const stage = v.name.split(",")[0]!;
  const sync = median(seconds.get(`${stage}, sync filters`)!);
  const o = outputs.get(v.name)!;
  // a cached filter adds its cache.* counters
  const strip = (json: string) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(json) as Record<string, number>).filter(([k]) => !k.startsWith("cache."))));
  const same = strip(o.counters) === strip(outputs.get(`${stage}, sync filters`)!.counters);
  console.log(`| ${v.name} | ${Math.round(v.records.length / Math.min(...xs))} | ${median(xs).toFixed(3)} | ${o.out} | ${(sync / median(xs)).toFixed(2)} | ${same ? "yes" : "NO"} |`);
}
for (const dir of made) rmSync(dir, { recursive: true, force: true });
