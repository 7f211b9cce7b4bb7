/** `paracap report <out-dir>`: (re)writes report.html, the Parquet files and the dataset card of a finished output folder. */
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseCommandArgs } from "./parse-args.ts";
import { LocalStore } from "../io/local-store.ts";
import { writePublication } from "../output/publish.ts";
import { parseReferenceMaps, type ReferenceMap } from "../compare/reference-maps.ts";
import { UserError } from "../core/errors.ts";
import { join } from "node:path";
import { resolveConfig } from "../core/config.ts";
import { readConfigFile } from "./config-file.ts";
import { compareFiles } from "../compare/compare-corpora.ts";
import { CorpusFormatError, readCorpusBytes } from "../compare/corpus-formats.ts";

export const REPORT_USAGE = `paracap report <out-dir> [--reference <summary.json | corpus>]…
  writes <out-dir>/report.html (charts inline, nothing fetched when viewed), <tier>.parquet and the
  dataset card README.md from stats.json, config.json and the tier datasets (.jsonl or .jsonl.gz)
  MSRPC train and PAWS dev maps (shipped) are drawn next to ours when the run's semantic score is theirs
  --reference <file>  more reference corpora's maps: the output of \`paracap compare --json\`, or a
                      JSON object or array of {"corpus", "n", "semantic", "map"} with "map" a
                      5×5 grid [syntactic level][semantic level] of shares or counts; or a corpus
                      file compare reads (MSRPC, PAWS, QQP, a headed TSV/CSV/JSONL/Parquet table),
                      summarised as compare --json does with the run's config.json`;

export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("report", {
    args: argv,
    allowPositionals: true,
    options: { reference: { type: "string", multiple: true, default: [] }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    process.stdout.write(REPORT_USAGE + "\n");
    return 0;
  }
  if (positionals.length !== 1) throw new UserError("usage: paracap report <out-dir> [--reference <summary.json>]…");
  const dir = positionals[0]!;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`not a directory: ${dir}`);
  const references: ReferenceMap[] = [];
  const skipped: string[] = [];
  for (const file of values.reference) {
    if (!existsSync(file)) throw new UserError(`no such file: ${file}`);
    references.push(...(await referenceMapsOf(file, dir, skipped)));
  }
  for (const s of skipped) process.stderr.write(`paracap report: ${s}: no characteristic map (no pairs or no semantic score), not drawn\n`);
  const { files, cardSkipped } = await writePublication(new LocalStore(dir), { references });
  process.stderr.write(`paracap report: wrote ${files.join(", ")} in ${dir}\n`);
  if (cardSkipped) process.stderr.write(`paracap report: ${dir}/README.md is not a paracap dataset card; left unchanged\n`);
  return 0;
}

/**
 * A --reference file's maps: a corpus summary (JSON), or a corpus file as downloaded (MSRPC, PAWS, QQP, a headed
 * table: what `paracap compare` reads), summarised as `paracap compare --json --config <dir>/config.json` would,
 * so that its semantic axis is scored as the run's pairs were.
 */
async function referenceMapsOf(file: string, dir: string, skipped: string[]): Promise<ReferenceMap[]> {
  const bytes = await readFile(file);
  const text = bytes.toString("utf8");
  let json = true;
  try {
    JSON.parse(text);
  } catch {
    json = false;
  }
  if (json) return parseReferenceMaps(text, file, skipped);
  let format: string;
  try {
    format = (await readCorpusBytes(bytes)).format;
  } catch (e) {
    if (e instanceof CorpusFormatError) throw new UserError(`${file}: neither a corpus summary (JSON with a 5×5 "map", as paracap compare --json prints) nor a corpus paracap compare reads (${e.message})`);
    throw e;
  }
  const configFile = join(dir, "config.json");
  const config = resolveConfig(existsSync(configFile) ? await readConfigFile(configFile) : {});
  // compare's Table 7 needs the syntactic scorer, whatever the run scored
  const scorers = config.scoring.scorers.includes("syntactic") ? config.scoring.scorers : (["syntactic", ...config.scoring.scorers] as typeof config.scoring.scorers);
  const rows = await compareFiles([file], { ...config, scoring: { ...config.scoring, scorers } });
  const name = format === "pairs" ? "table of pairs" : `${format === "msrp" ? "MSRPC" : format === "tapaco" ? "TaPaCo" : format.toUpperCase()} corpus`;
  process.stderr.write(`paracap report: ${file}: a ${name}, summarised as paracap compare --json does with ${existsSync(configFile) ? "the run's config.json" : "the default config"}\n`);
  return parseReferenceMaps(JSON.stringify(rows), file, skipped);
}
