/**
 * The accounting rules every stats.json must satisfy (docs/method.md funnel, paper Table 3). Returns the
 * violated rules as readable strings, so a test can both assert "none" and prove the checker bites.
 */
import type { FunnelRow, Stats } from "../../shared/output/stats.ts";

const COLUMN: Record<NonNullable<FunnelRow["unit"]>, "references" | "captions" | "candidates"> = {
  references: "references",
  captions: "captions",
  pairs: "candidates",
};

export function reconcile(stats: Stats, pairLines: Record<string, number> = {}): string[] {
  const bad: string[] = [];
  const c = stats.counters;
  const n = (k: string) => c[k] ?? 0;
  const check = (ok: boolean, what: string) => {
    if (!ok) bad.push(what);
  };

  // every revision read is accounted for
  const skipped = Object.entries(c).filter(([k]) => k.startsWith("dump.skipped.")).reduce((s, [, v]) => s + v, 0);
  check(n("dump.revisions") === n("dump.revisions.emitted") + skipped,
    `dump.revisions ${n("dump.revisions")} ≠ emitted ${n("dump.revisions.emitted")} + skipped ${skipped}`);
  // every caption-list line read is accounted for
  const tsvSkipped = Object.entries(c).filter(([k]) => k.startsWith("tsv.skipped.")).reduce((s, [, v]) => s + v, 0);
  check(n("tsv.lines") === n("tsv.lines.emitted") + tsvSkipped, `tsv.lines ${n("tsv.lines")} ≠ emitted ${n("tsv.lines.emitted")} + skipped ${tsvSkipped}`);
  // every document (revision or line) used reaches extraction
  // (the extract stage counts a dump's revisions and a caption list's lines each under its noun: extractDocumentsCounter)
  const documents = n("dump.revisions.emitted") + n("tsv.lines.emitted");
  const extracted = ["current", "history"].reduce((a, kind) => a + n(`extract.${kind}.revisions`) + n(`extract.${kind}.caption_lines`), 0);
  check(documents === extracted, `documents used ${documents} ≠ extract revisions and caption lines ${extracted}`);
  for (const kind of ["current", "history"]) {
    const bySource = Object.entries(c).filter(([k]) => k.startsWith(`extract.${kind}.references.`)).reduce((s, [, v]) => s + v, 0);
    check(bySource === n(`extract.${kind}.references`), `${kind}: references by source ${bySource} ≠ ${n(`extract.${kind}.references`)}`);
  }
  // every shard is accounted for
  const s = stats.shards;
  check(s.total === s.ok + s.corrupt.length + s.missing.length, `shards ${s.total} ≠ ok + corrupt + missing`);
  check(n("extract.shards") === s.ok + s.corrupt.length, `extract.shards ${n("extract.shards")} ≠ ok + corrupt`);
  check(n("extract.shards.corrupt") === s.corrupt.length, `extract.shards.corrupt ≠ corrupt list`);
  check(stats.complete === (s.corrupt.length === 0 && s.missing.length === 0), "complete ≠ (no corrupt and no missing shard)");

  for (const [tier, t] of Object.entries(stats.tiers)) {
    const rows = t.funnel;
    const kind = t.input;
    check(rows[0]!.id === "all" && rows[0]!.filter === null, `${tier}: row 0 is not the unfiltered row`);
    check(rows[0]!.references === n(`extract.${kind}.references`),
      `${tier}: row 0 references ${rows[0]!.references} ≠ extract.${kind}.references ${n(`extract.${kind}.references`)}`);
    for (let i = 1; i < rows.length; i++) {
      const row = rows[i]!;
      const prev = rows[i - 1]!;
      const f = row.filter;
      if (!f || !row.unit) {
        bad.push(`${tier}: row ${i} (${row.id}) has no filter`);
        continue;
      }
      const where = `${tier} row ${i} (${row.id})`;
      check(f.kept + f.dropped === f.in, `${where}: kept ${f.kept} + dropped ${f.dropped} ≠ in ${f.in}`);
      const reasons = Object.values(f.reasons).reduce((a, b) => a + b, 0);
      check(reasons === f.dropped, `${where}: reasons sum ${reasons} ≠ dropped ${f.dropped}`);
      // the chain: a row's filter sees what the row above left, in the filter's unit, and keeps what
      // the row reports
      const col = COLUMN[row.unit];
      const before = prev[col];
      if (before !== null) check(f.in === before, `${where}: in ${f.in} ≠ row ${i - 1} ${col} ${before}`);
      const after = row[col];
      if (after !== null) check(f.kept === after, `${where}: kept ${f.kept} ≠ row ${col} ${after}`);
      if (row.unit === "pairs" && prev.unit === "pairs") check(f.in === prev.filter!.kept, `${where}: in ${f.in} ≠ previous kept ${prev.filter!.kept}`);
      // nothing grows down the funnel
      for (const k of ["images", "references", "captions", "candidates"] as const) {
        const a = prev[k];
        const b = row[k];
        if (a !== null && b !== null) check(b <= a, `${where}: ${k} grows ${a} → ${b}`);
      }
      for (const k of ["images_ge2", "images_ge5"] as const) {
        const b = row[k];
        if (b !== null && row.images !== null) check(b <= row.images, `${where}: ${k} ${b} > images ${row.images}`);
      }
    }
    // pairs built = input of the first pair filter; the last row = the dataset
    const firstPairRow = rows.find((r) => r.unit === "pairs")!;
    check(firstPairRow.filter!.in === n(`group.${tier}.pairs`), `${tier}: ${firstPairRow.id} in ${firstPairRow.filter!.in} ≠ pairs built ${n(`group.${tier}.pairs`)}`);
    const last = rows[rows.length - 1]!;
    check(last.candidates === t.pairs, `${tier}: last row ${last.candidates} ≠ pairs ${t.pairs}`);
    if (pairLines[tier] !== undefined) check(pairLines[tier] === t.pairs, `${tier}: ${pairLines[tier]} lines in ${tier}.jsonl ≠ pairs ${t.pairs}`);
  }
  return bad;
}
