/**
 * The caption lines of one record holding an image's captions as a list (a JSON lines list key, a parquet
 * list column, a Karpathy split image's sentences): one line per element, named by the record and the
 * element's place, so every element read is accounted for in the funnel. A record whose list is empty or
 * absent is one `empty_caption` drop (its image has no caption); a null element is `empty_caption`, any
 * other non-string `malformed_line`.
 */
import { fieldsRecord, type TsvLine } from "./tsv-lines.ts";

export function itemLines(items: readonly unknown[] | null | undefined, url: unknown, offset: number): TsvLine[] {
  if (!items || items.length === 0) return [{ offset, drop: "empty_caption" }];
  return items.map((c, item): TsvLine => {
    if (c === null || c === undefined) return { offset, item, drop: "empty_caption" };
    if (typeof c !== "string" || typeof url !== "string") return { offset, item, drop: "malformed_line" };
    return { ...fieldsRecord([c, url], offset, 2, 0, 1), item };
  });
}

/** What a list holds that is not a caption, for the user's one line (`numbers`, `lists`, `objects`); null: it holds strings, or nothing else. */
export function notCaptions(lists: readonly unknown[][]): string | null {
  const items = lists.flat().filter((v) => v !== null && v !== undefined);
  if (items.length === 0 || items.some((v) => typeof v === "string")) return null;
  const v = items[0];
  return Array.isArray(v) ? "lists" : typeof v === "object" ? "objects" : `${typeof v}s`;
}
