/**
 * `run --input x.zip`: a zip of images is read (the img2dataset source claims it), so is a `.wacz` (the
 * warc source's); any other zip (a Kaggle caption list, a zipped dump) is refused in one line naming what it holds and how to unzip it,
 * rather than read as a dump whose compression is "not supported".
 */
import { basename } from "node:path";
import { UserError } from "../core/errors.ts";
import { fileStartsAsZip, UnreadableZip, zipMemberNames } from "../pixels/zip-samples.ts";
import { sourceOfInput } from "../runner/local-shards.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";

function startsAsZipFile(path: string): boolean {
  try {
    return fileStartsAsZip(path);
  } catch {
    return false; // a missing or unreadable input is refused later, with its own message
  }
}

/** Throws a UserError for the first input that is a zip paracap does not read. */
export async function refuseZippedInputs(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    // zips of images (img2dataset) and WACZ crawls (warc) are read
    if (!startsAsZipFile(path) || ["img2dataset", "warc"].includes(sourceOfInput(path, BUILTIN_SOURCES).name)) continue;
    let names: string[];
    try {
      names = (await zipMemberNames({ path }, path)).filter((n) => !n.endsWith("/") && !n.startsWith("__MACOSX/") && !basename(n).startsWith("._"));
    } catch (e) {
      if (e instanceof UnreadableZip) throw new UserError(e.message);
      throw e;
    }
    const dir = path.replace(/\.zip$/i, "") === path ? `${path}.d` : path.replace(/\.zip$/i, "");
    if (names.length === 1) {
      const [name] = names as [string];
      throw new UserError(`${path} is a zip archive holding ${name}: paracap reads zips of images, not a zipped caption list or dump; unzip it (unzip ${path} -d ${dir}) and pass --input ${dir}/${name}`);
    }
    const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? `, … (${names.length} files)` : "");
    throw new UserError(`${path} is a zip archive holding ${shown || "no files"}: paracap reads zips of images, not zipped caption lists or dumps; unzip it (unzip ${path} -d ${dir}) and pass the files it holds`);
  }
}
