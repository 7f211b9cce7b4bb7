/**
 * The agreement report as terminal tables and as a report.html section. The section is built from
 * `agreement.json` in an output folder (written by `paracap agreement`); every file name, annotator
 * and metric name goes through htmlText (annotator ids are constrained, but a hand-edited
 * agreement.json is still untrusted input).
 */
import type { BlobStore } from "../io/blob-store.ts";
import { htmlText as h } from "../output/html-escape.ts";
import { AgreementReport, VARIABLE_LABELS } from "./agreement-report.ts";

export const AGREEMENT_JSON = "agreement.json";

const f2 = (x: number | null) => (x === null ? "—" : x.toFixed(2));
const f3 = (x: number | null) => (x === null ? "—" : x.toFixed(3));

function cohenCell(v: AgreementReport["variables"][number]): string {
  if (v.cohen.length === 0) return "—";
  if (v.cohen.length === 1) return `${f3(v.cohen[0]!.kappa)} (n ${v.cohen[0]!.n})`;
  const ks = v.cohen.map((c) => c.kappa).filter((k): k is number => k !== null);
  return ks.length === 0 ? "—" : `mean ${f3(ks.reduce((a, b) => a + b, 0) / ks.length)} of ${v.cohen.length} pairs`;
}
const fleissCell = (v: AgreementReport["variables"][number]) => (v.fleiss === null ? "—" : `${f3(v.fleiss.kappa)} (n ${v.fleiss.n})`);
const alphaCell = (v: AgreementReport["variables"][number]) => v.alpha.map((a) => `${a.metric} ${f3(a.alpha)}`).join(", ");

function table(head: string[], rows: string[][]): string {
  const w = head.map((hd, i) => Math.max(hd.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join("  ").trimEnd();
  return [line(head), line(w.map((n) => "─".repeat(n))), ...rows.map(line)].join("\n");
}

/** Plain-text tables for the terminal. */
export function agreementText(r: AgreementReport): string {
  const out: string[] = [];
  const bad = r.files.reduce((a, f) => a + f.bad, 0);
  out.push(`${r.annotators.length} annotator${r.annotators.length === 1 ? "" : "s"} (${r.annotators.join(", ") || "none"}), ${r.pairs} pairs labelled, ${r.pairsByAll} by every annotator`);
  if (bad > 0) out.push(`${bad} unreadable line(s) skipped: ${r.files.flatMap((f) => f.badExamples.map((b) => `${b.file}:${b.line} ${b.why}`)).join("; ")}`);
  out.push("", table(["variable", "Cohen's κ", "Fleiss' κ", "Krippendorff's α"], r.variables.map((v) => [VARIABLE_LABELS[v.variable], cohenCell(v), fleissCell(v), alphaCell(v)])));
  const pairs = r.variables[0]?.cohen ?? [];
  if (pairs.length > 1) {
    out.push("", "Cohen's κ per pair of annotators:");
    out.push(table(["annotators", "n", ...r.variables.map((v) => v.variable)], pairs.map((c, i) => [`${c.a} – ${c.b}`, String(c.n), ...r.variables.map((v) => f3(v.cohen[i]!.kappa))])));
  }
  if (r.correlation) {
    const c = r.correlation;
    out.push("", `Correlation of the automatic measures with the human ratings (${c.rating}; ${c.matched} pairs found in ${c.dataset}${c.missing ? `, ${c.missing} not found` : ""}); * = the rating the paper's Table 6 correlates the measure with:`);
    const mark = (row: (typeof c.rows)[number], axis: string, x: number | null) => `${f2(x)}${row.axis === axis ? "*" : " "}`;
    out.push(table(["metric", "n", "syn r", "syn ρ", "sem r", "sem ρ", "para r", "para ρ"], c.rows.map((row) => [row.metric, String(row.n), mark(row, "syntactic", row.syntactic.pearson), mark(row, "syntactic", row.syntactic.spearman), mark(row, "semantic", row.semantic.pearson), mark(row, "semantic", row.semantic.spearman), f2(row.paraphrase.pearson), f2(row.paraphrase.spearman)])));
  } else out.push("", "No correlation with the automatic measures: the dataset was not found (pass --dataset <out-dir>).");
  return out.join("\n") + "\n";
}

/** The report.html section (ids and classes as in html-report.ts). */
export function agreementHtmlSection(r: AgreementReport): string {
  const td = (x: string) => `<td>${h(x)}</td>`;
  const tn = (x: string) => `<td class="n">${h(x)}</td>`;
  const rows = r.variables.map((v) => `<tr><td>${h(VARIABLE_LABELS[v.variable])}</td>${tn(cohenCell(v))}${tn(fleissCell(v))}${tn(alphaCell(v))}</tr>`).join("");
  const bad = r.files.reduce((a, f) => a + f.bad, 0);
  const parts = [
    `<section id="agreement"><h2>Human judgements</h2>`,
    `<p class="note">${h(`${r.annotators.length} annotator(s) (${r.annotators.join(", ")}), ${r.pairs} pairs labelled, ${r.pairsByAll} by every annotator.`)}${bad ? h(` ${bad} unreadable line(s) of the labels files were skipped.`) : ""} Cohen's κ on the pairs two annotators share, Fleiss' κ on the pairs all labelled, Krippendorff's α on all (missing judgements allowed).</p>`,
    `<table><thead><tr><th>variable</th><th class="n">Cohen's κ</th><th class="n">Fleiss' κ</th><th class="n">Krippendorff's α</th></tr></thead><tbody>${rows}</tbody></table>`,
  ];
  if (r.correlation) {
    const c = r.correlation;
    const cell = (row: (typeof c.rows)[number], axis: string, x: number | null) => (row.axis === axis ? `<td class="n"><b>${f2(x)}</b></td>` : `<td class="n">${f2(x)}</td>`);
    parts.push(
      `<h3>Automatic measures against human ratings</h3><p class="note">${h(`Pearson r and Spearman ρ between each metric and the human rating (${c.rating}) of ${c.matched} pairs`)}; in bold the rating the paper's Table 6 pairs the measure with (syntactic measures with syntactic ratings, semantic with semantic). The paper reports r = 0.78 / 0.77 / 0.70 / 0.79 for ROUGE-1 / ROUGE-L / BLEU / their mean and 0.59 / 0.70 / 0.78 / 0.76 for WMS / BERTScore / Sentence Transformer / their mean.</p>`,
      `<table><thead><tr><th>metric</th><th class="n">n</th><th class="n">syntactic r</th><th class="n">syntactic ρ</th><th class="n">semantic r</th><th class="n">semantic ρ</th><th class="n">paraphrase r</th></tr></thead><tbody>`,
      c.rows.map((row) => `<tr>${td(row.metric)}${tn(String(row.n))}${cell(row, "syntactic", row.syntactic.pearson)}${cell(row, "syntactic", row.syntactic.spearman)}${cell(row, "semantic", row.semantic.pearson)}${cell(row, "semantic", row.semantic.spearman)}${tn(f2(row.paraphrase.pearson))}</tr>`).join(""),
      `</tbody></table>`,
    );
  }
  parts.push(`</section>`);
  return parts.join("\n");
}

/**
 * The hook for report.html: the human-judgement section when the folder holds an agreement.json
 * (none otherwise; an unreadable one is a one-line note, never a failed report).
 */
export async function agreementSections(store: BlobStore): Promise<{ id: string; title: string; html: string }[]> {
  const text = await store.readText(AGREEMENT_JSON);
  if (text === null) return [];
  let parsed;
  try {
    parsed = AgreementReport.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  const html = parsed?.success
    ? agreementHtmlSection(parsed.data)
    : `<section id="agreement"><h2>Human judgements</h2><p class="note">${h(`${AGREEMENT_JSON} is not an agreement report (rerun paracap agreement); not shown.`)}</p></section>`;
  return [{ id: "agreement", title: "Human judgements", html }];
}
