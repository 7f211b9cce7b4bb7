/**
 * The one error type for damaged or unreadable dump input (bad compression, malformed XML, not a
 * MediaWiki export). Runners treat it as "this input is corrupt" rather than "retry me", so it is
 * never used for I/O failures such as a missing file or a network error.
 */
export class DumpError extends Error {
  override readonly name = "DumpError";
  /** the dump file (or object name) the error is about */
  readonly file: string;
  /** byte offset in the decompressed stream (of the byte range, for a shard) when known */
  readonly offset: number | null;

  constructor(file: string, offset: number | null, problem: string, options?: { cause?: unknown }) {
    const at = offset === null ? "" : ` at decompressed byte ${offset}`;
    super(`${file}${at}: ${problem}`, options);
    this.file = file;
    this.offset = offset;
  }
}

/**
 * An input that could not be fetched (a crawl's WARC over HTTP, given up after its retries): damage
 * like any other for this run, but not of the input itself, so a rerun fetches it again.
 */
export class UnreachableInputError extends DumpError {
  readonly transient = true;
}
