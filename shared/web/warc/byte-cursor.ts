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
    if (this.buf.length >= n || this.ended) return this.buf.length >= n;
    // the chunks joined once (joining at each chunk would copy the held bytes again every time)
    const chunks = this.buf.length === 0 ? [] : [this.buf];
    let held = this.buf.length;
    try {
      while (held < n) {
        const chunk = await this.pull();
        if (chunk === null) break;
        chunks.push(chunk);
        held += chunk.length;
      }
    } finally {
      // (what was read before a failure stays held)
      if (chunks.length > 0) this.buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, held);
    }
    return held >= n;
  }

  /** pulls one more chunk into the buffer; false at the end of the source */
  async more(): Promise<boolean> {
    const chunk = await this.pull();
    if (chunk === null) return false;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return true;
  }

  /** the failure of the source, once it failed: every later read fails with it (a caller may read on past one it caught) */
  private failure: ByteSourceError | null = null;

  /** the next chunk of the source, null at its end */
  private async pull(): Promise<Buffer | null> {
    if (this.failure !== null) throw this.failure;
    if (this.ended) return null;
    let r: IteratorResult<Buffer>;
    try {
      r = await this.it.next();
    } catch (e) {
      throw (this.failure = new ByteSourceError(e));
    }
    if (r.done) {
      this.ended = true;
      return null;
    }
    return r.value;
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
