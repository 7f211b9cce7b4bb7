/** The streaming loop the JSON caption files share (COCO, Karpathy): @streamparser/json fed chunk by chunk. */
import type { JSONParser } from "@streamparser/json";

/**
 * Feeds `chunks` to `parser` and yields, after each chunk, what its onValue put in `ready`. Returns the
 * parse error that ended the file (cut short, damaged) after the items before it, or null.
 */
export async function* parsedItems<T>(parser: JSONParser, chunks: AsyncIterable<Buffer>, ready: T[]): AsyncGenerator<T, Error | null> {
  let failed: Error | null = null;
  parser.onError = (err) => {
    failed = err;
  };
  for await (const chunk of chunks) {
    parser.write(chunk);
    if (failed) break;
    yield* ready.splice(0);
  }
  if (!failed && !parser.isEnded) {
    try {
      parser.end();
    } catch (err) {
      failed = err as Error;
    }
  }
  yield* ready.splice(0);
  return failed;
}

/** A JSON caption file that is not valid JSON (cut short, damaged), after the `read` items (`what`: annotations, images, objects) before the damage. */
export class JsonListError extends Error {
  override readonly name = "JsonListError";
  constructor(reason: string, read: number, what: string) {
    super(`not valid JSON after ${read} ${what} (${reason})`);
  }
}
