/**
 * The input sources a run can read, by name (the `source` of a shard spec). A registry is a value:
 * the built-in one serves the CLI and the cloud functions; a caller (a test, an embedding program)
 * can build one with extra sources and hand it to either runner. Planners, stats and the report
 * iterate over it, so a source added here is planned, counted and reported with no other edit.
 */
import { EXTRACT_PREFIX } from "../core/counter-names.ts";
import type { AnySource } from "./source.ts";
import { captionTsvSource } from "./caption-tsv/caption-tsv-source.ts";
import { img2datasetSource } from "./img2dataset/img2dataset-source.ts";
import { mediawikiSource } from "./mediawiki/mediawiki-source.ts";
import { warcSource } from "./warc/warc-source.ts";
import { warcPathsSource } from "./warc/warc-paths-source.ts";

export interface SourceRegistry {
  get(name: string): AnySource;
  /** the source that reads a file, judged by its name and first bytes; null if none claims it */
  detect(fileName: string, head: Buffer): AnySource | null;
  /** every source, most specific first */
  all(): readonly AnySource[];
  names(): string[];
  /** an uploaded object's role, by name: an input of a source, a companion of one, or null */
  uploadRole(objectName: string): { source: AnySource; role: "input" } | { source: AnySource; role: "companion"; of: string } | null;
  /** counters stats.json lists under `extraction`: the extract stage's and every source's */
  isExtractionCounter(name: string): boolean;
}

/**
 * The built-in sources, most specific first: crawl paths lists (by name), WARCs (by name, or a first
 * gzip member that decodes to a WARC record), img2dataset tars and folders and caption TSVs before
 * MediaWiki, which accepts any compressed or XML-looking file.
 */
export const BUILTIN_SOURCE_LIST: readonly AnySource[] = [warcPathsSource, warcSource, img2datasetSource, captionTsvSource, mediawikiSource];

/** Extra sources are tried before the built-in ones. */
export function sourceRegistry(extra: readonly AnySource[] = [], builtins: readonly AnySource[] = BUILTIN_SOURCE_LIST): SourceRegistry {
  const ordered = [...extra, ...builtins];
  const byName = new Map(ordered.map((s) => [s.name, s]));
  if (byName.size !== ordered.length) throw new Error(`duplicate source name among ${ordered.map((s) => s.name).join(", ")}`);
  const prefixes = [EXTRACT_PREFIX, ...new Set(ordered.map((s) => `${s.counterPrefix}.`))];
  return {
    get(name) {
      const s = byName.get(name);
      if (!s) throw new Error(`unknown input source "${name}" (known: ${[...byName.keys()].join(", ")})`);
      return s;
    },
    detect: (fileName, head) => ordered.find((s) => s.claims(fileName, head)) ?? null,
    all: () => ordered,
    names: () => [...byName.keys()],
    uploadRole(objectName) {
      for (const source of ordered) {
        const r = source.uploadRole(objectName);
        if (r) return { source, ...r };
      }
      return null;
    },
    isExtractionCounter: (name) => prefixes.some((p) => name.startsWith(p)),
  };
}

export const BUILTIN_SOURCES: SourceRegistry = sourceRegistry();
