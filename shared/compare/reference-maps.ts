/**
 * Characteristic maps of reference corpora (MSRPC, PAWS, …) to draw next to ours: a JSON file with
 * one summary or an array of them, e.g. the rows `paracap compare --json` prints when they carry a
 * `map`. A map is a 5×5 grid [syntactic level][semantic level] of shares or of counts.
 */
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { referenceCorpora } from "./reference-corpora.ts";
import { SEMANTIC, SemanticScoring, scoringDifference } from "../semantic/semantic-score.ts";
import { CharacteristicMap, MAP_LEVELS, mapFromShares } from "./characteristic-map.ts";

const Grid = z.array(z.array(z.number().nonnegative()).length(MAP_LEVELS)).length(MAP_LEVELS);

const ReferenceRow = z.object({
  corpus: z.string().optional(),
  name: z.string().optional(),
  n: z.number().int().nonnegative().optional(),
  /** the semantic score the map's semantic axis used */
  semantic: z.string().optional(),
  /** what the semantic axis's values depend on (`paracap compare --json` rows carry it) */
  scoring: SemanticScoring.optional(),
  map: z.union([Grid, z.object({ shares: Grid.optional(), counts: Grid.optional(), n: z.number().optional() })]),
}).loose();

export interface ReferenceMap {
  corpus: string;
  semantic: string | null;
  scoring: SemanticScoring | null;
  map: CharacteristicMap;
}

/**
 * Parses a reference file's text; a row without a usable map is the user's mistake, said in one line. A row whose
 * map is null (a `paracap compare` row of a corpus without pairs or semantic scores) goes to `skipped` when given.
 */
export function parseReferenceMaps(text: string, file: string, skipped?: string[]): ReferenceMap[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(`${file}: not JSON (expected a corpus summary with a 5×5 "map", or an array of them)`);
  }
  const rows = Array.isArray(value) ? value : [value];
  const out: ReferenceMap[] = [];
  rows.forEach((row, i) => {
    const r = row as { map?: unknown; corpus?: unknown; name?: unknown } | null;
    if (skipped && r !== null && typeof r === "object" && r.map === null) skipped.push(`${file}: ${String(r.corpus ?? r.name ?? `entry ${i + 1}`)}`);
    else out.push(referenceMap(row, file, i));
  });
  return out;
}

/** One reference entry (a corpus summary such as a `paracap compare --json` row) → the map the report draws. */
export function referenceMap(row: unknown, file: string, i: number): ReferenceMap {
  const parsed = ReferenceRow.safeParse(row);
  if (!parsed.success) throw new UserError(`${file}: entry ${i + 1}: needs "corpus" and a 5×5 "map" of shares or counts (${parsed.error.issues[0]?.path.join(".") || "entry"}: ${parsed.error.issues[0]?.message})`);
  const r = parsed.data;
  const corpus = r.corpus ?? r.name ?? `${file} #${i + 1}`;
  return { corpus, semantic: r.scoring?.semantic ?? r.semantic ?? null, scoring: r.scoring ?? null, map: toMap(r, `${file}: ${corpus}`) };
}

/**
 * The shipped MSRPC and PAWS summaries (shared/compare/data/reference-corpora.json) as reference maps: all pairs,
 * like our tiers' maps (the judged-paraphrase subset lies in the top semantic level by construction, as its
 * threshold is above 0.8).
 */
export function shippedReferenceMaps(): ReferenceMap[] {
  return referenceCorpora().all.map((row, i) => referenceMap({ ...row, corpus: `${row.corpus} (all pairs)` }, "reference-corpora.json", i));
}

function toMap(r: z.infer<typeof ReferenceRow>, where: string): CharacteristicMap {
  const m = r.map;
  if (Array.isArray(m)) return gridToMap(m, r.n, where);
  if (m.counts) return gridToMap(m.counts, m.n ?? r.n, where, true);
  if (m.shares) return gridToMap(m.shares, m.n ?? r.n, where);
  throw new UserError(`${where}: "map" has neither "shares" nor "counts"`);
}

function gridToMap(grid: number[][], n: number | undefined, where: string, counts = false): CharacteristicMap {
  const total = grid.flat().reduce((a, b) => a + b, 0);
  if (counts || total > 1 + 1e-6) {
    if (!grid.flat().every(Number.isInteger)) throw new UserError(`${where}: map cells sum to ${total}: neither shares (sum 1) nor whole counts`);
    return CharacteristicMap.parse({ n: total, counts: grid, shares: grid.map((row) => row.map((c) => (total === 0 ? 0 : c / total))) });
  }
  if (Math.abs(total - 1) > 0.01) throw new UserError(`${where}: map shares sum to ${total.toFixed(3)}, not 1`);
  return mapFromShares(n ?? 0, grid);
}

/** The semantic axis of our tiers' maps: the metric, and how it was scored when the run's config says (else null). */
export interface RunAxis {
  metric: string;
  scoring: SemanticScoring | null;
}

/** Why a reference map is not comparable with ours (its semantic axis differs), or null when it is or cannot be told. */
export function referenceMismatch(ref: ReferenceMap, run: RunAxis): string | null {
  const ours = run.metric === SEMANTIC ? run.scoring : null;
  if (ref.scoring && ours) return scoringDifference(ours, ref.scoring);
  const name = ours?.semantic ?? run.metric;
  return ref.semantic !== null && ref.semantic !== name ? `semantic = ${name} here, ${ref.semantic} there` : null;
}

/**
 * The shipped MSRPC/PAWS maps when our semantic axis is scored as theirs was; else none and the reason, in one line.
 * `run` is null when no tier has a semantic score.
 */
export function defaultReferenceMaps(run: RunAxis | null): { maps: ReferenceMap[]; note: string | null } {
  const shipped = shippedReferenceMaps();
  const names = shipped.map((r) => r.corpus.replace(/ \(.*/, "")).join(" and ");
  const why = (reason: string) => ({ maps: [], note: `The ${names} maps are not shown: ${reason}.` });
  if (run === null) return why("our pairs carry no semantic score to compare with");
  if (run.metric !== SEMANTIC) return why(`theirs use the pair's ${SEMANTIC} score, our maps ${run.metric}`);
  if (run.scoring === null) return why("this run's scoring is not recorded (config.json), so their semantic axis may differ from ours");
  const diff = shipped.map((r) => referenceMismatch(r, run)).find((d) => d !== null);
  return diff ? why(`they were scored differently (${diff}); \`paracap compare --json\` on those corpora with this run's config gives comparable maps for --reference`) : { maps: shipped, note: null };
}
