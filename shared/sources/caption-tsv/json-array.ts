/**
 * A caption list written as one JSON array of objects (`[{"image": "x.jpg", "caption": "…"}, …]`, or an
 * image's captions as a list under one key): the `.json` files many datasets ship. Each object is read
 * as a JSON line is (its URL and caption keys picked from the first objects by the same names), named by
 * its index in the array. Streamed (@streamparser/json), an object at a time; the file is one shard:
 * JSON cannot be entered mid-way.
 */
import { HEAD_LINES, LayoutError, objectsLayout, type TextLayout } from "./list-layout.ts";
import { jsonObjectLine, type ListLine } from "./line-parsers.ts";
import { JsonListError, parsedItems } from "./json-values.ts";

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The keys of a JSON array's objects, from its first ones in `head` (the file's first bytes; `whole`: all of it). */
export async function jsonArrayLayout(head: Buffer, whole: boolean): Promise<TextLayout & { format: "jsonl" }> {
  const { JSONParser } = await import("@streamparser/json");
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  const objects: Record<string, unknown>[] = [];
  parser.onValue = ({ value }) => {
    if (isObject(value) && objects.length < HEAD_LINES) objects.push(value);
  };
  // a head cut inside an object ends the parse there: the objects before it decide
  parser.onError = () => {};
  parser.write(head);
  if (objects.length === 0) throw new LayoutError(whole ? "its JSON array holds no object" : `no object of its JSON array ends in its first ${head.length} bytes`);
  return objectsLayout(objects);
}

/** The caption lines of a JSON array: one per object (or per element of its caption list). */
export async function* jsonArrayLines(chunks: AsyncIterable<Buffer>, layout: TextLayout & { format: "jsonl" }): AsyncGenerator<ListLine> {
  const { JSONParser } = await import("@streamparser/json");
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  const ready: ListLine[] = [];
  let n = 0;
  parser.onValue = ({ value }) => {
    const line = jsonObjectLine(value, n++, layout.url, layout.caption);
    if (Array.isArray(line)) ready.push(...line);
    else ready.push(line);
  };
  const failed = yield* parsedItems(parser, chunks, ready);
  if (failed) throw new JsonListError(failed.message, n, "objects of its array");
}
