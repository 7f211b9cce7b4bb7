/**
 * The labels files an `agreement` argument names: a file, a folder of labels files (`out/labels`), a
 * dataset folder holding `labels/` (`out`), or a pattern the shell did not expand (`out\labels\*.jsonl`
 * in Windows' cmd and PowerShell, which pass it as written). A folder's files are taken in name order.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UserError } from "../core/errors.ts";

const LABELS_FILE = /\.jsonl$/i;

/** `*` and `?` of a file-name pattern as a regular expression over whole names. */
function patternRe(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`, process.platform === "win32" ? "i" : "");
}

const filesIn = (dir: string, keep: (name: string) => boolean) =>
  readdirSync(dir)
    .filter((name) => keep(name) && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => join(dir, name));

/** One argument as its labels files, or a UserError saying what is missing. */
function labelsFilesOf(arg: string): string[] {
  if (!existsSync(arg)) {
    const name = basename(arg);
    if (!/[*?]/.test(name)) throw new UserError(`no such file: ${arg}`);
    const dir = dirname(arg);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`no such folder: ${dir}`);
    const re = patternRe(name);
    const files = filesIn(dir, (n) => re.test(n));
    if (files.length === 0) throw new UserError(`no file matches ${arg}`);
    return files;
  }
  if (statSync(arg).isFile()) return [arg];
  // a dataset folder: annotate writes <dataset>/labels/<annotator>.jsonl (its tiers are .jsonl too, and no labels)
  const dir = existsSync(join(arg, "labels")) && statSync(join(arg, "labels")).isDirectory() ? join(arg, "labels") : arg;
  const files = filesIn(dir, (n) => LABELS_FILE.test(n));
  if (files.length === 0) throw new UserError(`no labels files (*.jsonl) in ${dir} (paracap annotate writes <dataset>/labels/<annotator>.jsonl)`);
  return files;
}

/** Every argument's labels files, in order. */
export function labelsFilesOfArgs(args: readonly string[]): string[] {
  return args.flatMap(labelsFilesOf);
}
