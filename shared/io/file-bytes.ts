/** A local file as a byte source for the input sources (sources/source.ts). */
import { createReadStream } from "node:fs";
import type { ByteSource } from "./byte-source.ts";

/** @param onInput told the size of every chunk read (progress); @param onDecoded see ByteSource */
export function fileBytes(path: string, onInput?: (bytes: number) => void, onDecoded?: (bytes: number) => void): ByteSource {
  const reread = (start = 0, end?: number): AsyncIterable<Buffer> =>
    end !== undefined && end <= start ? emptyBytes() : createReadStream(path, { start, end: end === undefined ? undefined : end - 1, highWaterMark: 1 << 20 });
  return {
    label: path,
    localPath: path,
    onDecoded,
    read(start, end) {
      const stream = reread(start, end);
      return onInput ? counted(stream, onInput) : stream;
    },
    reread,
  };
}

async function* emptyBytes(): AsyncGenerator<Buffer> {}

async function* counted(src: AsyncIterable<Buffer>, onInput: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of src) {
    onInput(chunk.length);
    yield chunk;
  }
}
