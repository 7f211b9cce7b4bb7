/**
 * Characteristic maps of reference corpora (MSRPC, PAWS, …) to draw next to ours: a JSON file with
 * one summary or an array of them, e.g. the rows `paracap compare --json` prints when they carry a
 * `map`. A map is a 5×5 grid [syntactic level][semantic level] of shares or of counts.
 */
import { z } from "zod";
import { UserError } from "../cli/errors.ts";
import { CharacteristicMap, MAP_LEVELS, mapFromShares } from "./characteristic-map.ts";

const Grid = z.array(z.array(z.number().nonnegative()).length(MAP_LEVELS)).length(MAP_LEVELS);

const ReferenceRow = z.object({
  corpus: z.string().optional(),
  name: z.string().optional(),
  n: z.number().int().nonnegative().optional(),
  /** the semantic score the map's semantic axis used */
  semantic: z.string().optional(),
  map: z.union([Grid, z.object({ shares: Grid.optional(), counts: Grid.optional(), n: z.number().optional() })]),
}).loose();

export interface ReferenceMap {
  corpus: string;
  semantic: string | null;
  map: CharacteristicMap;
}

/** Parses a reference file's text; a row without a usable map is the user's mistake, said in one line. */
export function parseReferenceMaps(text: string, file: string): ReferenceMap[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(`${file}: not JSON (expected a corpus summary with a 5×5 "map", or an array of them)`);
  }
  const rows = Array.isArray(value) ? value : [value];
  return rows.map((row, i) => {
    const parsed = ReferenceRow.safeParse(row);
    if (!parsed.success) throw new UserError(`${file}: entry ${i + 1}: needs "corpus" and a 5×5 "map" of shares or counts (${parsed.error.issues[0]?.path.join(".") || "entry"}: ${parsed.error.issues[0]?.message})`);
    const r = parsed.data;
    const corpus = r.corpus ?? r.name ?? `${file} #${i + 1}`;
    return { corpus, semantic: r.semantic ?? null, map: toMap(r, `${file}: ${corpus}`) };
  });
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
