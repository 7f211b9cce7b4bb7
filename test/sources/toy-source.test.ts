/**
 * The source seam as a contributor meets it: a source defined here, in the test only, runs through
 * the local runner's stages, filters and funnel without any other file knowing it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { InputKind } from "../../shared/core/records.ts";
import { createFeatureLookup, type RevisionRefs } from "../../shared/pipeline/extract-stage.ts";
import { sourceRegistry } from "../../shared/sources/registry.ts";
import type { Source } from "../../shared/sources/source.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { DATA, readPairs, readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

interface ToyDoc { n: number; image: string; caption: string }

/** JSON lines `{"image": …, "caption": …}`, read whole. */
const jsonCaptions: Source<ToyDoc> = {
  name: "json-captions",
  description: "JSON lines with image and caption",
  documentsCounter: "toy.lines",
  claims: (name) => name.endsWith(".captions.jsonl"),
  async *documents(shard, bytes, _config, counters) {
    const chunks: Buffer[] = [];
    for await (const c of bytes.read()) chunks.push(c);
    let n = 0;
    for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      counters.inc("toy.lines");
      const { image, caption } = JSON.parse(line) as { image: string; caption: string };
      yield { n: n++, image, caption };
    }
    void shard;
  },
  createExtractor(config, counters) {
    const features = createFeatureLookup(config, counters);
    return (doc: ToyDoc, kind: InputKind): RevisionRefs => {
      counters.inc(`extract.${kind}.revisions`);
      return { kind, page: `line ${doc.n}`, pageId: doc.n, revisionId: doc.n, refs: [{ image: doc.image, source: "row", ordinal: 0, caption: features(doc.caption), alt: null }] };
    };
  },
  pack: (docs) => docs,
  unpack: (packed) => packed as ToyDoc[],
  size: (d) => d.caption.length,
};

describe("a source registered by the caller", () => {
  it("runs through every stage, with its own documents counted", async () => {
    const dir = tempDir();
    // real captions (Conceptual Captions), three per image
    const captions = readFileSync(join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").slice(0, 12).map((l) => l.split("\t")[0]!);
    const file = join(dir, "toy.captions.jsonl");
    writeFileSync(file, captions.map((caption, i) => JSON.stringify({ image: `img-${i % 4}`, caption })).join("\n") + "\n");
    const out = join(dir, "out");
    // two workers asked for: a caller's source runs inline, the built-ins on the workers
    await run(out, [{ path: file, kind: "current" }], { tiers: ["silver"], captions: { minWords: 3 } }, { sources: sourceRegistry([jsonCaptions]), workers: 2 });
    const stats = readStats(out);
    expect(stats.counters["toy.lines"]).toBe(12);
    expect(stats.counters["extract.current.references.row"]).toBe(12);
    // the document rule of reconcile() knows the built-in sources only
    expect(reconcile(stats).filter((v) => !v.startsWith("documents used"))).toEqual([]);
    const pairs = readPairs(out, "silver");
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) expect(captions).toContain(p.a.text);
  });

  it("a name the registry does not know is an error naming the known ones", () => {
    expect(() => sourceRegistry().get("parquet")).toThrow(/unknown input source "parquet" \(known: warc, caption-tsv, mediawiki\)/);
    expect(() => sourceRegistry([{ ...jsonCaptions, name: "mediawiki" }])).toThrow(/duplicate source name/);
  });
});
