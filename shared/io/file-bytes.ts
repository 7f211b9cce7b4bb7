/** A local file as a byte source for the input sources (sources/source.ts). */
import { createReadStream } from "node:fs";
import type { ByteSource } from "./byte-source.ts";

/** @param onInput told the size of every chunk read (progress); @param onDecoded see ByteSource */
export function fileBytes(path: string, onInput?: (bytes: number) => void, onDecoded?: (bytes: number) => void): ByteSource {
  return {
    label: path,
    localPath: path,
    onDecoded,
    read(start = 0, end) {
      if (end !== undefined && end <= start) return emptyBytes();
      const stream = createReadStream(path, { start, end: end === undefined ? undefined : end - 1, highWaterMark: 1 << 20 });
      return onInput ? counted(stream, onInput) : stream;
    },
  };
}

async function* emptyBytes(): AsyncGenerator<Buffer> {}

async function* counted(src: AsyncIterable<Buffer>, onInput: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of src) {
    onInput(chunk.length);
    yield chunk;
  }
}
