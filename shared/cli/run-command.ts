/** `paracap run`: the whole job on local dumps (default: the embedded real sample). */
import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { CARD_MARKER } from "../output/dataset-card.ts";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { resolveConfig, TierName } from "../core/config.ts";
import { closest } from "../core/closest-name.ts";
import { configFromEnv } from "../core/env-layer.ts";
import { REPO_ROOT } from "../core/repo-root.ts";
import { looksLikeHistoryByContent } from "../dump/history-sniff.ts";
import { decodableHere, isExternalFormat, requireDecoder } from "../dump/external-decoders.ts";
import { MAGIC_BYTES, sniffFormat } from "../dump/magic.ts";
import { applyInputSettings } from "../sources/input-settings.ts";
import { looksLikeHistory, sourceOfInput, type LocalInput } from "../runner/local-shards.ts";
import { boundHeapGrowth } from "../runner/heap-growth.ts";
import { raiseTierUpBudget } from "../runner/tier-up.ts";
import { applyModelFlag, checkModel } from "../semantic/model-flag.ts";
import { checkSemanticConfig } from "../semantic/semantic-score.ts";
import { parseRunArgs } from "./run-options.ts";
import { lineEncoding } from "../io/line-encoding.ts";
import { readConfigFile } from "./config-file.ts";
import { interruptedLine } from "./interrupted.ts";
import { UserError } from "../core/errors.ts";
import { fedTiers } from "../pipeline/tiers.ts";
import { isPixelPivot } from "../core/plugin-names.ts";
import { BUILTIN_SOURCES, sourceRegistry } from "../sources/registry.ts";
import { imageInputsSource } from "../sources/img2dataset/image-inputs.ts";
import { captionListsOf } from "../sources/img2dataset/caption-lists.ts";
import { folderFiles } from "../sources/img2dataset/url-named-folder.ts";
import type { CliLaunch } from "./cli-launch.ts";
import { largeRun, nodeFlagsFor, relaunch } from "./node-flags.ts";

/** A file's text, or null when it cannot be read. */
function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Whether an input's source can carry images' bytes (a missing or unreadable input is refused later, with its own message). */
function carriesImages(path: string): boolean {
  try {
    return sourceOfInput(path, BUILTIN_SOURCES).carriesImages === true;
  } catch {
    return true;
  }
}

/** Whether a local input is a MediaWiki dump (one that cannot be read counts as one: the run said what it is). */
function isDump(path: string): boolean {
  try {
    return sourceOfInput(path, BUILTIN_SOURCES).name === "mediawiki";
  } catch {
    return true;
  }
}

/** The pivot `--images` sets when the config names none (README "Image identity": phash survives recompression and scaling). */
const DEFAULT_PIXEL_PIVOT = "phash";

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A dump compressed for a program this machine lacks is named before any work, not from its shard mid-run. */
function requireDecoders(paths: readonly string[]): void {
  for (const path of paths) {
    if (!isFile(path)) continue;
    const fd = openSync(path, "r");
    const head = Buffer.alloc(MAGIC_BYTES);
    try {
      readSync(fd, head, 0, MAGIC_BYTES, 0);
    } finally {
      closeSync(fd);
    }
    const format = sniffFormat(head);
    if (typeof format === "object" && isExternalFormat(format.unsupported) && !decodableHere(format.unsupported)) requireDecoder(format.unsupported, path);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const SAMPLE_DIR = join(REPO_ROOT, "shared/sample/");
export const SAMPLE_INPUTS: LocalInput[] = [
  { path: `${SAMPLE_DIR}enwiki-2016-pages-articles1-sample.xml.bz2`, kind: "current" },
  { path: `${SAMPLE_DIR}enwiki-Anarchism-history-sample.xml.bz2`, kind: "history" },
];

export { RUN_USAGE } from "./run-usage.ts";
import { RUN_USAGE } from "./run-usage.ts";
import { refuseZippedInputs } from "./zipped-inputs.ts";

export async function runCommand(argv: string[], launch: CliLaunch = {}): Promise<number> {
  const values = parseRunArgs(argv);
  if (values.help) {
    process.stdout.write(RUN_USAGE + "\n");
    return 0;
  }
  const fileConfig = values.config ? await readConfigFile(values.config) : {};
  const flags: Record<string, unknown> = {};
  if (values.tiers !== undefined && values.tiers.trim() === "") throw new UserError(`--tiers needs at least one tier (gold, silver, bronze)`);
  if (values.out !== undefined && values.out.trim() === "") throw new UserError(`--out needs a folder name`);
  if (values.out !== undefined && outIsFile(values.out)) {
    throw new UserError(`--out ${values.out} is a file, not a folder: name a folder for the run's outputs (it is made if missing)`);
  }
  if (values.tiers) {
    const tiers = values.tiers.split(",").map((s) => s.trim());
    const names = TierName.options;
    if (tiers.includes("")) throw new UserError(`--tiers "${values.tiers}" names an empty tier (a stray comma?); tiers: ${names.join(", ")}`);
    for (const t of tiers) {
      if (TierName.safeParse(t).success) continue;
      const near = closest(t, names);
      throw new UserError(`unknown tier "${t}" (${near ? `did you mean "${near}"? ` : ""}tiers: ${names.join(", ")})`);
    }
    flags.tiers = tiers;
  }
  if (values.partitions) flags.partitions = positiveInt(values.partitions, "--partitions");
  if (values.model) flags.scoring = { transformer: { model: values.model } };
  const extraction: Record<string, unknown> = {};
  if (values["warc-base-url"] !== undefined) extraction.warcBaseUrl = values["warc-base-url"];
  if (values.encoding !== undefined) extraction.captionEncoding = encodingFlag(values.encoding);
  if (Object.keys(extraction).length > 0) flags.extraction = extraction;
  const envLayer = configFromEnv(process.env);
  const config = resolveConfig(fileConfig, envLayer, flags);
  if (values.model !== undefined && values.model.trim() === "") throw new UserError(`--model needs a model directory (or a hub id)`);
  // A model given on the command line or in PARACAP_MODEL means wanting its metrics (as in the cloud).
  const model = values.model ?? envLayer.scoring?.transformer.model;
  if (model !== undefined) applyModelFlag(config, model);
  else checkModel(config);
  // a scoring mistake is said now, not after the extraction
  checkSemanticConfig(config);

  requireDecoders([...(values.input ?? []), ...(values.history ?? [])]);
  await refuseZippedInputs([...(values.input ?? []), ...(values.history ?? [])]);
  const detected: string[] = [];
  const kindOf = async (path: string): Promise<LocalInput["kind"]> => {
    if (looksLikeHistory(path)) return "history";
    // a folder (an img2dataset output) is one crawl of its images
    if (isDirectory(path)) return "current";
    // Told by content, not only by name: a page with several revisions is a history dump.
    if (await looksLikeHistoryByContent(path)) {
      detected.push(`${path} has several revisions per page: read as a full-history dump (bronze)`);
      return "history";
    }
    return "current";
  };
  let inputs: LocalInput[] = [
    ...(await Promise.all((values.input ?? []).map(async (path) => ({ path, kind: await kindOf(path) })))),
    ...(values.history ?? []).map((path) => ({ path, kind: "history" as const })),
  ];
  if (inputs.length === 0) inputs = SAMPLE_INPUTS;
  // --images: the pixels of the inputs' image URLs (img2dataset outputs), which need a pixel pivot
  const images = values.images ?? [];
  if (images.length > 0) {
    if (config.pivot === "resource") config.pivot = DEFAULT_PIXEL_PIVOT;
    if (!isPixelPivot(config.pivot)) throw new UserError(`--images needs a pixel pivot (md5, ahash, dhash, phash, rahash, rphash), not "${config.pivot}"`);
    // a lone file would fall to another source (a text file named .jpg read as a damaged dump)
    for (const path of images) if (isFile(path) && !/\.(tar|zip)$/i.test(path)) throw new UserError(`--images takes a folder, a webdataset .tar or a .zip of images, not a single file: ${path}`);
    // an empty folder is a wrong path far more often than a crawl that fetched nothing (img2dataset writes its stats even then)
    for (const path of images) if (isDirectory(path) && (await folderFiles(path)).length === 0) throw new UserError(`the --images folder ${path} holds no files`);
    inputs.push(...images.map((path) => ({ path, kind: "current" as const })));
  }
  refuseDuplicates(inputs);
  // a pixel pivot with nothing to read pixels from would drop every reference as no_image
  if (images.length === 0 && isPixelPivot(config.pivot) && !inputs.some((i) => carriesImages(i.path))) {
    throw new UserError(`pivot "${config.pivot}" decides identity from pixels, and no input holds images: add --images <folder|tar> (an img2dataset output of the inputs' image URLs), or read a web crawl (WARC) that holds its image responses`);
  }
  // a non-English dump writes its file links in its own language ([[Файл:…]]): its <siteinfo> says how,
  // unless the config names the aliases itself
  // Whether this process does the run or hands it to a node started with its heap flags (node-flags.ts).
  const large = largeRun(inputs.map((i) => i.path));
  const heapFlags = launch.script === undefined || !large ? [] : nodeFlagsFor(["run", ...argv], process.execArgv, process.env);
  const settings = applyInputSettings(BUILTIN_SOURCES, inputs.map((i) => i.path).filter(isFile), config.extraction);
  // A run done here starts loading its runner (every source, stage and scorer: ~0.1 s of compiling) now,
  // while applyInputSettings reads the inputs' heads (their module files are read meanwhile; the
  // compiling takes turns with the heads' decoding on this thread: openDumpHead decodes in-process),
  // rather than after them; started after the heads' reading began (~10 ms of CPU less before it).
  // Compiled later and less often (tier-up.ts): set before the modules load. (A mistake found below
  // still ends the run; its process then waits for the load.)
  let runner: Promise<typeof import("../runner/local-runner.ts")> | null = null;
  if (heapFlags.length === 0) {
    raiseTierUpBudget();
    runner = import("../runner/local-runner.ts");
    runner.catch(() => undefined); // a failed load is reported where it is awaited, below
  }
  detected.push(...(await settings));
  // the tiers' caption filters (sentence classifier, verb heuristic) read English: say so before a run whose captions are not
  const language = config.extraction.language;
  if (language !== undefined && language !== "en" && !language.startsWith("en-")) {
    detected.push(`note: the gold and silver caption filters (a sentence, a verb) read English; captions in "${language}" rarely pass them (the funnel's is_sentence and has_verb rows say how many)`);
  }
  const kinds = new Set(inputs.map((i) => i.kind));
  const { fed: tiers, skipped } = fedTiers(config.tiers, kinds);
  if (tiers.length === 0) throw new UserError(`no input feeds the requested tiers (${config.tiers.join(", ")}): gold/silver need a current-revision dump (--input), bronze a full-history dump (--history)`);
  config.tiers = tiers;
  const cores = availableParallelism();
  let workers = values.workers ? positiveInt(values.workers, "--workers") : undefined;
  const capped = workers !== undefined && workers > cores;
  if (capped) workers = cores;
  // Where the worker threads are used (see LocalRunOptions.threads); "always" forces them on any machine.
  const threads = process.env.PARACAP_THREADS || "auto";
  if (threads !== "auto" && threads !== "always") throw new UserError(`PARACAP_THREADS must be auto or always, got "${threads}"`);

  // Arguments known good: a large run goes on in a node started with its heap flags (node-flags.ts).
  if (heapFlags.length > 0) return relaunch(heapFlags, launch.script!, ["run", ...argv]);

  // Interrupted: finished shards and tasks are kept, so the same command picks up where this stopped
  // (or, before the run wrote anything, the line says so: interrupted.ts).
  const onInterrupt = () => {
    process.stderr.write(interruptedLine(values.out!));
    process.exit(130);
  };
  process.once("SIGINT", onInterrupt);
  // RSS follows what is live (heap-growth.ts). A small run ends long before V8's own growth matters,
  // and under the cap without the floor it would spend ~0.5 CPU-s more in full collections (the sample).
  if (large) boundHeapGrowth();
  // the runner, loading since the inputs' heads began to be read (above; after the options are parsed,
  // so --help and a mistyped option answer at once)
  const { runLocal } = await (runner ?? import("../runner/local-runner.ts"));
  const result = await runLocal({
    inputs,
    outDir: values.out!,
    config,
    workers,
    threads,
    fresh: values.fresh,
    progress: values.quiet ? null : process.stderr,
    ...(images.length > 0 ? { sources: sourceRegistry([imageInputsSource(images, await captionListsOf(inputs.filter((i) => !images.includes(i.path)).map((i) => i.path)))]) } : {}),
  });
  process.off("SIGINT", onInterrupt);
  // the outputs are written (the summary below says so): a Ctrl-C now only stops the process, and is
  // still handled, so a launcher does not take it for one before the run wrote anything (node-flags.ts)
  process.once("SIGINT", () => process.exit(130));
  const s = result.stats;
  const lines = result.alreadyComplete
    ? [`paracap: the run in ${values.out}/ is already complete (same input and configuration): nothing to redo, nothing written (--fresh starts over)`]
    : [`paracap: wrote ${values.out}/ in ${result.elapsedSeconds.toFixed(1)} s`];
  for (const d of detected) lines.push(`  ${d}`);
  if (skipped.length > 0) {
    // a dump's run is told of dumps; any other of the input it could add (re-crawls feed bronze as a history does)
    const dumps = inputs.every((i) => isDump(i.path));
    const need = skipped.includes("bronze")
      ? (dumps ? "a full-history dump (--history)" : "a history input (--history: re-crawls of the same pages, or a full-history dump)")
      : (dumps ? "a current-revision dump (--input)" : "a current input (--input: a crawl, a caption list, or a current-revision dump)");
    lines.push(`  skipped tier${skipped.length === 1 ? "" : "s"} ${skipped.join(", ")}: ${skipped.length === 1 ? "it needs" : "they need"} ${need}`);
  }
  if (capped) lines.push(`  --workers ${values.workers} capped at the ${cores} cores of this machine`);
  for (const [tier, t] of Object.entries(s.tiers)) lines.push(`  ${tier}.jsonl: ${t.pairs} pair${t.pairs === 1 ? "" : "s"}`);
  // a README.md of the user's own is left as it is (output/publish.ts): say so rather than claim a card
  const readme = readTextOrNull(join(values.out, "README.md"));
  const ownReadme = readme !== null && !readme.includes(CARD_MARKER);
  lines.push(`  stats.json, report.md, report.html, <tier>.parquet, ${ownReadme ? "" : "README.md (dataset card), "}config.json`);
  if (ownReadme) lines.push(`  note: ${values.out}/README.md is not paracap's dataset card: left as it was (paracap report writes the card once it is gone)`);
  if (s.shards.corrupt.length > 0) lines.push(`  warning: ${s.shards.corrupt.length} damaged shard(s), see report.md`);
  // what the reading found damaged or could not fetch (a WARC record, a file of a paths list), by example
  for (const [name, examples] of Object.entries(s.extraction_examples ?? {}).slice(0, 3)) lines.push(`  note: ${name}: ${examples[0]}${examples.length > 1 ? ` (and ${examples.length - 1} more in report.md)` : ""}`);
  const { extract: shards = 0, ...later } = result.resumed;
  if (shards + Object.values(later).reduce((a, b) => a + b, 0) > 0 && !result.alreadyComplete) {
    const tasks = Object.entries(later).map(([phase, n]) => `${n} ${phase}`);
    const laterText = tasks.length === 0 ? "" : `, ${tasks.slice(0, -1).join(", ")}${tasks.length > 1 ? " and " : ""}${tasks.at(-1)} task(s)`;
    lines.push(`  resumed an earlier run in ${values.out}/: ${shards} shard(s)${laterText} were already done (--fresh starts over)`);
  }
  process.stderr.write(lines.join("\n") + "\n");
  return 0;
}

/** The same file named twice (also by another path or a link) would count every page twice. */
function refuseDuplicates(inputs: LocalInput[]): void {
  const seen = new Map<string, string>();
  for (const i of inputs) {
    let real: string;
    try {
      real = realpathSync(i.path);
    } catch {
      continue; // a missing input is reported by the runner
    }
    const first = seen.get(real);
    if (first !== undefined) throw new UserError(`${i.path} is the same file as ${first}: give each input once`);
    seen.set(real, i.path);
  }
}

/** --encoding's label by its canonical name, or the one-line error of an unknown one (before any input is read). */
function encodingFlag(label: string): string {
  const got = lineEncoding(label);
  if ("error" in got) throw new UserError(`--encoding ${got.error}`);
  return got.encoding;
}

function positiveInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag} needs a positive whole number, got "${v}"`);
  return n;
}

/** --out names an existing file (a missing folder is made; other trouble is reported where the run opens it). */
function outIsFile(out: string): boolean {
  try {
    return !statSync(out).isDirectory();
  } catch {
    return false;
  }
}
