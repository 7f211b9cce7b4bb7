/**
 * Karpathy's split files of image captioning (`dataset_coco.json`, `dataset_flickr8k.json`,
 * `dataset_flickr30k.json`): one JSON object whose `images` each hold their captions as `sentences`
 * (`{"tokens": [...], "raw": "A man with a red helmet ...", ...}`). Each sentence's `raw` is a caption line
 * of its image, keyed by the image's `url` where a variant gives one, else its file name (`filepath/filename`
 * for COCO, `filename` for Flickr) and named by the image's index and the sentence's place. Read as a stream
 * (@streamparser/json), an image at a time: the files are ~150 MB. The file is one shard: JSON cannot be
 * entered mid-way.
 */
import type { ListLine } from "./line-parsers.ts";
import { itemLines } from "./list-items.ts";
import { JsonListError, parsedItems } from "./json-values.ts";

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** An image's key: its URL, else its file name under its folder. */
function keyOf(image: Record<string, unknown>): string {
  const url = text(image.url);
  if (url) return url;
  const name = text(image.filename) ?? text(image.file_name);
  if (!name) return "";
  const folder = text(image.filepath);
  return folder ? `${folder.replace(/\/+$/, "")}/${name}` : name;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The caption lines of one image (the `n`th in the file): one per sentence. */
function imageLines(n: number, image: unknown): ListLine[] {
  if (!isObject(image) || !Array.isArray(image.sentences)) return [{ offset: n, drop: "malformed_line" }];
  // a sentence without a string `raw` is no caption (a plain string is one, as some rewrites give)
  const raws = image.sentences.map((s) => (typeof s === "string" ? s : isObject(s) && typeof s.raw === "string" ? s.raw : false));
  return itemLines(raws, keyOf(image), n);
}

/** The caption lines of a Karpathy split file, an image at a time. */
export async function* karpathyLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<ListLine> {
  // loaded by the runs that read such a file only
  const { JSONParser } = await import("@streamparser/json");
  const parser = new JSONParser({ paths: ["$.images.*"], keepStack: false });
  const ready: ListLine[] = [];
  let n = 0;
  parser.onValue = ({ value }) => {
    ready.push(...imageLines(n++, value));
  };
  const failed = yield* parsedItems(parser, chunks, ready);
  if (failed) throw new JsonListError(failed.message, n, "images");
}
