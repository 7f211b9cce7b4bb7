/**
 * `paracap run --input cc.tsv --images <img2dataset output>`: the image side of a caption list. The
 * named folders and tars are read as img2dataset outputs whose samples give pixels only (their own
 * captions are the list's, already read from the TSV): each sample's image, under its normalised
 * URL, meets the list's references to that URL in the pixel pipeline's rekey phase. A registry
 * value the local runner is given (sources/registry.ts: extra sources come first), so nothing else
 * knows it.
 *
 * A folder that is not an img2dataset output (no image beside a `.txt`/`.json` of its name) is read
 * as plain files named after their URLs (a `wget -x` mirror, files named by the URL's basename or by
 * a hash of it): url-named-folder.ts matches the caption lists' URLs to its files.
 */
import { stat, readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { pixelSourceCounter, pixelSourceSkippedCounter } from "../../core/counter-names.ts";
import type { Counters } from "../../core/counters.ts";
import { DEFAULT_MAX_IMAGE_BYTES } from "../../pixels/img2dataset.ts";
import type { AnySource, DocumentRefs } from "../source.ts";
import type { ImageBytesSource } from "../image-bytes.ts";
import { claimsFolder, img2datasetSource, type Img2datasetSample } from "./img2dataset-source.ts";
import { captionListUrls, folderFiles, matchUrlFiles } from "./url-named-folder.ts";

/**
 * @param paths the `--images` folders, tars and zips
 * @param captionLists the run's caption lists, whose URLs name the files of a plain folder
 */
export function imageInputsSource(paths: readonly string[], captionLists: readonly string[] = []): AnySource & ImageBytesSource {
  const full = new Set(paths.map((p) => resolve(p)));
  const tarNames = new Set(paths.filter((p) => /\.(tar|zip)$/i.test(p)).map((p) => basename(p)));
  return {
    ...img2datasetSource,
    name: "img2dataset-images",
    carriesImages: true,
    description: "img2dataset output given with --images: pixels for a caption list's URLs",
    documentsNoun: "image samples",
    document: { one: "image sample", other: "image samples" },
    claims: (fileName) => tarNames.has(basename(fileName)),
    claimsDirectory: (path) => full.has(resolve(path)),
    async *documents(shard, bytes, config, counters) {
      const dir = shard.uri;
      if (!(await isDirectory(dir)) || claimsFolder(dir)) yield* img2datasetSource.documents(shard, bytes, config, counters);
      else yield* urlNamedFiles(dir, captionLists, counters);
    },
    createExtractor: () => (doc: Img2datasetSample): DocumentRefs => ({ page: `${doc.file}:${doc.key}`, pageId: doc.key, revisionId: doc.key, refs: null, skipped: "images_only" }),
    uploadRole: () => null,
    // its counters are the img2dataset source's (pixels.*), which the built-in source already reports
    reportLines: () => [],
  };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The files of a plain folder that the caption lists' URLs name, one sample each, in file order. */
async function* urlNamedFiles(dir: string, captionLists: readonly string[], counters: Counters): AsyncGenerator<Img2datasetSample> {
  const file = basename(dir);
  for (const m of await matchUrlFiles(await folderFiles(dir), captionListUrls(captionLists), counters)) {
    const path = join(dir, m.file);
    let bytes: Uint8Array | null = null;
    try {
      if ((await stat(path)).size > DEFAULT_MAX_IMAGE_BYTES) counters.inc(pixelSourceSkippedCounter("too_large"));
      else bytes = new Uint8Array(await readFile(path));
    } catch {
      // a dangling symlink, a file without read permission: a sample without an image, counted
      counters.inc(pixelSourceSkippedCounter("unreadable_file"));
    }
    counters.inc(pixelSourceCounter("samples"));
    if (bytes !== null) counters.inc(pixelSourceCounter("samples.with_image"));
    yield { file, key: m.file, caption: null, image: m.image, bytes };
  }
}
