/**
 * README.md in the output folder: a Hugging Face dataset card. The YAML header declares licence,
 * one config per tier pointing at its Parquet file, features and sizes; the body gives the funnel
 * summary, how the data was made (preset, inputs) and the method's citation. Numbers come from
 * stats.json and the Parquet export, nothing else.
 *
 * The YAML is written by hand for a fixed shape: every string is a JSON string (a valid YAML
 * double-quoted scalar), so no input-derived text can change the structure.
 */
import type { ParacapConfig } from "../core/config.ts";
import { dumpCounter, pivotReferencesCounter, tsvCounter, warcCounter } from "../core/counter-names.ts";
import { tierInput } from "./documents-read.ts";
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
  /** the run's config (config.json), for the thresholds it used; null when it could not be read */
  config?: ParacapConfig | null;
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

/** Where a run's captions came from, each under its own terms. */
export interface InputFacts {
  languages: string[];
  /** MediaWiki dumps: CC BY-SA text */
  wikipedia: boolean;
  /** web crawls (WARC): each page's text is its owner's */
  web: boolean;
  /** caption lists (TSV) and img2dataset outputs: their source's licence */
  captionLists: boolean;
  /** only Wikipedia text: the dataset can say CC BY-SA */
  wikipediaOnly: boolean;
}

/**
 * Which kinds of input a run read, by what their readers counted (names only as a fallback, for a
 * stats.json of a run that read nothing): Wikipedia dumps are named `<lang>wiki-…`.
 */
export function inputFacts(stats: Stats): InputFacts {
  const names = stats.inputs.map((i) => baseName(i.uri));
  const langs = names.map((n) => /^([a-z]{2,3}(?:_[a-z]+)?)wiki-/.exec(n)?.[1]).filter((x): x is string => !!x);
  const x = stats.extraction;
  const read = (name: string) => (x[name] ?? 0) > 0;
  const web = read(warcCounter("records")) || names.some((n) => /\.w?arc(\.gz|\.zst|\.zstd|\.bz2|\.xz)?$|\.wacz$|warc\.paths(\.gz)?$/i.test(n));
  const captionLists = read(tsvCounter("lines")) || Object.keys(x).some((k) => k.startsWith("pixels.")) || names.some((n) => /\.(tsv|csv|jsonl|ndjson|parquet)(\.|$)|\.tar$/i.test(n));
  const wikipedia = read(dumpCounter("pages")) || (!web && !captionLists);
  return { languages: [...new Set(langs.map((l) => l.replace(/_/g, "-")))], wikipedia, web, captionLists, wikipediaOnly: wikipedia && !web && !captionLists };
}

/** The licence section: each kind of input read, under its terms. */
function licenceText(facts: InputFacts): string {
  if (facts.wikipediaOnly) return "The captions are Wikipedia text, licensed under [CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/); each pair names the pages its captions come from (`a_page`, `b_page`, revision ids) for attribution.";
  const parts: string[] = [];
  if (facts.wikipedia) parts.push("captions from Wikipedia are licensed under [CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/)");
  if (facts.web) parts.push("captions from web pages (a crawl's alt, title, figcaption and nearby text) belong to each page's owner, as the crawl's terms say (Common Crawl: its terms of use)");
  if (facts.captionLists) parts.push("captions from caption lists carry their source's licence (see its terms)");
  return `Licences of the captions: ${parts.join("; ")}. Each pair names the pages its captions come from (\`a_page\`, \`b_page\`) for attribution; \`license: other\` until stated.`;
}

/** The card's opening: where one image's uses were found, by the kinds of input the run read. */
function usesText(facts: InputFacts): string {
  if (facts.wikipediaOnly) return "When one image is used on several Wikipedia pages (or in several revisions of a page)";
  const where = [facts.wikipedia ? "Wikipedia pages or their revisions" : null, facts.web ? "web pages" : null, facts.captionLists ? "lines of a caption list" : null].filter((s): s is string => s !== null);
  return `When one image is used in several places (${where.join(", ")})`;
}

/** What the run did, with the thresholds it used (the config's, not the defaults'). */
function stepsText(facts: InputFacts, config: ParacapConfig | null | undefined): string {
  const from = [facts.wikipedia ? "the wikitext (captions and alt texts)" : null, facts.web ? "web pages (alt, title, figcaption, table and nearby text)" : null, facts.captionLists ? "caption lists" : null].filter((s): s is string => s !== null);
  if (!config) return `Steps: extract image references with their captions from ${from.join(", ")}; group by image; filter images, captions and pairs (thresholds: see \`config.json\`); pair the captions of each image, deduplicate pairs corpus-wide; score every pair.`;
  const i = config.images;
  const c = config.captions;
  return `Steps: extract image references with their captions from ${from.join(", ")}; group by image (pivot \`${config.pivot}\`); keep images referenced ${i.minRefs} to ${i.maxRefs} times ` +
    `(history: up to ${i.maxRefsHistory} ${i.maxRefsHistoryUnit === "uses" ? "uses" : "references"}); keep captions of ${c.minWords} to ${c.maxWords} words, no profanity, that are sentences (gold) or contain a verb (silver, bronze); ` +
    "pair the captions of each image, deduplicate pairs corpus-wide, drop pairs that differ only in case, punctuation or asides; score every pair.";
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
  y.push(`license: ${facts.wikipediaOnly ? "cc-by-sa-4.0" : "other"}`);
  if (facts.languages.length > 0) y.push("language:", ...facts.languages.map((l) => `- ${q(l)}`));
  y.push(`pretty_name: ${q("Paraphrases from image captions (paracap)")}`);
  y.push("size_categories:", `- ${q(sizeCategory(total))}`);
  y.push("task_categories:", `- ${q("sentence-similarity")}`, `- ${q("text-classification")}`);
  y.push("tags:", `- ${q("paraphrase")}`, `- ${q("image-captions")}`, ...(facts.wikipedia ? [`- ${q("wikipedia")}`] : []), ...(facts.web ? [`- ${q("web-crawl")}`] : []));
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
  b.push(`${usesText(facts)}, each use tends to get its own caption; ` +
    "captions of the same image are paraphrase candidates. This dataset holds such caption pairs, filtered and scored as in " +
    "*Paraphrase Acquisition from Image Captions* (Gohsen et al., EACL 2023), produced by paracap.", "");
  b.push("| config | input | pairs | file |", "|---|---|---:|---|");
  for (const t of tiers) {
    const kind = stats.tiers[t.tier]?.input;
    b.push(`| ${t.tier} | ${kind === undefined ? "—" : tierInput(stats.extraction, kind)} | ${fmt(stats.tiers[t.tier]?.pairs)} | \`${t.parquet}\` |`);
  }
  b.push("", "```python", "from datasets import load_dataset", `ds = load_dataset("<this repo>", ${q(tiers[0]?.tier ?? "gold")})`, "```", "");

  b.push("## Funnel", "");
  b.push("From every image reference read to the final pairs (full tables with every filter's drop reasons: `report.html`, `stats.json`).", "");
  b.push("| config | references read | images ≥ 2 references | captions kept | candidate pairs | pairs |", "|---|---:|---:|---:|---:|---:|");
  // a text pivot's funnel counts its copies of each reference, one per key: the card says the references read
  const copies: string[] = [];
  for (const t of tiers) {
    const rows = stats.tiers[t.tier]?.funnel ?? [];
    // (a crawl's caption filters come first: the references are counted on the row of all of them)
    const first = rows.find((r) => r.id === "all") ?? rows[0];
    const lastRef = [...rows].reverse().find((r) => r.unit === "references" || r.unit === "captions");
    const firstPair = rows.find((r) => r.unit === "pairs");
    const kind = stats.tiers[t.tier]?.input;
    const keyed = stats.pivot && kind !== undefined ? stats.counters[pivotReferencesCounter(stats.pivot.name, kind)] : undefined;
    // the funnel's first pair row takes in every meeting of two captions under a key; those the pivot did not pair
    // (met under an earlier key, same text, below its threshold: `pivot_<reason>` drops) were never candidates
    const meetings = firstPair?.filter?.in ?? null;
    const unpaired = Object.entries(firstPair?.filter?.reasons ?? {}).reduce((n, [reason, k]) => (reason.startsWith("pivot_") ? n + k : n), 0);
    if (keyed !== undefined) copies.push(`${t.tier} ${fmt(first?.references)} keyed copies${unpaired > 0 ? ` and ${fmt(meetings)} meetings of two captions under a key` : ""}`);
    b.push(`| ${t.tier} | ${fmt(keyed ?? first?.references)} | ${fmt(first?.images_ge2)} | ${fmt(lastRef?.captions)} | ${fmt(meetings === null ? null : meetings - unpaired)} | ${fmt(stats.tiers[t.tier]?.pairs)} |`);
  }
  if (copies.length > 0) b.push("", `Under the text pivot \`${stats.pivot!.name}\` each reference read is copied once per key of its captions, and the funnel counts the copies (${copies.join(", ")}); the next columns count its keys as images, and the candidate pairs are the pairs it made of the meetings.`);
  const para = tiers.filter((t) => t.paraphrase);
  if (para.length > 0) b.push("", `Judged paraphrase (\`paraphrase\` column): ${para.map((t) => `${t.tier} ${fmt(t.paraphrase!.yes)} of ${fmt(t.paraphrase!.yes + t.paraphrase!.no)}`).join(", ")}.`);
  b.push("", stats.complete ? "The run was complete: every input read to its end." : "**The run was incomplete**: some input was damaged or missing (see `stats.json`); the datasets lack those pages.", "");

  b.push("## How it was made", "");
  b.push(input.preset === "paper" ? "Preset `paper`: the published rules exactly." : `Preset \`${input.preset ?? "unknown"}\`${input.preset === "improved" ? " (paracap's default: the published rules with documented corrections)" : ""}.`);
  b.push("Inputs:", "");
  for (const i of stats.inputs) b.push(`- ${mdCode(baseName(i.uri))} (${i.kind}, feeds ${i.tiers.join(", ") || "no tier"})`);
  b.push("", stepsText(facts, input.config), "");

  b.push("## Fields", "", "| column | type | meaning |", "|---|---|---|");
  for (const f of tiers[0]?.features ?? []) b.push(`| \`${f.name}\` | ${f.dtype} | ${mdText(f.description)} |`);
  b.push("");

  b.push("## Licence", "");
  b.push(licenceText(facts), "");
  b.push("## Citation", "", "The method:", "", "```bibtex", CITATION, "```", "");
  return y.join("\n") + "\n\n" + b.join("\n");
}
