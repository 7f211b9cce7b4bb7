/**
 * A pull cursor over a stream of byte chunks that knows the file offset of every byte it holds:
 * the WARC reader needs offsets (damage reports, shard ownership) and must be able to look ahead
 * (a resync candidate is verified before it is trusted) without consuming.
 */
/** The bytes could not be read (a file or network error): never damage of a record, so never skipped past. */
export class ByteSourceError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export class ByteCursor {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  private readonly it: AsyncIterator<Buffer>;

  /** `offset`: the file offset of the first byte `chunks` yields */
  constructor(chunks: AsyncIterable<Buffer>, private offset = 0) {
    this.it = chunks[Symbol.asyncIterator]();
  }

  /** file offset of the next unconsumed byte */
  get position(): number {
    return this.offset;
  }

  /** the bytes held and not yet consumed */
  get buffered(): Buffer {
    return this.buf;
  }

  /** true once the source has ended and every byte was consumed */
  get done(): boolean {
    return this.ended && this.buf.length === 0;
  }

  /** reads until at least `n` bytes are held or the source ends; returns whether `n` are held */
  async fill(n: number): Promise<boolean> {
    while (this.buf.length < n && !this.ended) await this.more();
    return this.buf.length >= n;
  }

  /** pulls one more chunk into the buffer; false at the end of the source */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    let r: IteratorResult<Buffer>;
    try {
      r = await this.it.next();
    } catch (e) {
      throw new ByteSourceError(e);
    }
    if (r.done) {
      this.ended = true;
      return false;
    }
    this.buf = this.buf.length === 0 ? r.value : Buffer.concat([this.buf, r.value]);
    return true;
  }

  /** consumes `n` held bytes (n ≤ buffered.length) */
  skip(n: number): void {
    this.buf = this.buf.subarray(n);
    this.offset += n;
  }

  /** consumes and returns everything held, or the next chunk if nothing is held; null at the end */
  async next(): Promise<Buffer | null> {
    if (this.buf.length === 0 && !(await this.more())) return null;
    const out = this.buf;
    this.skip(out.length);
    return out;
  }

  async close(): Promise<void> {
    this.ended = true;
    this.buf = Buffer.alloc(0);
    await this.it.return?.();
  }
}
