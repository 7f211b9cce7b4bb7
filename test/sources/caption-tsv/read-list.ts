/** What the runner does with a caption list, for the layout tests: the source claims and plans it, reads each shard, finds each record's reference. */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { tempDir } from "../../runner/helpers.ts";

const config = ParacapConfig.parse({});

/** `data` as a file named `name` in a new temporary folder (removeTempDirs removes it). */
export function write(name: string, data: string | Buffer | Uint8Array): string {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  return path;
}

/** A list's references (`image caption`, or `skipped <reason>`), pages, counters and drop samples, read in shards of `shardBytes`. */
export async function readList(path: string, shardBytes = 1 << 30) {
  const counters = new Counters();
  const source = BUILTIN_SOURCES.detect(path.split("/").pop()!, readFileSync(path).subarray(0, 4096));
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, shardBytes, LOCAL_VIEW);
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const extract = captionTsvSource.createExtractor(config, counters, undefined);
  const refs: string[] = [];
  const pages = new Set<string>();
  const shards = shardsOf(path, "caption-tsv", "current", ranges, 0);
  for (const shard of shards) {
    for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) {
      const r = extract(doc);
      pages.add(r.page);
      refs.push(r.refs ? `${r.refs[0]!.image} ${r.refs[0]!.caption}` : `skipped ${r.skipped}`);
    }
  }
  return { source: source?.name, refs, pages, counters: counters.toJSON(), samples: counters.samples.toJSON(), shards: shards.length, ranges };
}
