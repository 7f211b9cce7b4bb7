/**
 * COCO-style caption files (`captions_train2017.json`, nocaps, TextCaps and other sets in COCO's format): one
 * JSON object whose `images` give each image's id and address (`coco_url`, else `flickr_url`, else `url`, else
 * `file_name`) and whose `annotations` give captions by `image_id`, five or more per image. Each annotation is
 * a caption line (named by its index among the annotations). Read as a stream (@streamparser/json): the
 * images' addresses are kept, never the whole file; COCO writes `images` first, so an annotation is handed on
 * as it is read. One naming an image not yet seen waits for the end (a file with its annotations first holds
 * them all), and one whose image is never listed is a counted drop. The file is one shard: JSON cannot be
 * entered mid-way.
 */
import type { ListLine } from "./line-parsers.ts";
import { JsonListError, parsedItems } from "./json-values.ts";

type Annotation = { n: number; image: string; caption: unknown };

const address = (image: Record<string, unknown>): string | null => {
  for (const k of ["coco_url", "flickr_url", "url", "file_name"]) {
    const v = image[k];
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  return null;
};

const idOf = (v: unknown): string | null => (typeof v === "number" || (typeof v === "string" && v !== "") ? String(v) : null);

/** The caption lines of a COCO-style captions file: one per annotation, its image's address as the URL field. */
export async function* cocoLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<ListLine> {
  // loaded by the runs that read such a file only
  const { JSONParser } = await import("@streamparser/json");
  const parser = new JSONParser({ paths: ["$.images.*", "$.annotations.*"], keepStack: false });
  const images = new Map<string, string | null>();
  const ready: ListLine[] = [];
  const waiting: Annotation[] = [];
  let n = 0;
  const line = (a: Annotation, url: string | null | undefined): ListLine => {
    if (url === undefined) return { offset: a.n, drop: "unknown_image" };
    if (url === null) return { offset: a.n, drop: "empty_url" };
    if (typeof a.caption !== "string") return { offset: a.n, drop: "malformed_line" };
    if (a.caption.trim() === "") return { offset: a.n, drop: "empty_caption" };
    return { offset: a.n, caption: a.caption, url };
  };
  parser.onValue = ({ value, stack }) => {
    const list = stack[1]?.key;
    const obj = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
    if (list === "images") {
      const id = obj ? idOf(obj.id) : null;
      if (id !== null) images.set(id, address(obj!));
      return;
    }
    const a = { n: n++, image: obj ? (idOf(obj.image_id) ?? "") : "", caption: obj?.caption };
    if (!obj || a.image === "") ready.push({ offset: a.n, drop: "malformed_line" });
    else if (images.has(a.image)) ready.push(line(a, images.get(a.image)));
    else waiting.push(a);
  };
  const failed = yield* parsedItems(parser, chunks, ready);
  for (const a of waiting) yield line(a, images.get(a.image));
  if (failed) throw new JsonListError(failed.message, n, "annotations");
}
