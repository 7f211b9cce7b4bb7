/** `paracap annotate`: serves the annotation page for a sample of a dataset on 127.0.0.1 until Ctrl-C. */
import { userInfo } from "node:os";
import { parseCommandArgs } from "./parse-args.ts";
import { startAnnotateServer } from "../annotate/annotate-server.ts";
import { AnnotatorId, labelsFile, readLabelsFile } from "../annotate/labels.ts";
import { samplePairs, STRATIFY, type Stratify } from "../annotate/sample-pairs.ts";
import { UserError } from "../core/errors.ts";

export const ANNOTATE_USAGE = `paracap annotate <out-dir | tier.jsonl> [--sample N] [--stratify delta|map-cell] [--words 10-30] [--annotator id] [--port p]
  serves a page on 127.0.0.1 (the URL, with its random token, is printed) that shows one pair at a time
  and records paraphrase yes/no, the entailment relation and syntactic and semantic similarity (1–5);
  labels are appended to <dataset dir>/labels/<annotator>.jsonl; a restart resumes at the next unlabelled pair
  --sample <n>        pairs to label (default 100; the paper's study labelled 100 per corpus)
  --stratify <how>    delta: by Δsem,syn bins of 0.1; map-cell: by characteristic-map cell (proportional)
  --words <min-max>   only pairs whose captions both have min to max words (the paper's study: 10-30)
  --seed <text>       sampling seed (default 1): the same seed and data give the same sample
  --annotator <id>    who labels (default: the login name); letters, digits, _ . -
  --port <p>          port (default: any free one)`;

export async function annotateCommand(argv: string[], opts: { onListening?: (url: string) => void; signal?: AbortSignal } = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs("annotate", {
    args: argv,
    allowPositionals: true,
    options: {
      sample: { type: "string", default: "100" },
      stratify: { type: "string" },
      seed: { type: "string", default: "1" },
      words: { type: "string" },
      annotator: { type: "string" },
      port: { type: "string", default: "0" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(ANNOTATE_USAGE + "\n");
    return 0;
  }
  if (positionals.length !== 1) throw new UserError("usage: paracap annotate <out-dir | tier.jsonl> [--sample N] [--stratify delta|map-cell] [--annotator id] [--port p]");
  const n = Number(values.sample);
  // the page loads the whole sample at once: a human-sized sample
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UserError(`--sample must be an integer from 1 to 10000, not "${values.sample}"`);
  if (values.stratify !== undefined && !(STRATIFY as readonly string[]).includes(values.stratify)) throw new UserError(`--stratify must be delta or map-cell, not "${values.stratify}"`);
  let words: [number, number] | null = null;
  if (values.words !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(values.words);
    if (!m || Number(m[1]) > Number(m[2])) throw new UserError(`--words must be <min>-<max> (e.g. 10-30), not "${values.words}"`);
    words = [Number(m[1]), Number(m[2])];
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port must be a port number, not "${values.port}"`);
  const annotatorRaw = values.annotator ?? safeLogin();
  const annotator = AnnotatorId.safeParse(annotatorRaw);
  if (!annotator.success) throw new UserError(`--annotator "${annotatorRaw}": ${annotator.error.issues[0]!.message}`);

  const sample = await samplePairs(positionals[0]!, { n, stratify: (values.stratify as Stratify | undefined) ?? null, seed: values.seed, words });
  if (sample.pairs.length === 0) throw new UserError(`${positionals[0]}: no pairs to annotate`);
  const labelsPath = labelsFile(sample.datasetDir, annotator.data);
  const existing = await readLabelsFile(labelsPath);
  const warn = (m: string) => process.stderr.write(`paracap annotate: ${m}\n`);
  if (existing.bad > 0) warn(`${labelsPath}: ${existing.bad} unreadable line(s) will be skipped (${existing.badExamples.map((b) => `line ${b.line}: ${b.why}`).join("; ")})`);
  const server = await startAnnotateServer({ pairs: sample.pairs, annotator: annotator.data, labelsPath, port, warn });
  const strata = Object.entries(sample.strata).map(([k, [all, took]]) => `${k}: ${took}/${all}`).join(", ");
  process.stderr.write(
    `paracap annotate: ${sample.pairs.length} of ${sample.read} pairs from ${sample.sources.join(", ")}` +
      `${values.stratify ? ` stratified by ${values.stratify} (${strata})` : ""}${sample.outOfLength ? `; ${sample.outOfLength} outside --words ${values.words} left out` : ""}${sample.unstratifiable ? `; ${sample.unstratifiable} without the metrics left out` : ""}\n` +
      `paracap annotate: labels of ${annotator.data} → ${labelsPath}\nparacap annotate: open this URL (Ctrl-C to stop):\n`,
  );
  process.stdout.write(server.url + "\n");
  opts.onListening?.(server.url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    opts.signal?.addEventListener("abort", stop, { once: true });
  });
  await server.close();
  process.stderr.write(`paracap annotate: stopped; labels are in ${labelsPath}\n`);
  return 0;
}

function safeLogin(): string {
  try {
    return userInfo().username;
  } catch {
    return "annotator";
  }
}
