/**
 * `paracap run --input cc.tsv --images <img2dataset output>`: the image side of a caption list. The
 * named folders and tars are read as img2dataset outputs whose samples give pixels only (their own
 * captions are the list's, already read from the TSV): each sample's image, under its normalised
 * URL, meets the list's references to that URL in the pixel pipeline's rekey phase. A registry
 * value the local runner is given (sources/registry.ts: extra sources come first), so nothing else
 * knows it.
 */
import { basename, resolve } from "node:path";
import type { AnySource, DocumentRefs } from "../source.ts";
import type { ImageBytesSource } from "../image-bytes.ts";
import { img2datasetSource, type Img2datasetSample } from "./img2dataset-source.ts";

export function imageInputsSource(paths: readonly string[]): AnySource & ImageBytesSource {
  const full = new Set(paths.map((p) => resolve(p)));
  const tarNames = new Set(paths.filter((p) => /\.tar$/i.test(p)).map((p) => basename(p)));
  return {
    ...img2datasetSource,
    name: "img2dataset-images",
    description: "img2dataset output given with --images: pixels for a caption list's URLs",
    documentsNoun: "image samples",
    claims: (fileName) => tarNames.has(basename(fileName)),
    claimsDirectory: (path) => full.has(resolve(path)),
    createExtractor: () => (doc: Img2datasetSample): DocumentRefs => ({ page: `${doc.file}:${doc.key}`, pageId: doc.key, revisionId: doc.key, refs: null, skipped: "images_only" }),
    uploadRole: () => null,
  };
}
