/**
 * README.md in the output folder: a Hugging Face dataset card. The YAML header declares licence,
 * one config per tier pointing at its Parquet file, features and sizes; the body gives the funnel
 * summary, how the data was made (preset, inputs) and the method's citation. Numbers come from
 * stats.json and the Parquet export, nothing else.
 *
 * The YAML is written by hand for a fixed shape: every string is a JSON string (a valid YAML
 * double-quoted scalar), so no input-derived text can change the structure.
 */
import { tsvCounter } from "../core/counter-names.ts";
import { baseName } from "./html-report.ts";
import { mdCode, mdText } from "./markdown-escape.ts";
import type { Stats } from "./stats.ts";

export interface CardTier {
  tier: string;
  parquet: string;
  parquetBytes: number;
  features: { name: string; dtype: string; description: string }[];
  paraphrase: { yes: number; no: number } | null;
}

export interface CardInput {
  stats: Stats;
  preset: string | null;
  tiers: CardTier[];
}

const CITATION = `@inproceedings{gohsen-etal-2023-paraphrase,
  title     = {Paraphrase Acquisition from Image Captions},
  author    = {Gohsen, Marcel and Hagen, Matthias and Potthast, Martin and Stein, Benno},
  booktitle = {Proceedings of the 17th Conference of the European Chapter of the Association for Computational Linguistics (EACL 2023)},
  year      = {2023},
  address   = {Dubrovnik, Croatia},
  publisher = {Association for Computational Linguistics}
}`;

/** Hugging Face's size buckets. */
export function sizeCategory(n: number): string {
  const buckets: [number, string][] = [[1e3, "n<1K"], [1e4, "1K<n<10K"], [1e5, "10K<n<100K"], [1e6, "100K<n<1M"], [1e7, "1M<n<10M"], [1e8, "10M<n<100M"], [1e9, "100M<n<1B"]];
  return buckets.find(([max]) => n < max)?.[1] ?? "n>1T";
}

/** Wikipedia dumps are named `<lang>wiki-…`; their text is CC BY-SA. Caption lists come from elsewhere. */
export function inputFacts(stats: Stats): { languages: string[]; wikipedia: boolean } {
  const names = stats.inputs.map((i) => baseName(i.uri));
  const langs = names.map((n) => /^([a-z]{2,3}(?:_[a-z]+)?)wiki-/.exec(n)?.[1]).filter((x): x is string => !!x);
  const captionLists = (stats.extraction[tsvCounter("lines")] ?? 0) > 0 || names.some((n) => /\.tsv(\.|$)/i.test(n));
  return { languages: [...new Set(langs.map((l) => l.replace(/_/g, "-")))], wikipedia: !captionLists };
}

/** marks a README.md as paracap's own card, which a later run may overwrite */
export const CARD_MARKER = "<!-- dataset card written by paracap (paracap report <dir> rewrites it) -->";

const q = (s: string) => JSON.stringify(s);
const fmt = (n: number | null | undefined) => (n === null || n === undefined ? "—" : n.toLocaleString("en-US"));

export function renderDatasetCard(input: CardInput): string {
  const { stats, tiers } = input;
  const facts = inputFacts(stats);
  const total = tiers.reduce((a, t) => a + (stats.tiers[t.tier]?.pairs ?? 0), 0);
  const y: string[] = ["---"];
  y.push(`license: ${facts.wikipedia ? "cc-by-sa-4.0" : "other"}`);
  if (facts.languages.length > 0) y.push("language:", ...facts.languages.map((l) => `- ${q(l)}`));
  y.push(`pretty_name: ${q("Paraphrases from image captions (paracap)")}`);
  y.push("size_categories:", `- ${q(sizeCategory(total))}`);
  y.push("task_categories:", `- ${q("sentence-similarity")}`, `- ${q("text-classification")}`);
  y.push("tags:", `- ${q("paraphrase")}`, `- ${q("image-captions")}`, ...(facts.wikipedia ? [`- ${q("wikipedia")}`] : []));
  y.push("configs:");
  tiers.forEach((t, i) => {
    y.push(`- config_name: ${q(t.tier)}`, "  data_files:", "  - split: train", `    path: ${q(t.parquet)}`);
    if (i === 0) y.push("  default: true");
  });
  y.push("dataset_info:");
  for (const t of tiers) {
    const n = stats.tiers[t.tier]?.pairs ?? 0;
    y.push(`- config_name: ${q(t.tier)}`, "  features:");
    for (const f of t.features) y.push(`  - name: ${q(f.name)}`, `    dtype: ${q(f.dtype)}`);
    y.push("  splits:", "  - name: train", `    num_bytes: ${t.parquetBytes}`, `    num_examples: ${n}`);
    y.push(`  download_size: ${t.parquetBytes}`, `  dataset_size: ${t.parquetBytes}`);
  }
  y.push("---");

  const b: string[] = [];
  b.push(CARD_MARKER, "", "# Paraphrases from image captions", "");
  b.push("When one image is used on several Wikipedia pages (or in several revisions of a page), each use tends to get its own caption; " +
    "captions of the same image are paraphrase candidates. This dataset holds such caption pairs, filtered and scored as in " +
    "*Paraphrase Acquisition from Image Captions* (Gohsen et al., EACL 2023), produced by paracap.", "");
  b.push("| config | input | pairs | file |", "|---|---|---:|---|");
  for (const t of tiers) b.push(`| ${t.tier} | ${stats.tiers[t.tier]?.input ?? "—"} revisions | ${fmt(stats.tiers[t.tier]?.pairs)} | \`${t.parquet}\` |`);
  b.push("", "```python", "from datasets import load_dataset", `ds = load_dataset("<this repo>", ${q(tiers[0]?.tier ?? "gold")})`, "```", "");

  b.push("## Funnel", "");
  b.push("From every image reference read to the final pairs (full tables with every filter's drop reasons: `report.html`, `stats.json`).", "");
  b.push("| config | references read | images ≥ 2 references | captions kept | candidate pairs | pairs |", "|---|---:|---:|---:|---:|---:|");
  for (const t of tiers) {
    const rows = stats.tiers[t.tier]?.funnel ?? [];
    const first = rows[0];
    const lastRef = [...rows].reverse().find((r) => r.unit === "references" || r.unit === "captions");
    const firstPair = rows.find((r) => r.unit === "pairs");
    b.push(`| ${t.tier} | ${fmt(first?.references)} | ${fmt(first?.images_ge2)} | ${fmt(lastRef?.captions)} | ${fmt(firstPair?.filter?.in ?? null)} | ${fmt(stats.tiers[t.tier]?.pairs)} |`);
  }
  const para = tiers.filter((t) => t.paraphrase);
  if (para.length > 0) b.push("", `Judged paraphrase (\`paraphrase\` column): ${para.map((t) => `${t.tier} ${fmt(t.paraphrase!.yes)} of ${fmt(t.paraphrase!.yes + t.paraphrase!.no)}`).join(", ")}.`);
  b.push("", stats.complete ? "The run was complete: every input read to its end." : "**The run was incomplete**: some input was damaged or missing (see `stats.json`); the datasets lack those pages.", "");

  b.push("## How it was made", "");
  b.push(input.preset === "paper" ? "Preset `paper`: the published rules exactly." : `Preset \`${input.preset ?? "unknown"}\`${input.preset === "improved" ? " (paracap's default: the published rules with documented corrections)" : ""}.`);
  b.push("Inputs:", "");
  for (const i of stats.inputs) b.push(`- ${mdCode(baseName(i.uri))} (${i.kind}, feeds ${i.tiers.join(", ") || "no tier"})`);
  b.push("", "Steps: extract image references with captions and alt texts from the wikitext; group by image; keep images referenced 2 to 10 times " +
    "(history: up to 180); keep captions of at least 6 words, no profanity, that are sentences (gold) or contain a verb (silver, bronze); " +
    "pair the captions of each image, deduplicate pairs corpus-wide, drop pairs that differ only in case, punctuation or asides; score every pair.", "");

  b.push("## Fields", "", "| column | type | meaning |", "|---|---|---|");
  for (const f of tiers[0]?.features ?? []) b.push(`| \`${f.name}\` | ${f.dtype} | ${mdText(f.description)} |`);
  b.push("");

  b.push("## Licence", "");
  b.push(facts.wikipedia
    ? "The captions are Wikipedia text, licensed under [CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/); each pair names the pages its captions come from (`a_page`, `b_page`, revision ids) for attribution."
    : "The captions come from caption lists, not Wikipedia: their licence is that of the source (see its terms); `license: other` until stated.", "");
  b.push("## Citation", "", "The method:", "", "```bibtex", CITATION, "```", "");
  return y.join("\n") + "\n\n" + b.join("\n");
}
