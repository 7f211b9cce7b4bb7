/**
 * paracap command line: dispatches to the commands; user mistakes exit 2 without a stack trace.
 * Commands are imported only when called, so `--help` and quick commands do not pay for loading
 * the NLP model, the cloud clients or the runner.
 */
import { RUN_USAGE } from "./run-usage.ts";
import type { CliLaunch } from "./cli-launch.ts";
import { closest } from "../core/closest-name.ts";

const USAGE = `paracap — paraphrase corpora from image captions

  paracap run [options]                 the whole job → gold/silver/bronze.jsonl, stats.json, report.md/.html
  paracap extract <dump|file.wikitext>  image references as JSONL
  paracap features < captions.txt       caption features as JSONL, one line per input line
  paracap score < pairs.tsv             metrics of caption1<TAB>caption2 lines (or MSRPC, PAWS, QQP, a headed table) as JSONL
  paracap compare <corpus>…             Table 7 and characteristic maps (MSRPC, PAWS, QQP, TaPaCo, our datasets)
  paracap report <out-dir>              report.html, <tier>.parquet and the dataset card README.md
  paracap annotate <out-dir|tier.jsonl> label a sample of pairs in a local web page (--sample, --stratify)
  paracap agreement <labels.jsonl>…     inter-annotator agreement and metric–rating correlation (Table 6)
  paracap hash <image|folder|tar>…      every identity hash of each image as JSONL (img2dataset layouts)
  paracap dedup-images <folder|tar>…    groups of the same image by perceptual hash, with distances
  paracap minhash <a.txt> [<b.txt>]     paraphrase paragraphs by min-hash Jaccard (Chung & Knight) as JSONL
  paracap cloud upload|status|fetch     run on Google Cloud (see README)

${RUN_USAGE}`;


type Command = (argv: string[], launch: CliLaunch) => Promise<number>;
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./run-command.ts")).runCommand,
  extract: async () => (await import("./tool-commands.ts")).extractCommand,
  features: async () => {
    const { featuresCommand } = await import("./tool-commands.ts");
    return (argv) => featuresCommand(argv);
  },
  score: async () => {
    const { scoreCommand } = await import("./tool-commands.ts");
    return (argv) => scoreCommand(argv);
  },
  compare: async () => (await import("./compare-command.ts")).compareCommand,
  report: async () => (await import("./report-command.ts")).reportCommand,
  minhash: async () => (await import("./minhash-command.ts")).minhashCommand,
  cloud: async () => (await import("./cloud-command.ts")).cloudCommand,
  annotate: async () => {
    const { annotateCommand } = await import("./annotate-command.ts");
    return (argv) => annotateCommand(argv);
  },
  agreement: async () => (await import("./agreement-command.ts")).agreementCommand,
  hash: async () => (await import("./pixel-commands.ts")).hashCommand,
  "dedup-images": async () => (await import("./pixel-commands.ts")).dedupImagesCommand,
};

/** Errors that are the user's to fix (by class name, so that checking does not load their modules). */
const USER_ERRORS = new Set(["UserError", "ConfigError", "ResumeConflictError", "InputError", "StorageError", "OutDirBusyError", "ModelError", "BadLineError", "MissingDecoderError"]);

export async function main(argv: string[], launch: CliLaunch = {}): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(USAGE + "\n");
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    const near = closest(name, Object.keys(COMMANDS));
    process.stderr.write(`paracap: unknown command "${name}"${near ? ` (did you mean "${near}"?)` : ""}\n\n${USAGE}\n`);
    return 2;
  }
  // once per process: main() called again in one process (tests, embedders) must not add a listener each time
  if (!process.stdout.listeners("error").includes(exitOnClosedStdout)) process.stdout.on("error", exitOnClosedStdout);
  try {
    const command = await load();
    return await command(rest, launch);
  } catch (err) {
    if ((err instanceof Error && USER_ERRORS.has(err.name)) || isArgError(err)) {
      process.stderr.write(`paracap ${name}: ${(err as Error).message}\n`);
      return 2;
    }
    if (err instanceof Error && err.name === "DumpError") {
      process.stderr.write(`paracap ${name}: ${err.message}\n`);
      return 1;
    }
    const fs = fileSystemError(err);
    if (fs !== null) {
      process.stderr.write(`paracap ${name}: ${fs.message}\n`);
      return fs.code;
    }
    throw err;
  }
}

const FS_REASONS: Record<string, string> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "it exists already",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  ENAMETOOLONG: "the name is too long",
};
const FS_VERBS: Record<string, string> = { open: "open", mkdir: "create the folder", scandir: "read the folder", rename: "rename", stat: "find", lstat: "find", unlink: "remove", rmdir: "remove", write: "write", read: "read", copyfile: "copy" };

/**
 * A file system error that names its path (a missing folder for --json, a file where a folder
 * goes): one line saying what could not be done to which path, instead of a stack trace. Exit 2
 * (the user's to fix), but 1 for a full disk.
 */
function fileSystemError(err: unknown): { message: string; code: number } | null {
  if (!(err instanceof Error)) return null;
  const e = err as NodeJS.ErrnoException;
  if (typeof e.code !== "string" || typeof e.path !== "string" || !(e.code in FS_REASONS)) return null;
  const verb = FS_VERBS[e.syscall ?? ""] ?? e.syscall ?? "use";
  return { message: `cannot ${verb} ${e.path}: ${FS_REASONS[e.code]}`, code: e.code === "ENOSPC" ? 1 : 2 };
}

function isArgError(err: unknown): boolean {
  return err instanceof Error && "code" in err && typeof err.code === "string" && err.code.startsWith("ERR_PARSE_ARGS");
}

/** A reader that stops early (`paracap minhash … | head`) closes stdout: the command's work is done. */
function exitOnClosedStdout(err: NodeJS.ErrnoException): void {
  if (err.code !== "EPIPE") throw err;
  process.exit(0);
}
