/**
 * The inflated bytes of a gzip member (with the members a record joined to it) as a file the plain
 * reader can open at any offset: after a damaged record it resyncs as in an uncompressed WARC, back
 * to the record's start and ahead to check a candidate. A member may be a whole file of many GB, so
 * it is inflated once, as a stream, and only the last `window` bytes inflated are held: a read near
 * the reader costs nothing, and one from before them (a record larger than the window) inflates the
 * member again from its start, on a second tape kept for the reads after it. At most two windows
 * are held, whatever the member's size.
 */

/** Held behind the reader: a damaged record's start and what its Content-Length claims are read from here. */
export const INFLATED_WINDOW = 8 * 1024 * 1024;

/** One inflation of the member, and its last bytes: [start, end) of the inflated stream. */
class Tape {
  private chunks: Buffer[] = [];
  start = 0;
  end = 0;
  private done = false;

  constructor(
    private readonly src: AsyncGenerator<Buffer>,
    private readonly window: number,
  ) {}

  /** one more chunk of the inflation; false at its end */
  async pull(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.src.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    if (r.value.length === 0) return true;
    this.chunks.push(r.value);
    this.end += r.value.length;
    while (this.chunks.length > 1 && this.end - this.start - this.chunks[0]!.length >= this.window) this.start += this.chunks.shift()!.length;
    return true;
  }

  /** the bytes held from `at` (start ≤ at < end) to the end of the chunk holding it */
  slice(at: number): Buffer {
    // reads are nearly always near the end: search from there
    let from = this.end;
    for (let i = this.chunks.length - 1; i >= 0; i--) {
      const c = this.chunks[i]!;
      from -= c.length;
      if (at >= from) return c.subarray(at - from);
    }
    throw new Error(`inflated byte ${at} is not held`);
  }

  async close(): Promise<void> {
    this.chunks = [];
    this.done = true;
    await this.src.return(undefined);
  }
}

export class InflatedFile {
  private readonly live: Tape;
  private rewound: Tape | null = null;

  /**
   * `live`: the member's inflated bytes as the reader reads them (it consumes the compressed input);
   * `reinflate`: the same bytes again from the start (its own read of the input), for a read behind the window.
   */
  constructor(
    live: AsyncGenerator<Buffer>,
    private readonly reinflate: () => AsyncGenerator<Buffer>,
    private readonly window = INFLATED_WINDOW,
  ) {
    this.live = new Tape(live, window);
  }

  /** The inflated bytes from `at` to the member's end, as a plain file's `open` gives a file's. */
  async *open(at: number): AsyncGenerator<Buffer> {
    for (;;) {
      const c = await this.chunkAt(at);
      if (c === null) return;
      yield c;
      at += c.length;
    }
  }

  /** The bytes from `at` to the end of the chunk holding them; null at the member's end. */
  private async chunkAt(at: number): Promise<Buffer | null> {
    const live = this.live;
    while (at >= live.end) if (!(await live.pull())) return null;
    if (at >= live.start) return live.slice(at);
    let tape = this.rewound;
    if (tape === null || at < tape.start) {
      await tape?.close();
      tape = this.rewound = new Tape(this.reinflate(), this.window);
    }
    while (at >= tape.end) if (!(await tape.pull())) throw new Error(`the member inflated again ends at ${tape.end}, before byte ${at}`);
    // (never past what the live inflation made the member: the second one does not know where it ends)
    return tape.slice(at).subarray(0, live.end - at);
  }

  async close(): Promise<void> {
    await this.rewound?.close();
    await this.live.close();
  }
}
