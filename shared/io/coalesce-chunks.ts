/**
 * Joins runs of small byte chunks into pieces of at least `min` bytes. A reader that must rejoin
 * markup cut at a chunk boundary copies what it holds on every chunk: fed a 1 MiB start tag in
 * 42-byte chunks, that is quadratic (gigabytes copied). Decoders and files give 64 KiB chunks, which
 * pass through untouched; network streams and tests can give tiny ones. Text chunks pass through too
 * (after the bytes before them), and the order of bytes never changes.
 */
export const COALESCE_MIN_BYTES = 64 * 1024;

type Chunk = Buffer | Uint8Array | string;

export async function* coalesceChunks(input: AsyncIterable<Chunk> | Iterable<Chunk>, min = COALESCE_MIN_BYTES): AsyncGenerator<Chunk> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  const flush = (): Buffer => {
    const out = held.length === 1 ? Buffer.from(held[0]!.buffer, held[0]!.byteOffset, held[0]!.byteLength) : Buffer.concat(held, heldBytes);
    held = [];
    heldBytes = 0;
    return out;
  };
  for await (const chunk of input) {
    if (typeof chunk === "string" || chunk.length >= min) {
      if (heldBytes > 0) yield flush();
      yield chunk;
      continue;
    }
    if (chunk.length === 0) continue;
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes >= min) yield flush();
  }
  if (heldBytes > 0) yield flush();
}
