/**
 * Line-oriented stdin → stdout plumbing for the filter-style commands (features, score). Gzipped stdin is
 * read through (stdinBytes). Lines are read as text-encoding.ts reads them: UTF-8 (a line that is not stops the command with its number) or, with its mark, UTF-16, or
 * the encoding --encoding names (a line holding a byte it has no character for stops the command); LF or CRLF ends a line, a
 * lone CR does not (one output line per input line).
 */
import { Readable, type Writable } from "node:stream";
import { once } from "node:events";
import { NotInEncodingError, NotUtf8Error, textLines } from "../io/text-encoding.ts";
import { UserError } from "../core/errors.ts";
import { createGunzip } from "node:zlib";

/** The user's one line for a line that is not UTF-8, or not in --encoding's encoding (the lines before it are answered). */
const asUserError = (err: unknown): unknown => (err instanceof NotUtf8Error || err instanceof NotInEncodingError ? new UserError(`stdin: ${err.message}`) : err);

/**
 * The bytes of a filter command's stdin: gunzipped when they start as gzip does (`score < dev.tsv.gz`), else as
 * they come. A Parquet file or a zip, which no line reader can take from a pipe, is one line saying what reads it.
 */
async function* stdinBytes(input: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  const it = input[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  // the marks are read from the first four bytes, however the stream is cut
  while (head.length < 4) {
    const next = await it.next();
    if (next.done) break;
    head = Buffer.concat([head, typeof next.value === "string" ? Buffer.from(next.value, "utf8") : next.value]);
  }
  const rest = async function* (): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    for (let next = await it.next(); !next.done; next = await it.next()) yield typeof next.value === "string" ? Buffer.from(next.value, "utf8") : next.value;
  };
  if (head.subarray(0, 4).equals(Buffer.from("PAR1"))) throw new UserError("stdin is a Parquet file: it cannot be read from a pipe (its index is at its end); paracap compare reads Parquet files, or export the table as JSON lines (pandas: to_json(orient=\"records\", lines=True))");
  if (head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) throw new UserError("stdin is a zip archive: unzip it (unzip -p <file.zip> <member> | paracap …)");
  if (head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = Readable.from(rest()).pipe(createGunzip());
    try {
      for await (const chunk of gunzip) yield chunk as Buffer;
    } catch (err) {
      throw new UserError(`stdin: cut or corrupt gzip data (${(err as Error).message})`);
    }
    return;
  }
  yield* rest();
}

/** What a line's function returns for a line that is no record of its own (a header, a line inside a quoted CSV field): no output line. */
export const NO_LINE = Symbol("no output line");

/**
 * Writes one JSON line per input line (NO_LINE: none), in order. If `fn` throws, the lines before are still written
 * (then the error propagates), so output and input stay aligned up to the bad line.
 */
export async function mapLines(input: Readable, output: Writable, fn: (line: string, n: number) => unknown, encoding?: string): Promise<number> {
  let n = 0;
  let buf: string[] = [];
  const flush = async () => {
    if (buf.length === 0) return;
    const chunk = buf.join("\n") + "\n";
    buf = [];
    if (!output.write(chunk)) await once(output, "drain");
  };
  try {
    for await (const line of textLines(stdinBytes(input), encoding)) {
      n++;
      const result = fn(line, n);
      if (result !== NO_LINE) buf.push(JSON.stringify(result));
      if (buf.length >= 512) await flush();
    }
  } catch (err) {
    await flush();
    input.destroy(); // stop reading: nothing more will be written
    throw asUserError(err);
  }
  await flush();
  return n;
}

/**
 * Like mapLines, for work done in batches (a model scores many pairs per call): `parse` checks each
 * line as it arrives, `run` turns up to `size` parsed lines into their results. A line `parse`
 * rejects still gets the lines before it scored and written, then the error propagates.
 */
export async function mapLineBatches<T>(
  input: Readable,
  output: Writable,
  size: number,
  parse: (line: string, n: number) => T | typeof NO_LINE,
  run: (batch: T[]) => Promise<unknown[]>,
  end: () => T | typeof NO_LINE = () => NO_LINE,
  encoding?: string,
): Promise<number> {
  let n = 0;
  let batch: T[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const results = await run(batch);
    batch = [];
    if (!output.write(results.map((r) => JSON.stringify(r)).join("\n") + "\n")) await once(output, "drain");
  };
  try {
    for await (const line of textLines(stdinBytes(input), encoding)) {
      n++;
      const parsed = parse(line, n);
      if (parsed !== NO_LINE) batch.push(parsed);
      if (batch.length >= size) await flush();
    }
    const last = end();
    if (last !== NO_LINE) batch.push(last);
  } catch (err) {
    await flush();
    input.destroy();
    throw asUserError(err);
  }
  await flush();
  return n;
}
