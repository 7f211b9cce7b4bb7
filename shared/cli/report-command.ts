/** `paracap report <out-dir>`: (re)writes report.html, the Parquet files and the dataset card of a finished output folder. */
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseCommandArgs } from "./parse-args.ts";
import { LocalStore } from "../io/local-store.ts";
import { writePublication } from "../output/publish.ts";
import { parseReferenceMaps, type ReferenceMap } from "../compare/reference-maps.ts";
import { UserError } from "../core/errors.ts";

export const REPORT_USAGE = `paracap report <out-dir> [--reference <summary.json>]…
  writes <out-dir>/report.html (charts inline, nothing fetched when viewed), <tier>.parquet and the
  dataset card README.md from stats.json, config.json and the tier datasets (.jsonl or .jsonl.gz)
  MSRPC train and PAWS dev maps (shipped) are drawn next to ours when the run's semantic score is theirs
  --reference <file>  more reference corpora's maps: the output of \`paracap compare --json\`, or a
                      JSON object or array of {"corpus", "n", "semantic", "map"} with "map" a
                      5×5 grid [syntactic level][semantic level] of shares or counts`;

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
    references.push(...parseReferenceMaps(await readFile(file, "utf8"), file, skipped));
  }
  for (const s of skipped) process.stderr.write(`paracap report: ${s}: no characteristic map (no pairs or no semantic score), not drawn\n`);
  const { files, cardSkipped } = await writePublication(new LocalStore(dir), { references });
  process.stderr.write(`paracap report: wrote ${files.join(", ")} in ${dir}\n`);
  if (cardSkipped) process.stderr.write(`paracap report: ${dir}/README.md is not a paracap dataset card; left unchanged\n`);
  return 0;
}
