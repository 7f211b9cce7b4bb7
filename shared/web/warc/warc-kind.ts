/**
 * Common Crawl publishes each WARC with two derivatives: WET (extracted plain text, `conversion`
 * records) and WAT (JSON metadata, `metadata` records). Neither holds HTML, so neither has image
 * captions: they are recognised by name and skipped with a count (their records would be skipped
 * one by one anyway, as conversion and metadata records).
 */
export type WarcKind = "warc" | "wet" | "wat";

export function warcKind(fileName: string): WarcKind {
  const m = /\.(wet|wat)(\.gz)?$/i.exec(fileName);
  return m ? (m[1]!.toLowerCase() as WarcKind) : "warc";
}

/** A WARC-family file by name: `.warc`, `.warc.gz`, WET, WAT (an ARC is isArcName's). */
export function isWarcName(fileName: string): boolean {
  return /\.warc(\.(wet|wat))?(\.gz)?$/i.test(fileName) || /\.(wet|wat)(\.gz)?$/i.test(fileName);
}

/** An ARC file by name (the Internet Archive's format before WARC): `.arc`, `.arc.gz`. */
export function isArcName(fileName: string): boolean {
  return /\.arc(\.gz)?$/i.test(fileName);
}
