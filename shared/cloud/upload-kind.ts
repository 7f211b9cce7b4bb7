/**
 * What an uploaded object is, by name (the plan function's rule) and, for a local file, by its
 * first bytes: the CLI refuses locally what the plan function would ignore or fail on.
 */
import { open } from "node:fs/promises";

export const MULTISTREAM = /^(.*-multistream)\.xml\.bz2$/;
export const MULTISTREAM_INDEX = /^(.*-multistream)-index\.txt(\.bz2)?$/;
export const DUMP = /\.xml(\.bz2|\.gz)?$/;
export const UPLOAD_MANIFEST = /\.manifest\.json$/;
export const CAPTION_LIST = /\.tsv$/i;

export type UploadKind = "manifest" | "multistream-index" | "multistream" | "dump" | "caption-list";

/** The planner's reading of an object name; null for anything it ignores. */
export function uploadKind(name: string): UploadKind | null {
  if (UPLOAD_MANIFEST.test(name)) return "manifest";
  if (MULTISTREAM_INDEX.test(name)) return "multistream-index";
  if (MULTISTREAM.test(name)) return "multistream";
  if (DUMP.test(name)) return "dump";
  if (CAPTION_LIST.test(name)) return "caption-list";
  return null;
}

export const NOT_A_DUMP = "is not a dump (.xml, .xml.bz2, .xml.gz), a multistream index, a caption list (.tsv) or a *.manifest.json";

/**
 * Why a local dump file cannot be a dump its name claims (bzip2, gzip, XML), from its first bytes;
 * null when it looks right. Catches garbage and mislabelled files before an upload starts a run.
 */
export async function sniffDump(path: string): Promise<string | null> {
  const fh = await open(path, "r");
  let head: Buffer;
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (head.length === 0) return "is empty";
  if (path.endsWith(".bz2")) return /^BZh[1-9]/.test(head.subarray(0, 4).toString("latin1")) ? null : "is not bzip2 data (no BZh header)";
  if (path.endsWith(".gz")) return head[0] === 0x1f && head[1] === 0x8b ? null : "is not gzip data (no 1f 8b header)";
  if (path.endsWith(".xml")) {
    const text = head.toString("utf8").replace(/^\uFEFF/, "").trimStart();
    if (!text.startsWith("<")) return "is not XML (it does not start with '<')";
    return /<mediawiki[\s>]/.test(text) ? null : "is not a MediaWiki XML export (no <mediawiki> element near the start)";
  }
  return null;
}
