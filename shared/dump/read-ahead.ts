/**
 * Drains a readable stream into a bounded queue as fast as it produces, independently of how fast
 * the consumer pulls. A decoder child process writes into a pipe of ~64 KiB; read lazily, it stops
 * every time the reader is busy with a batch, and decoding and parsing take turns on two cores
 * instead of overlapping. With a read-ahead of some MiB the decoder only waits when it is really
 * ahead.
 */
import type { Readable } from "node:stream";

/**
 * @param onData told the size of every chunk as it arrives (before the consumer takes it)
 * @param minChunk chunks are handed on joined, at least this many bytes at a time (but the last): a
 *   pipe delivers 64 KiB pieces, and each piece costs a turn through every async generator between
 *   here and the page scanner, and a copy for every revision text it cuts in two
 */
export async function* readAhead(stream: Readable, maxBytes: number, onData?: (bytes: number) => void, minChunk = 0): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onChunk = (chunk: Buffer) => {
    onData?.(chunk.length);
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= maxBytes) stream.pause();
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (error: unknown) => {
    failure = { error };
    notify();
  };
  stream.on("data", onChunk);
  stream.once("end", onEnd);
  stream.once("close", onEnd);
  stream.once("error", onError);
  try {
    for (;;) {
      if (queue.length > 0 && (queued >= minChunk || ended || failure)) {
        const chunk = queue.length === 1 || minChunk === 0 ? queue.shift()! : Buffer.concat(queue.splice(0, queue.length), queued);
        queued -= chunk.length;
        if (queued < maxBytes / 2 && stream.isPaused()) stream.resume();
        yield chunk;
        continue;
      }
      if (failure) throw (failure as { error: unknown }).error;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off("data", onChunk);
    stream.off("end", onEnd);
    stream.off("close", onEnd);
    stream.off("error", onError);
  }
}
