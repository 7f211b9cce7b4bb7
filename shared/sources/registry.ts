/** Every input source paracap reads, by name (the `source` of a shard spec). */
import type { Source } from "./source.ts";
import type { SourceName } from "./source-names.ts";
import { captionTsvSource } from "./caption-tsv/caption-tsv-source.ts";
import { mediawikiSource } from "./mediawiki/mediawiki-source.ts";

const SOURCES: Record<SourceName, Source> = {
  mediawiki: mediawikiSource as Source,
  "caption-tsv": captionTsvSource as Source,
};

export function sourceOf(name: SourceName): Source {
  return SOURCES[name];
}

/**
 * The source that reads a file, from its name and first bytes. The most specific claim wins:
 * caption TSVs are tried before MediaWiki, which accepts any compressed or XML-looking file.
 */
export function detectSource(fileName: string, head: Buffer): SourceName | null {
  for (const name of ["caption-tsv", "mediawiki"] as const) if (SOURCES[name].claims(fileName, head)) return name;
  return null;
}
