/**
 * What an uploaded object is, by name (the plan function's rule) and, for a local file, by its
 * first bytes: the CLI refuses locally what the plan function would ignore or fail on.
 */
import { open } from "node:fs/promises";
import type { SourceRegistry } from "../sources/registry.ts";
import type { AnySource } from "../sources/source.ts";

export const UPLOAD_MANIFEST = /\.manifest\.json$/;

/** What an uploaded object is to the planner: a run manifest, an input of a source, a companion of one (an index), or nothing. */
export type UploadKind = { kind: "manifest" } | { kind: "input"; source: AnySource } | { kind: "companion"; source: AnySource; of: string } | null;

/** The planner's reading of an object name: its own manifests, else what a source of the registry says. */
export function uploadKind(name: string, sources: SourceRegistry): UploadKind {
  if (UPLOAD_MANIFEST.test(name)) return { kind: "manifest" };
  const r = sources.uploadRole(name);
  if (!r) return null;
  return r.role === "input" ? { kind: "input", source: r.source } : { kind: "companion", source: r.source, of: r.of };
}

/** Why an object starts no run: what the planner reads instead. */
export function notAnInput(sources: SourceRegistry): string {
  return `is none of the inputs the planner reads (${sources.all().map((s) => s.description).join("; ")}) nor a *.manifest.json`;
}

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
  if (path.endsWith(".zst")) return head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528 ? null : "is not zstd data (no 28 b5 2f fd header)";
  if (path.endsWith(".xml")) {
    const text = head.toString("utf8").replace(/^\uFEFF/, "").trimStart();
    if (!text.startsWith("<")) return "is not XML (it does not start with '<')";
    return /<mediawiki[\s>]/.test(text) ? null : "is not a MediaWiki XML export (no <mediawiki> element near the start)";
  }
  return null;
}
