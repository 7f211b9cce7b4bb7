/** JSON Lines over a BlobStore: streaming read with schema validation, buffered write. */
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { z } from "zod";
import type { BlobStore, BlobWriter } from "./blob-store.ts";

export interface ReadJsonlOptions {
  /** a missing object is an error (default: it yields nothing) */
  required?: boolean;
  /** what a record is, for errors: `<file>:<line>: not <what>: <first issue>` (default: zod's whole message) */
  what?: string;
}

/** A line of a JSONL file that is not what it should be (or the file is missing): names the file and line. */
export class BadLineError extends Error {
  override readonly name = "BadLineError";
}

/**
 * Parsed records of a JSONL object (gunzipped when its name ends in `.gz`); a missing object
 * yields nothing unless required. Bad lines throw with file and line number.
 */
export async function* readJsonl<T>(store: BlobStore, name: string, schema?: z.ZodType<T>, opts: ReadJsonlOptions = {}): AsyncGenerator<T> {
  const raw = await store.readStream(name);
  if (!raw) {
    if (opts.required) throw new BadLineError(`${store.description}/${name}: not found`);
    return;
  }
  const input = name.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  if (input !== raw) raw.on("error", (e) => input.destroy(e));
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (let line of input !== raw ? gzipChecked(lines, () => `${store.description}/${name}`, () => n) : lines) {
    n++;
    // (a byte-order mark, as Windows editors write one, is not part of the first record)
    if (n === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new BadLineError(`${store.description}/${name}:${n}: not valid JSON`);
    }
    if (schema) {
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const why = opts.what === undefined ? parsed.error.message : `not ${opts.what}: ${z.prettifyError(parsed.error).split("\n")[0]}`;
        throw new BadLineError(`${store.description}/${name}:${n}: ${why}`);
      }
      yield parsed.data;
    } else yield value as T;
  }
}

/** The lines, with a cut or corrupt gzip stream's error said as a bad file (zlib's own names no file). */
async function* gzipChecked(lines: AsyncIterable<string>, file: () => string, read: () => number): AsyncGenerator<string> {
  try {
    yield* lines;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "Z_BUF_ERROR" || code === "Z_DATA_ERROR") throw new BadLineError(`${file()}: cut or corrupt gzip data after line ${read()} (${(err as Error).message})`);
    throw err;
  }
}

/** Batches lines into large writes; JSONL writers are on the hot path of the shuffle. */
export class JsonlWriter {
  private buffer: string[] = [];
  private size = 0;
  count = 0;
  constructor(private readonly out: BlobWriter, private readonly flushBytes = 1 << 20) {}

  async write(record: unknown): Promise<void> {
    const line = JSON.stringify(record) + "\n";
    this.buffer.push(line);
    this.size += line.length;
    this.count++;
    if (this.size >= this.flushBytes) await this.flush();
  }

  /** characters buffered and not yet handed to the store */
  get buffered(): number {
    return this.size;
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join("");
    this.buffer = [];
    this.size = 0;
    await this.out.write(chunk);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.out.close();
  }

  async abort(): Promise<void> {
    this.buffer = [];
    await this.out.abort();
  }
}
