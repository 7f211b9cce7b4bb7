/** How a runner hands an input file's bytes to a source: a local file, a Cloud Storage object, an HTTP resource. */

/** Bytes of one input file, as a runner can read them. */
export interface ByteSource {
  /** names the file in messages and damage reports (a path, or gs://bucket/object) */
  readonly label: string;
  /** bytes [start, end) of the file; end undefined = to the end of the file */
  read(start?: number, end?: number): AsyncIterable<Buffer>;
  /** told the size of decoded bytes as a decompressing source produces them (progress only) */
  onDecoded?: (bytes: number) => void;
}
