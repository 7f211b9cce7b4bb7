/**
 * One streamed pass over a tier's pairs → what the report draws: per-metric histograms and moments,
 * the Δsem,syn histogram, the characteristic map with a few pairs per cell, paraphrase decisions.
 * Bounded memory whatever the dataset size; generic over the metrics the pairs carry.
 *
 * Which metric is the semantic axis is read from the data: among the metrics that are not the
 * syntactic ones, the one for which `deltaSemSyn` = metric − `syntactic` holds on the pairs (the
 * definition of Δsem,syn, paper §4); without `deltaSemSyn`, a metric named `semantic`, else the
 * first non-syntactic metric.
 */
import { METRIC_NAMES } from "../metrics/index.ts";
import { CharacteristicMapBuilder, MAP_LEVELS, type CharacteristicMap } from "../compare/characteristic-map.ts";
import { KNOWN_FIELDS, type PublishedPair } from "./tier-dataset.ts";

/** how an extra top-level field is exported: its JSON type, or `json` (text) when mixed or nested */
export type ExtraKind = "string" | "number" | "boolean" | "json";

export const SYNTACTIC_AXIS = "syntactic";
export const DELTA_METRIC = "deltaSemSyn";
/** metrics of the syntactic scorer; every other metric (but Δ) is a semantic candidate */
const SYNTACTIC_METRICS = new Set<string>(METRIC_NAMES);
/** histogram bin width on the score scale */
export const BIN_WIDTH = 0.05;
/** pairs shown per map cell (the first ones in file order, i.e. by id: a deterministic sample) */
export const SAMPLES_PER_CELL = 2;
/** pairs shown per tier when there is no map to sample from */
export const FIRST_PAIRS = 5;
/** |Δ − (semantic − syntactic)| allowed for rounding of stored metrics */
const DELTA_TOLERANCE = 0.01;

export interface Histogram {
  /** bins with at least one value, ascending: [start, end) except the last bin of [0, 1], which holds 1 */
  bins: { start: number; end: number; count: number }[];
  n: number;
  mean: number;
  sd: number;
  min: number;
  max: number;
}

export interface SemanticView {
  metric: string;
  map: CharacteristicMap;
  /** cells[syntacticLevel][semanticLevel]: up to SAMPLES_PER_CELL pairs */
  cells: PublishedPair[][][];
  /** the largest |Δ − (metric − syntactic)| seen; null without `deltaSemSyn` */
  deltaError: number | null;
}

export interface TierSummary {
  tier: string;
  pairs: number;
  /** metric names in the order the pairs carry them */
  metrics: string[];
  histograms: Record<string, Histogram>;
  /** pairs lacking a metric other pairs carry (mixed scorer runs) */
  missing: Record<string, number>;
  semantic: SemanticView | null;
  /** every semantic candidate seen, best (the axis) first */
  semanticCandidates: string[];
  paraphrase: { yes: number; no: number } | null;
  /** top-level fields beyond the known ones, in first-seen order, with how to export them */
  extras: Record<string, ExtraKind>;
  /** the first FIRST_PAIRS pairs in file order (by id) */
  first: PublishedPair[];
  /** pairs carrying `setSize` (caption-list input) */
  withSetSize: number;
  /** some side names its page or revision by a string (a URL, a record id) instead of a number */
  stringIds: boolean;
}

class HistogramBuilder {
  private readonly bins = new Map<number, number>();
  private n = 0;
  private sum = 0;
  private sumSq = 0;
  private min = Infinity;
  private max = -Infinity;

  add(v: number): void {
    // 1 (a perfect score) belongs to the last bin of [0, 1] rather than a bin of its own
    const i = v === 1 ? Math.round(1 / BIN_WIDTH) - 1 : Math.floor(v / BIN_WIDTH + 1e-9);
    this.bins.set(i, (this.bins.get(i) ?? 0) + 1);
    this.n++;
    this.sum += v;
    this.sumSq += v * v;
    this.min = Math.min(this.min, v);
    this.max = Math.max(this.max, v);
  }

  toJSON(): Histogram {
    const n = this.n;
    const mean = n === 0 ? 0 : this.sum / n;
    const variance = n < 2 ? 0 : Math.max(0, (this.sumSq - n * mean * mean) / (n - 1));
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    return {
      bins: [...this.bins.entries()].sort((a, b) => a[0] - b[0]).map(([i, count]) => ({ start: round(i * BIN_WIDTH), end: round((i + 1) * BIN_WIDTH), count })),
      n,
      mean,
      sd: Math.sqrt(variance),
      min: n === 0 ? 0 : this.min,
      max: n === 0 ? 0 : this.max,
    };
  }
}

interface Candidate {
  map: CharacteristicMapBuilder;
  cells: PublishedPair[][][];
  deltaError: number;
  deltaSeen: number;
}

export class TierSummaryBuilder {
  private readonly histograms = new Map<string, HistogramBuilder>();
  private readonly seen = new Map<string, number>();
  private readonly candidates = new Map<string, Candidate>();
  private pairs = 0;
  private paraphraseYes = 0;
  private paraphraseNo = 0;
  private withSetSize = 0;
  private stringIds = false;
  private readonly first: PublishedPair[] = [];
  private readonly extras = new Map<string, ExtraKind>();

  constructor(private readonly tier: string) {}

  add(pair: PublishedPair): void {
    this.pairs++;
    if (this.first.length < FIRST_PAIRS) this.first.push(pair);
    for (const [k, v] of Object.entries(pair)) {
      if (KNOWN_FIELDS.has(k) || v === null || v === undefined) continue;
      const kind: ExtraKind = typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? typeof v as ExtraKind : "json";
      const seen = this.extras.get(k);
      this.extras.set(k, seen === undefined || seen === kind ? kind : "json");
    }
    const m = pair.metrics;
    for (const [name, v] of Object.entries(m)) {
      if (!Number.isFinite(v)) continue;
      let h = this.histograms.get(name);
      if (!h) this.histograms.set(name, (h = new HistogramBuilder()));
      h.add(v);
      this.seen.set(name, (this.seen.get(name) ?? 0) + 1);
    }
    if (pair.setSize !== undefined) this.withSetSize++;
    if (!this.stringIds) this.stringIds = [pair.a.pageId, pair.a.revisionId, pair.b.pageId, pair.b.revisionId].some((v) => typeof v === "string");
    if (pair.paraphrase === true) this.paraphraseYes++;
    else if (pair.paraphrase === false) this.paraphraseNo++;
    const syn = m[SYNTACTIC_AXIS];
    if (syn === undefined || !Number.isFinite(syn)) return;
    const delta = m[DELTA_METRIC];
    for (const [name, sem] of Object.entries(m)) {
      if (SYNTACTIC_METRICS.has(name) || name === SYNTACTIC_AXIS || name === DELTA_METRIC || !Number.isFinite(sem)) continue;
      let c = this.candidates.get(name);
      if (!c) {
        c = { map: new CharacteristicMapBuilder(), cells: emptyCells(), deltaError: 0, deltaSeen: 0 };
        this.candidates.set(name, c);
      }
      const [i, j] = c.map.add(syn, sem);
      const cell = c.cells[i]![j]!;
      if (cell.length < SAMPLES_PER_CELL) cell.push(pair);
      if (delta !== undefined && Number.isFinite(delta)) {
        c.deltaError = Math.max(c.deltaError, Math.abs(delta - (sem - syn)));
        c.deltaSeen++;
      }
    }
  }

  toJSON(): TierSummary {
    const metrics = [...this.histograms.keys()];
    const missing = Object.fromEntries([...this.seen].filter(([, n]) => n < this.pairs).map(([k, n]) => [k, this.pairs - n]));
    const ranked = [...this.candidates.entries()].sort(([a, x], [b, y]) => rank(a, x) - rank(b, y) || metrics.indexOf(a) - metrics.indexOf(b));
    const best = ranked[0];
    return {
      tier: this.tier,
      pairs: this.pairs,
      metrics,
      histograms: Object.fromEntries([...this.histograms].map(([k, h]) => [k, h.toJSON()])),
      missing,
      semantic: best ? { metric: best[0], map: best[1].map.toJSON(), cells: best[1].cells, deltaError: best[1].deltaSeen > 0 ? best[1].deltaError : null } : null,
      semanticCandidates: ranked.map(([k]) => k),
      paraphrase: this.paraphraseYes + this.paraphraseNo > 0 ? { yes: this.paraphraseYes, no: this.paraphraseNo } : null,
      withSetSize: this.withSetSize,
      stringIds: this.stringIds,
      first: this.first,
      extras: Object.fromEntries(this.extras),
    };
  }
}

/** lower is better: the metric Δ was computed from, then one named `semantic`, then the rest */
function rank(name: string, c: Candidate): number {
  if (c.deltaSeen > 0 && c.deltaError <= DELTA_TOLERANCE) return 0;
  return name === "semantic" ? 1 : 2;
}

function emptyCells(): PublishedPair[][][] {
  return Array.from({ length: MAP_LEVELS }, () => Array.from({ length: MAP_LEVELS }, () => []));
}

export async function summariseTier(tier: string, pairs: AsyncIterable<PublishedPair>): Promise<TierSummary> {
  const b = new TierSummaryBuilder(tier);
  for await (const p of pairs) b.add(p);
  return b.toJSON();
}
