/**
 * The publishable outputs of a finished output folder: `<tier>.parquet`, `report.html` and the
 * dataset card `README.md`, all derived from stats.json, config.json and the tier datasets (JSONL
 * or JSONL.gz), which are streamed twice (summary, then Parquet). Runs at the end of every run's
 * aggregate and as `paracap report <dir>`.
 */
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { CARD_MARKER, renderDatasetCard, type CardTier } from "./dataset-card.ts";
import { renderHtmlReport } from "./html-report.ts";
import { agreementSections } from "../annotate/agreement-render.ts";
import { minhashSections } from "./minhash-section.ts";
import { parquetColumns, tierParquet, writeTierParquet } from "./parquet-tier.ts";
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import { semanticScoring, type SemanticScoring } from "../semantic/semantic-score.ts";
import { defaultReferenceMaps, type ReferenceMap } from "../compare/reference-maps.ts";
import { Stats } from "./stats.ts";
import { readTier, tierObject } from "./tier-dataset.ts";
import { summariseTier, type ExtraKind, type TierSummary } from "./tier-summary.ts";

export const PUBLISHED_FILES = { html: "report.html", card: "README.md" } as const;

export interface PublishOptions {
  generated?: string;
  elapsedSeconds?: number | null;
  /** the run resumed an earlier one: its time leaves out the earlier run's */
  resumed?: boolean;
  /** characteristic maps of reference corpora drawn next to ours, after the shipped MSRPC and PAWS maps */
  references?: ReferenceMap[];
  /** false: leave the shipped MSRPC and PAWS maps out */
  shippedReferences?: boolean;
}

export interface Publication {
  files: string[];
  /** README.md existed and was not a paracap card: left alone */
  cardSkipped: boolean;
  summaries: TierSummary[];
}

const PresetOnly = z.object({ preset: z.string().optional() }).loose();
const ScoringOnly = z.object({ scoring: z.record(z.string(), z.unknown()) }).loose();

/** How the run scored its semantic axis, from its config.json; null when not recorded or not readable. */
function runScoring(configText: string | null): SemanticScoring | null {
  if (configText === null) return null;
  try {
    const recorded = ScoringOnly.safeParse(JSON.parse(configText));
    return recorded.success ? semanticScoring(resolveConfig({ scoring: recorded.data.scoring }).scoring) : null;
  } catch {
    return null; // a config.json of another version: the references' comparability cannot be told
  }
}

/** The run's config from its config.json (the thresholds the card states); null when not readable as this version's. */
function runConfig(configText: string | null): ParacapConfig | null {
  if (configText === null) return null;
  try {
    return resolveConfig(JSON.parse(configText));
  } catch {
    return null;
  }
}

export async function writePublication(store: BlobStore, opts: PublishOptions = {}): Promise<Publication> {
  const stats = await readStats(store);
  const configText = await store.readText("config.json");
  const preset = configText === null ? null : (PresetOnly.safeParse(JSON.parse(configText)).data?.preset ?? null);

  const summaries: TierSummary[] = [];
  const objects: string[] = [];
  for (const [tier, t] of Object.entries(stats.tiers)) {
    const name = await tierObject(store, tier);
    if (name === null) throw new UserError(`${store.description}: stats.json lists tier ${tier}, but neither ${tier}.jsonl nor ${tier}.jsonl.gz is there`);
    const summary = await summariseTier(tier, readTier(store, name));
    if (summary.pairs !== t.pairs) throw new UserError(`${store.description}/${name}: ${summary.pairs} pairs, but stats.json says ${t.pairs} (a folder mixing two runs?)`);
    summaries.push(summary);
    objects.push(name);
  }
  // one schema for every tier (an empty tier has the columns of the others), so configs load alike
  const metrics = [...new Set(summaries.flatMap((s) => s.metrics))];
  const extras: Record<string, ExtraKind> = {};
  for (const s of summaries) for (const [k, kind] of Object.entries(s.extras)) extras[k] = extras[k] === undefined || extras[k] === kind ? kind : "json";
  const columns = parquetColumns(metrics, { paraphrase: summaries.some((s) => s.paraphrase !== null), setSize: summaries.some((s) => s.withSetSize > 0), stringIds: summaries.some((s) => s.stringIds), extras });
  const features = columns.map(({ name, dtype, description }) => ({ name, dtype, description }));
  const files = summaries.flatMap((summary, i) => [objects[i]!, tierParquet(summary.tier)]);
  const axis = summaries.find((s) => s.pairs > 0 && s.semantic)?.semantic?.metric;
  const run = axis === undefined ? null : { metric: axis, scoring: runScoring(configText) };
  const shipped = opts.shippedReferences === false ? { maps: [], note: null } : defaultReferenceMaps(run);
  // the page first: its charts draw (on the chart thread when one runs, output/chart-thread.ts) while the Parquet files are written
  const html = (async () =>
    renderHtmlReport({
      stats,
      preset,
      generated: opts.generated ?? new Date().toISOString(),
      elapsedSeconds: opts.elapsedSeconds ?? null,
      resumed: opts.resumed === true,
      summaries,
      references: [...shipped.maps, ...(opts.references ?? [])],
      referenceNote: shipped.note,
      runScoring: run?.scoring ?? null,
      files,
      sections: [...(await agreementSections(store)), ...(await minhashSections(store, stats, objects))],
    }))();
  html.catch(() => undefined); // awaited below, after the Parquet files; a failed Parquet write throws first
  const cardTiers: CardTier[] = [];
  for (const [i, summary] of summaries.entries()) {
    const { bytes } = await writeTierParquet(store, summary.tier, readTier(store, objects[i]!, { trusted: true }), columns);
    cardTiers.push({ tier: summary.tier, parquet: tierParquet(summary.tier), parquetBytes: bytes, features, paraphrase: summary.paraphrase });
  }
  await store.writeText(PUBLISHED_FILES.html, await html);
  // an --out that already holds someone's README.md (a project folder) keeps it
  const existing = await store.readText(PUBLISHED_FILES.card);
  const cardWritten = existing === null || existing.includes(CARD_MARKER);
  if (cardWritten) await store.writeText(PUBLISHED_FILES.card, renderDatasetCard({ stats, preset, tiers: cardTiers, config: runConfig(configText) }));
  return { files: [...files.filter((f) => f.endsWith(".parquet")), PUBLISHED_FILES.html, ...(cardWritten ? [PUBLISHED_FILES.card] : [])], summaries, cardSkipped: !cardWritten };
}

async function readStats(store: BlobStore): Promise<Stats> {
  const text = await store.readText("stats.json");
  if (text === null) throw new UserError(`${store.description}: no stats.json (not a paracap output folder, or the run has not finished)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(`${store.description}/stats.json: not valid JSON`);
  }
  const parsed = Stats.safeParse(value);
  if (!parsed.success) throw new UserError(`${store.description}/stats.json: not a paracap stats file (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`);
  return parsed.data;
}
