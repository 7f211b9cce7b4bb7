/**
 * The input sources a run can read, by name (the `source` of a shard spec). A registry is a value:
 * the built-in one serves the CLI and the cloud functions; a caller (a test, an embedding program)
 * can build one with extra sources and hand it to a runner.
 */
import type { AnySource, Source } from "./source.ts";
import { captionTsvSource } from "./caption-tsv/caption-tsv-source.ts";
import { mediawikiSource } from "./mediawiki/mediawiki-source.ts";
import { warcSource } from "./warc/warc-source.ts";

export interface SourceRegistry {
  get(name: string): Source;
  /** the source that reads a file, judged by its name and first bytes; null if none claims it */
  detect(fileName: string, head: Buffer): Source | null;
  names(): string[];
}

/**
 * Built-ins are tried most specific first: WARCs (by name, or a first gzip member that decodes to
 * a WARC record) and caption TSVs before MediaWiki, which accepts any compressed or XML-looking
 * file; extra sources before all.
 */
export function sourceRegistry(extra: readonly AnySource[] = []): SourceRegistry {
  const ordered = [...extra, warcSource as Source, captionTsvSource as Source, mediawikiSource as Source];
  const byName = new Map(ordered.map((s) => [s.name, s]));
  if (byName.size !== ordered.length) throw new Error(`duplicate source name among ${ordered.map((s) => s.name).join(", ")}`);
  return {
    get(name) {
      const s = byName.get(name);
      if (!s) throw new Error(`unknown input source "${name}" (known: ${[...byName.keys()].join(", ")})`);
      return s;
    },
    detect: (fileName, head) => ordered.find((s) => s.claims(fileName, head)) ?? null,
    names: () => [...byName.keys()],
  };
}

export const BUILTIN_SOURCES: SourceRegistry = sourceRegistry();
