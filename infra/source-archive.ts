/**
 * The functions' source archive. The object name carries a content hash: Cloud Functions only
 * rebuilds when `buildConfig.source` changes, so re-uploading under the same name would leave
 * the old code deployed.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

/** A checked source directory and the content-addressed object name to upload it as. */
export interface FunctionsSource {
  /** absolute path of the directory to zip */
  dir: string;
  /** `functions-<sha256 prefix>.zip` */
  objectName: string;
}

/**
 * Resolve `dir` against `cwd` (Pulumi runs programs in the project directory), check it looks like
 * a deployable Node package, and name it by content.
 * @throws Error naming the directory and the build command when it is missing or has no package.json
 */
export function functionsSource(dir: string, cwd = process.cwd()): FunctionsSource {
  const abs = resolve(cwd, dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    throw new Error(`functions source directory ${abs} not found: run \`npm run build:functions\` first or set paracap:sourceDir`);
  }
  if (!existsSync(join(abs, "package.json"))) {
    throw new Error(`functions source directory ${abs} has no package.json: Cloud Functions needs one to install and start the code`);
  }
  return { dir: abs, objectName: `functions-${hashDirectory(abs).slice(0, 16)}.zip` };
}

/** SHA-256 over sorted relative paths and file contents, so renames and edits both change it. */
export function hashDirectory(dir: string): string {
  const hash = createHash("sha256");
  for (const file of listFiles(dir)) {
    hash.update(relative(dir, file).split(sep).join("/"));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
