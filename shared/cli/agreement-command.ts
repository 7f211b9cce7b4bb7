/** `paracap agreement <labels.jsonl>… [--dataset <dir>] [--json <file>]`: agreement and Table 6, printed and as JSON. */
import { existsSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseCommandArgs } from "./parse-args.ts";
import { AGREEMENT_JSON, agreementText } from "../annotate/agreement-render.ts";
import { computeAgreement, datasetOfLabels } from "../annotate/agreement.ts";
import { UserError } from "../core/errors.ts";
import { labelsFilesOfArgs } from "./labels-args.ts";

export const AGREEMENT_USAGE = `paracap agreement <labels.jsonl | labels folder | dataset folder>… [--dataset <out-dir>] [--json <file>]
  inter-annotator agreement of the labels files written by paracap annotate (a folder: its *.jsonl,
  or its labels/ folder's; a pattern such as out/labels/*.jsonl is expanded where the shell did not): Cohen's kappa (per two
  annotators), Fleiss' kappa and Krippendorff's alpha (nominal for paraphrase and relation, ordinal
  and interval for the 1–5 scales); with the dataset, Pearson and Spearman correlation of every
  metric of the pairs with the mean human ratings (the paper's Table 6)
  --dataset <dir>  the dataset folder (default: the folder holding labels/, when it has the tiers)
  --json <file>    where the JSON goes (default: <dataset>/agreement.json, which paracap report adds
                   to report.html; without a dataset: agreement.json beside the first labels file)`;

export async function agreementCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("agreement", {
    args: argv,
    allowPositionals: true,
    options: { dataset: { type: "string" }, json: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    process.stdout.write(AGREEMENT_USAGE + "\n");
    return 0;
  }
  if (positionals.length === 0) throw new UserError("usage: paracap agreement <labels.jsonl>… [--dataset <out-dir>] [--json <file>]");
  const files = labelsFilesOfArgs(positionals);
  if (new Set(files).size !== files.length) throw new UserError("a labels file is given twice");
  if (values.dataset !== undefined && !existsSync(values.dataset)) throw new UserError(`no such dataset: ${values.dataset}`);
  if (values.dataset !== undefined && !statSync(values.dataset).isDirectory()) throw new UserError(`--dataset takes a run's output folder (with its <tier>.jsonl files), not a file: ${values.dataset}`);
  // where the JSON goes is checked before the work: a wrong --json should not cost the computation
  if (values.json !== undefined) {
    if (existsSync(values.json) && statSync(values.json).isDirectory()) throw new UserError(`--json names a folder, not a file: ${values.json}`);
    if (!existsSync(dirname(values.json))) throw new UserError(`no such folder for --json: ${dirname(values.json)}`);
  }
  const dataset = values.dataset ?? datasetOfLabels(files[0]!);
  const report = await computeAgreement(files, dataset);
  if (report.pairs === 0) throw new UserError(`no labels in force in ${files.join(", ")}`);
  process.stdout.write(agreementText(report));
  const out = values.json ?? (dataset !== null ? join(dataset, AGREEMENT_JSON) : join(dirname(files[0]!), AGREEMENT_JSON));
  await writeFile(out, JSON.stringify(report, null, 2) + "\n");
  process.stderr.write(`paracap agreement: wrote ${out}${dataset !== null && values.json === undefined ? ` (paracap report ${dataset} adds it to report.html)` : ""}\n`);
  return 0;
}
