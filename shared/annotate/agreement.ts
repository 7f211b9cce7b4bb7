/**
 * Agreement among annotators and between annotators and the automatic measures (the paper's Table 6):
 * from labels files (labels.ts) and, when the dataset is at hand, the pairs' metrics.
 *
 * Per judged variable: Cohen's kappa for every two annotators (on the pairs both labelled), Fleiss'
 * kappa (on the pairs every annotator labelled: it needs a fixed number of raters) and Krippendorff's
 * alpha (all pairs, missing judgements allowed), nominal for paraphrase and relation, ordinal and
 * interval for the 1–5 scales. Correlation: per pair the mean rating over its annotators against each
 * metric the pairs carry, Pearson and Spearman, as the paper correlates syntactic measures with the
 * syntactic ratings and semantic measures with the semantic ones.
 */
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { AgreementReport, VARIABLES, type Variable } from "./agreement-report.ts";
import { cohenKappa, fleissKappa, krippendorffAlpha, pearson, spearman, type AlphaMetric } from "./agreement-stats.ts";
import { effectiveLabels, readLabelsFile, thesisRelation, type LabelRecord, type LabelsFileRecord } from "./labels.ts";
import { datasetSources } from "./sample-pairs.ts";
import { readTier } from "../output/tier-dataset.ts";
import { DELTA_METRIC, SYNTACTIC_AXIS } from "../output/tier-summary.ts";

const num = (x: number): number | null => (Number.isFinite(x) ? x : null);

const LEVELS: Record<Variable, AlphaMetric[]> = {
  paraphrase: ["nominal"],
  relation: ["nominal"],
  relation5: ["nominal"],
  syntactic: ["ordinal", "interval"],
  semantic: ["ordinal", "interval"],
};

/** the syntactic measures of the paper's Table 6 (top); every other similarity is read as semantic */
export const SYNTACTIC_MEASURES = ["rouge1F", "rougeLF", "bleu4", SYNTACTIC_AXIS, "levenshtein", "wordNgramOverlap", "lcpNgramOverlap", "bleuCordeiro", "sumo"];
/** metrics a scorer reports beside its similarities that measure no similarity (a share of words without a vector) */
const NOT_SIMILARITIES = ["vectorOov"];

/** The rating the paper's Table 6 correlates a metric with ("none": not a similarity, so never starred). */
export function tableSixAxis(metric: string): "syntactic" | "semantic" | "delta" | "none" {
  if (SYNTACTIC_MEASURES.includes(metric)) return "syntactic";
  if (metric === DELTA_METRIC) return "delta";
  return NOT_SIMILARITIES.includes(metric) ? "none" : "semantic";
}

function valueOf(l: LabelRecord, v: Variable): string | number {
  switch (v) {
    case "paraphrase":
      return l.paraphrase ? "yes" : "no";
    case "relation":
      return l.relation;
    case "relation5":
      return thesisRelation(l.relation);
    case "syntactic":
      return l.syntactic;
    case "semantic":
      return l.semantic;
  }
}

/** The dataset folder of a labels file at `<dataset>/labels/<annotator>.jsonl`, when it holds tiers. */
export function datasetOfLabels(file: string): string | null {
  const dir = dirname(file);
  if (basename(dir) !== "labels") return null;
  const dataset = dirname(dir);
  return ["gold", "silver", "bronze"].some((t) => existsSync(`${dataset}/${t}.jsonl`) || existsSync(`${dataset}/${t}.jsonl.gz`)) ? dataset : null;
}

export async function computeAgreement(files: readonly string[], dataset: string | null): Promise<AgreementReport> {
  const fileRows: AgreementReport["files"] = [];
  const all: LabelsFileRecord[] = [];
  for (const file of files) {
    const read = await readLabelsFile(file);
    fileRows.push({ file, records: read.records.length, bad: read.bad, badExamples: read.badExamples });
    all.push(...read.records);
  }
  // files are read in argument order: a later file's retraction can take back an earlier file's label of its annotator
  const labels = effectiveLabels(all);
  const annotators = [...new Set(labels.map((l) => l.annotator))].sort();
  // pair → annotator → label
  const byPair = new Map<string, Map<string, LabelRecord>>();
  for (const l of labels) {
    let m = byPair.get(l.pair);
    if (!m) byPair.set(l.pair, (m = new Map()));
    m.set(l.annotator, l);
  }
  const pairIds = [...byPair.keys()].sort();
  const byAll = pairIds.filter((p) => byPair.get(p)!.size === annotators.length);

  const variables = VARIABLES.map((variable) => {
    const cohen: AgreementReport["variables"][number]["cohen"] = [];
    for (let i = 0; i < annotators.length; i++) {
      for (let j = i + 1; j < annotators.length; j++) {
        const [a, b] = [annotators[i]!, annotators[j]!];
        const both = pairIds.filter((p) => byPair.get(p)!.has(a) && byPair.get(p)!.has(b));
        const r = cohenKappa(both.map((p) => valueOf(byPair.get(p)!.get(a)!, variable)), both.map((p) => valueOf(byPair.get(p)!.get(b)!, variable)));
        cohen.push({ a, b, n: r.n, observed: num(r.observed), kappa: num(r.kappa) });
      }
    }
    let fleiss: AgreementReport["variables"][number]["fleiss"] = null;
    if (annotators.length >= 2 && byAll.length > 0) {
      const cats = [...new Set(byAll.flatMap((p) => [...byPair.get(p)!.values()].map((l) => valueOf(l, variable))))];
      const table = byAll.map((p) => {
        const row = cats.map(() => 0);
        for (const l of byPair.get(p)!.values()) row[cats.indexOf(valueOf(l, variable))]!++;
        return row;
      });
      const f = fleissKappa(table);
      fleiss = { n: f.n, raters: f.raters, kappa: num(f.kappa) };
    }
    const units = pairIds.map((p) => [...byPair.get(p)!.values()].map((l) => valueOf(l, variable)));
    const alpha = LEVELS[variable].map((metric) => {
      const r = krippendorffAlpha(units, metric);
      return { metric, n: r.n, units: r.units, alpha: num(r.alpha) };
    });
    return { variable, cohen, fleiss, alpha };
  });

  return {
    files: fileRows,
    annotators,
    pairs: pairIds.length,
    pairsByAll: annotators.length >= 2 ? byAll.length : 0,
    variables,
    correlation: dataset === null ? null : await correlate(dataset, byPair),
  };
}

async function correlate(dataset: string, byPair: Map<string, Map<string, LabelRecord>>): Promise<NonNullable<AgreementReport["correlation"]>> {
  const { store, sources } = await datasetSources(dataset);
  const metricsOf = new Map<string, Record<string, number>>();
  // only the labelled pairs' metrics are held
  for (const { name } of sources) for await (const p of readTier(store, name)) if (byPair.has(p.id) && !metricsOf.has(p.id)) metricsOf.set(p.id, p.metrics);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const human = [...metricsOf.keys()].sort().map((id) => {
    const ls = [...byPair.get(id)!.values()];
    return { metrics: metricsOf.get(id)!, syntactic: mean(ls.map((l) => l.syntactic)), semantic: mean(ls.map((l) => l.semantic)), paraphrase: mean(ls.map((l) => (l.paraphrase ? 1 : 0))) };
  });
  const names = [...new Set(human.flatMap((h) => Object.keys(h.metrics)))];
  const rank = (m: string) => (SYNTACTIC_MEASURES.includes(m) ? SYNTACTIC_MEASURES.indexOf(m) : m === DELTA_METRIC ? 1000 : 100);
  names.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const rows = names.map((metric) => {
    const hs = human.filter((h) => Number.isFinite(h.metrics[metric]));
    const x = hs.map((h) => h.metrics[metric]!);
    const against = (key: "syntactic" | "semantic" | "paraphrase") => {
      const y = hs.map((h) => h[key]);
      return { pearson: num(pearson(x, y)), spearman: num(spearman(x, y)) };
    };
    return { metric, axis: tableSixAxis(metric), n: hs.length, syntactic: against("syntactic"), semantic: against("semantic"), paraphrase: against("paraphrase") };
  });
  return { dataset, matched: human.length, missing: byPair.size - human.length, rating: "mean over annotators", rows };
}
